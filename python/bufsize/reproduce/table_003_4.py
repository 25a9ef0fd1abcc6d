"""003-TableIV: Netem parameters (§VIII)

A configuration table (it states a setup, no data): registered so the catalogue is complete.
"""

from bufsize.reproduce._core import FigureSpec

SPEC = FigureSpec(
    id='table_003_4',
    paper_id='003-TableIV',
    title='Netem parameters (§VIII)',
    kind='config',
    kind_detail='config (testbed)',
    needs=(),
    paper_cost='0',
)
