"""000-Fig13: Loss probability vs buffer size for low Γ (Nin = 20, U = 100, Γ = 0.1, BDP = 125 packets) (§VI-A)

Registered from FIGURES.md; not reproducible yet (see ``SPEC`` and ``bufsize reproduce --list``).
"""

from bufsize.reproduce._core import FigureSpec

SPEC = FigureSpec(
    id='fig_000_13',
    paper_id='000-Fig13',
    title='Loss probability vs buffer size for low Γ (Nin = 20, U = 100, Γ = 0.1, BDP = 125 packets) (§VI-A)',
    kind='simulation',
    kind_detail='simulation',
    needs=('SIM-TOPO-GAMMA', 'TRF-CLOSED', 'TCP-RENO', 'SIM-Q', 'MET-LOSS', 'EXP-SWEEP', 'EXP-FIT'),
    paper_cost='45 M/seed',
)
