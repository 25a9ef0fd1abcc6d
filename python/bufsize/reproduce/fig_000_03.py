"""000-Fig3: Link utilization vs router buffer size, U1000/U1200/U3000 (§III-B.1)

Registered from FIGURES.md; not reproducible yet (see ``SPEC`` and ``bufsize reproduce --list``).
"""

from bufsize.reproduce._core import FigureSpec

SPEC = FigureSpec(
    id='fig_000_03',
    paper_id='000-Fig3',
    title='Link utilization vs router buffer size, U1000/U1200/U3000 (§III-B.1)',
    kind='testbed',
    kind_detail='testbed',
    needs=('TRF-CLOSED', 'TCP-NRSACK', 'TCP-RENO', 'TRF-RTT', 'SIM-QB', 'MET-UTIL', 'EXP-SWEEP', 'EXP-SEEDS'),
    paper_cost='campaign T000 ≈1.2 G pkt (×2 short flows)',
)
