"""002-Fig2: Congestion window size, TCP Reno vs paced TCP (§III)

Registered from FIGURES.md; not reproducible yet (see ``SPEC`` and ``bufsize reproduce --list``).
"""

from bufsize.reproduce._core import FigureSpec

SPEC = FigureSpec(
    id='fig_002_02',
    paper_id='002-Fig2',
    title='Congestion window size, TCP Reno vs paced TCP (§III)',
    kind='simulation',
    kind_detail='simulation',
    needs=('MET-CWND', 'TCP-PACED', 'TCP-RENO', 'TCP-WMAX', 'TRF-BULK'),
    paper_cost='38 M',
)
