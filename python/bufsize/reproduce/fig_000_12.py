"""000-Fig12: Simulation setup (§VI-A)

An illustration (a schematic without data): registered so the catalogue is complete.
"""

from bufsize.reproduce._core import FigureSpec

SPEC = FigureSpec(
    id='fig_000_12',
    paper_id='000-Fig12',
    title='Simulation setup (§VI-A)',
    kind='illustration',
    kind_detail='illustration',
    needs=('SIM-TOPO-GAMMA',),
    paper_cost='0',
)
