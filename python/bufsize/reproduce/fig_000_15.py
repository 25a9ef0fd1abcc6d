"""000-Fig15: Loss probability vs buffer size for high Γ (Nin = 1000, U = 25, Γ = 10, BDP = 25 packets) (§VI-A)

Registered from FIGURES.md; not reproducible yet (see ``SPEC`` and ``bufsize reproduce --list``).
"""

from bufsize.reproduce._core import FigureSpec

SPEC = FigureSpec(
    id='fig_000_15',
    paper_id='000-Fig15',
    title='Loss probability vs buffer size for high Γ (Nin = 1000, U = 25, Γ = 10, BDP = 25 packets) (§VI-A)',
    kind='simulation',
    kind_detail='simulation',
    needs=('SIM-TOPO-GAMMA', 'TRF-CLOSED', 'MET-LOSS', 'EXP-FIT'),
    paper_cost='9 M/seed',
)
