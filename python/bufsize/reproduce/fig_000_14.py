"""000-Fig14: Queueing delay vs buffer size for low Γ (same setting as Fig 13) [caption reconstructed]

Registered from FIGURES.md; not reproducible yet (see ``SPEC`` and ``bufsize reproduce --list``).
"""

from bufsize.reproduce._core import FigureSpec

SPEC = FigureSpec(
    id='fig_000_14',
    paper_id='000-Fig14',
    title='Queueing delay vs buffer size for low Γ (same setting as Fig 13) [caption reconstructed]',
    kind='simulation',
    kind_detail='simulation',
    needs=('MET-QDELAY', 'EXP-FIT', 'SIM-TOPO-GAMMA', 'TRF-CLOSED', 'TCP-RENO', 'SIM-Q', 'MET-LOSS', 'EXP-SWEEP'),
    paper_cost='shared w/ Fig13',
)
