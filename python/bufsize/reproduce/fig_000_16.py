"""000-Fig16: Queueing delay vs buffer size for high Γ (same setting as Fig 15) (§VI-A)

Registered from FIGURES.md; not reproducible yet (see ``SPEC`` and ``bufsize reproduce --list``).
"""

from bufsize.reproduce._core import FigureSpec

SPEC = FigureSpec(
    id='fig_000_16',
    paper_id='000-Fig16',
    title='Queueing delay vs buffer size for high Γ (same setting as Fig 15) (§VI-A)',
    kind='simulation',
    kind_detail='simulation',
    needs=('SIM-TOPO-GAMMA', 'TRF-CLOSED', 'MET-LOSS', 'EXP-FIT', 'MET-QDELAY'),
    paper_cost='shared w/ Fig15',
)
