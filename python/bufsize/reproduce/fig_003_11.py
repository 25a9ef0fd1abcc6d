"""003-Fig11: Buffers from Inequality (14) give high utilization and a low drop rate (§VIII)

Registered from FIGURES.md; not reproducible yet (see ``SPEC`` and ``bufsize reproduce --list``).
"""

from bufsize.reproduce._core import FigureSpec

SPEC = FigureSpec(
    id='fig_003_11',
    paper_id='003-Fig11',
    title='Buffers from Inequality (14) give high utilization and a low drop rate (§VIII)',
    kind='testbed',
    kind_detail='testbed',
    needs=('MET-LOSS', 'M-003', 'TCP-RENO', 'TCP-BIC', 'TCP-CUBIC', 'TCP-CTCP', 'TRF-BULK', 'MET-UTIL', 'MET-UTIL-TS'),
    paper_cost='sim ≈ 47 M',
)
