"""000-Fig8: CDFs of per-flow throughput for four buffer sizes, U3000 (§III-B.3)

Registered from FIGURES.md; not reproducible yet (see ``SPEC`` and ``bufsize reproduce --list``).
"""

from bufsize.reproduce._core import FigureSpec

SPEC = FigureSpec(
    id='fig_000_08',
    paper_id='000-Fig8',
    title='CDFs of per-flow throughput for four buffer sizes, U3000 (§III-B.3)',
    kind='testbed',
    kind_detail='testbed',
    needs=('MET-FLOW', 'EXP-STATS', 'TRF-CLOSED', 'TCP-NRSACK', 'TCP-RENO', 'TRF-RTT', 'SIM-QB', 'MET-UTIL', 'EXP-SWEEP', 'EXP-SEEDS'),
    paper_cost='T000',
)
