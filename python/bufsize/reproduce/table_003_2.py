"""003-TableII: Growth function w(t), β, epoch T (R = RTT) (§IV-A)

Registered from FIGURES.md; not reproducible yet (see ``SPEC`` and ``bufsize reproduce --list``).
"""

from bufsize.reproduce._core import FigureSpec

SPEC = FigureSpec(
    id='table_003_2',
    paper_id='003-TableII',
    title='Growth function w(t), β, epoch T (R = RTT) (§IV-A)',
    kind='analytic',
    kind_detail='analytic (model definition)',
    needs=('M-003',),
    paper_cost='0',
)
