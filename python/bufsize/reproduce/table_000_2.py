"""000-TableII: Optimal buffer size from simulations and from analysis (§VII-C)

Registered from FIGURES.md; not reproducible yet (see ``SPEC`` and ``bufsize reproduce --list``).
"""

from bufsize.reproduce._core import FigureSpec

SPEC = FigureSpec(
    id='table_000_2',
    paper_id='000-TableII',
    title='Optimal buffer size from simulations and from analysis (§VII-C)',
    kind='simulation',
    kind_detail='simulation + analytic',
    needs=('TRF-CLOSED', 'SIM-TOPO-GAMMA', 'MET-FLOW', 'EXP-OPTB', 'EXP-FIT', 'M-000'),
    paper_cost='≈ 0.6 G (1 seed), 3 G (5 seeds)',
)
