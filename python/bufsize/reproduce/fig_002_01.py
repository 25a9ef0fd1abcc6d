"""002-Fig1: Bottleneck utilization for different buffer sizes and numbers of flows (§III)

Registered from FIGURES.md; not reproducible yet (see ``SPEC`` and ``bufsize reproduce --list``).
"""

from bufsize.reproduce._core import FigureSpec

SPEC = FigureSpec(
    id='fig_002_01',
    paper_id='002-Fig1',
    title='Bottleneck utilization for different buffer sizes and numbers of flows (§III)',
    kind='simulation',
    kind_detail='simulation',
    needs=('TCP-RENO', 'TCP-PACED', 'TCP-WMAX', 'TRF-BULK', 'TRF-START', 'SIM-Q', 'MET-UTIL', 'EXP-SWEEP'),
    paper_cost='≈ 0.64 G',
)
