"""003-TableI: Notation (§III)

A configuration table (it states a setup, no data): registered so the catalogue is complete.
"""

from bufsize.reproduce._core import FigureSpec

SPEC = FigureSpec(
    id='table_003_1',
    paper_id='003-TableI',
    title='Notation (§III)',
    kind='config',
    kind_detail='config',
    needs=(),
    paper_cost='0',
)
