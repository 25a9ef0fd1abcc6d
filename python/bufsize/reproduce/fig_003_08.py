"""003-Fig8: Testbed (§VIII)

An illustration (a schematic without data): registered so the catalogue is complete.
"""

from bufsize.reproduce._core import FigureSpec

SPEC = FigureSpec(
    id='fig_003_08',
    paper_id='003-Fig8',
    title='Testbed (§VIII)',
    kind='illustration',
    kind_detail='illustration',
    needs=(),
    paper_cost='0',
)
