"""004-Fig7: Two TCP flows sharing a bottleneck (§3.1)

Registered from FIGURES.md; not reproducible yet (see ``SPEC`` and ``bufsize reproduce --list``).
"""

from bufsize.reproduce._core import FigureSpec

SPEC = FigureSpec(
    id='fig_004_07',
    paper_id='004-Fig7',
    title='Two TCP flows sharing a bottleneck (§3.1)',
    kind='simulation',
    kind_detail='simulation',
    needs=('MET-SYNC', 'MET-CWND', 'TCP-RENO', 'MET-QHIST', 'SIM-Q', 'TRF-BULK'),
    paper_cost='~0.2 M',
)
