"""003-TableIII: Congestion-window mean μi and standard deviation δi (§IV-A)

Registered from FIGURES.md; not reproducible yet (see ``SPEC`` and ``bufsize reproduce --list``).
"""

from bufsize.reproduce._core import FigureSpec

SPEC = FigureSpec(
    id='table_003_3',
    paper_id='003-TableIII',
    title='Congestion-window mean μi and standard deviation δi (§IV-A)',
    kind='analytic',
    kind_detail='analytic',
    needs=('M-003',),
    paper_cost='quadrature',
)
