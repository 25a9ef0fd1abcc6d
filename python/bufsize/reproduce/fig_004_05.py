"""004-Fig5: A TCP flow through an under-buffered router (§2)

Registered from FIGURES.md; not reproducible yet (see ``SPEC`` and ``bufsize reproduce --list``).
"""

from bufsize.reproduce._core import FigureSpec

SPEC = FigureSpec(
    id='fig_004_05',
    paper_id='004-Fig5',
    title='A TCP flow through an under-buffered router (§2)',
    kind='simulation',
    kind_detail='simulation',
    needs=('M-001', 'TCP-RENO', 'MET-CWND', 'MET-QHIST', 'SIM-Q', 'TRF-BULK', 'M-004'),
    paper_cost='~0.2 M',
)
