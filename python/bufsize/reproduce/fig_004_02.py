"""004-Fig2: Single-flow topology (§1.2)

An illustration (a schematic without data): registered so the catalogue is complete.
"""

from bufsize.reproduce._core import FigureSpec

SPEC = FigureSpec(
    id='fig_004_02',
    paper_id='004-Fig2',
    title='Single-flow topology (§1.2)',
    kind='illustration',
    kind_detail='illustration',
    needs=(),
    paper_cost='0',
)
