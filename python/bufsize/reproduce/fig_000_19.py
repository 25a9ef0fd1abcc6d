"""000-Fig19: Sensitivity of throughput to errors in the optimal buffer size; L-model top, S-model bottom (§VII-D)

Registered from FIGURES.md; not reproducible yet (see ``SPEC`` and ``bufsize reproduce --list``).
"""

from bufsize.reproduce._core import FigureSpec

SPEC = FigureSpec(
    id='fig_000_19',
    paper_id='000-Fig19',
    title='Sensitivity of throughput to errors in the optimal buffer size; L-model top, S-model bottom (§VII-D)',
    kind='analytic',
    kind_detail='analytic',
    needs=('M-000',),
    paper_cost='~0',
)
