"""002-Fig4: Bottleneck utilization vs buffer size, under-provisioned link (§IV)

Registered from FIGURES.md; not reproducible yet (see ``SPEC`` and ``bufsize reproduce --list``).
"""

from bufsize.reproduce._core import FigureSpec

SPEC = FigureSpec(
    id='fig_002_04',
    paper_id='002-Fig4',
    title='Bottleneck utilization vs buffer size, under-provisioned link (§IV)',
    kind='simulation',
    kind_detail='simulation',
    needs=('TCP-RENO', 'TCP-PACED', 'TCP-WMAX', 'TRF-BULK', 'TRF-START', 'SIM-Q', 'MET-UTIL', 'EXP-SWEEP'),
    paper_cost='≈ 0.64 G',
)
