"""003-Fig5: Drop-rate bound φ and flow count n that satisfy Inequality (12) (§V)

Registered from FIGURES.md; not reproducible yet (see ``SPEC`` and ``bufsize reproduce --list``).
"""

from bufsize.reproduce._core import FigureSpec

SPEC = FigureSpec(
    id='fig_003_05',
    paper_id='003-Fig5',
    title='Drop-rate bound φ and flow count n that satisfy Inequality (12) (§V)',
    kind='analytic',
    kind_detail='analytic',
    needs=('M-003',),
    paper_cost='0',
)
