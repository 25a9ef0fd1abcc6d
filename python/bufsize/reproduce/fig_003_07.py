"""003-Fig7: Lower bound of z_q as γ grows from BDP/(BDP+B_l) to 1 (§VII-B.1)

Registered from FIGURES.md; not reproducible yet (see ``SPEC`` and ``bufsize reproduce --list``).
"""

from bufsize.reproduce._core import FigureSpec

SPEC = FigureSpec(
    id='fig_003_07',
    paper_id='003-Fig7',
    title='Lower bound of z_q as γ grows from BDP/(BDP+B_l) to 1 (§VII-B.1)',
    kind='analytic',
    kind_detail='analytic',
    needs=('M-003',),
    paper_cost='0',
)
