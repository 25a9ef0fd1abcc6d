"""000-Fig1: Schematic of the experimental testbed (§III-A)

An illustration (a schematic without data): registered so the catalogue is complete.
"""

from bufsize.reproduce._core import FigureSpec

SPEC = FigureSpec(
    id='fig_000_01',
    paper_id='000-Fig1',
    title='Schematic of the experimental testbed (§III-A)',
    kind='illustration',
    kind_detail='illustration',
    needs=(),
    paper_cost='0',
)
