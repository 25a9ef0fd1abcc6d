"""004-Fig11: Minimum buffer for 98, 99.5 and 99.9 % utilization, OC3 (155 Mb/s), ≈ 80 ms mean RTT, long-lived flows (§5.1.1)

Registered from FIGURES.md; not reproducible yet (see ``SPEC`` and ``bufsize reproduce --list``).
"""

from bufsize.reproduce._core import FigureSpec

SPEC = FigureSpec(
    id='fig_004_11',
    paper_id='004-Fig11',
    title='Minimum buffer for 98, 99.5 and 99.9 % utilization, OC3 (155 Mb/s), ≈ 80 ms mean RTT, long-lived flows (§5.1.1)',
    kind='simulation',
    kind_detail='simulation (+ model)',
    needs=('TRF-BULK', 'TCP-RENO', 'TRF-RTT', 'EXP-MINB', 'EXP-SEEDS', 'MET-UTIL'),
    paper_cost='≈ 0.14–0.2 G',
)
