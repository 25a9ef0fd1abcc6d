"""000-Fig10: Average per-flow throughput vs flow size, B = 38 MB (§IV)

Registered from FIGURES.md; not reproducible yet (see ``SPEC`` and ``bufsize reproduce --list``).
"""

from bufsize.reproduce._core import FigureSpec

SPEC = FigureSpec(
    id='fig_000_10',
    paper_id='000-Fig10',
    title='Average per-flow throughput vs flow size, B = 38 MB (§IV)',
    kind='testbed',
    kind_detail='testbed + overlay',
    needs=('M-000', 'MET-FLOW', 'EXP-STATS', 'TRF-CLOSED', 'TCP-NRSACK', 'TCP-RENO', 'TRF-RTT', 'SIM-QB', 'MET-UTIL', 'EXP-SWEEP', 'EXP-SEEDS'),
    paper_cost='T000',
)
