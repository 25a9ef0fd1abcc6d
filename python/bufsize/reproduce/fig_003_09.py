"""003-Fig9: Buffers from Inequality (7) keep utilization high (§VIII)

Registered from FIGURES.md; not reproducible yet (see ``SPEC`` and ``bufsize reproduce --list``).
"""

from bufsize.reproduce._core import FigureSpec

SPEC = FigureSpec(
    id='fig_003_09',
    paper_id='003-Fig9',
    title='Buffers from Inequality (7) keep utilization high (§VIII)',
    kind='testbed',
    kind_detail='testbed',
    needs=('MET-UTIL-TS', 'M-003', 'TCP-RENO', 'TCP-BIC', 'TCP-CUBIC', 'TCP-CTCP', 'TRF-BULK', 'MET-UTIL'),
    paper_cost='sim ≈ 47 M',
)
