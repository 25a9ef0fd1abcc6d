"""000-Fig6: Median per-flow throughput vs buffer size, U1200 (§III-B.2)

Registered from FIGURES.md; not reproducible yet (see ``SPEC`` and ``bufsize reproduce --list``).
"""

from bufsize.reproduce._core import FigureSpec

SPEC = FigureSpec(
    id='fig_000_06',
    paper_id='000-Fig6',
    title='Median per-flow throughput vs buffer size, U1200 (§III-B.2)',
    kind='testbed',
    kind_detail='testbed',
    needs=('MET-FLOW', 'EXP-STATS', 'TRF-CLOSED', 'TCP-NRSACK', 'TCP-RENO', 'TRF-RTT', 'SIM-QB', 'MET-UTIL', 'EXP-SWEEP', 'EXP-SEEDS'),
    paper_cost='T000',
)
