"""003-Fig6: Buffer increase from adding the drop-rate constraint to the utilization constraint (§VII-A)

Registered from FIGURES.md; not reproducible yet (see ``SPEC`` and ``bufsize reproduce --list``).
"""

from bufsize.reproduce._core import FigureSpec

SPEC = FigureSpec(
    id='fig_003_06',
    paper_id='003-Fig6',
    title='Buffer increase from adding the drop-rate constraint to the utilization constraint (§VII-A)',
    kind='analytic',
    kind_detail='analytic',
    needs=('M-003',),
    paper_cost='0',
)
