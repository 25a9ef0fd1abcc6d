"""004-Fig1: Window (top) and router queue (bottom) for a TCP flow through a bottleneck (§1.2)

Registered from FIGURES.md; not reproducible yet (see ``SPEC`` and ``bufsize reproduce --list``).
"""

from bufsize.reproduce._core import FigureSpec

SPEC = FigureSpec(
    id='fig_004_01',
    paper_id='004-Fig1',
    title='Window (top) and router queue (bottom) for a TCP flow through a bottleneck (§1.2)',
    kind='simulation',
    kind_detail='simulation [inf]',
    needs=('TCP-RENO', 'TRF-BULK', 'SIM-Q', 'MET-CWND', 'MET-QHIST'),
    paper_cost='~0',
)
