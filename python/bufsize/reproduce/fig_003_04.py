"""003-Fig4: Minimum router buffer vs n for flows of a single protocol (§IV-B)

Registered from FIGURES.md; not reproducible yet (see ``SPEC`` and ``bufsize reproduce --list``).
"""

from bufsize.reproduce._core import FigureSpec

SPEC = FigureSpec(
    id='fig_003_04',
    paper_id='003-Fig4',
    title='Minimum router buffer vs n for flows of a single protocol (§IV-B)',
    kind='analytic',
    kind_detail='analytic',
    needs=('M-003',),
    paper_cost='0',
)
