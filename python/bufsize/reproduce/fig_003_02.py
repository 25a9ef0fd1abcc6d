"""003-Fig2: Relationship among key variables (§III)

An illustration (a schematic without data): registered so the catalogue is complete.
"""

from bufsize.reproduce._core import FigureSpec

SPEC = FigureSpec(
    id='fig_003_02',
    paper_id='003-Fig2',
    title='Relationship among key variables (§III)',
    kind='illustration',
    kind_detail='illustration',
    needs=(),
    paper_cost='0',
)
