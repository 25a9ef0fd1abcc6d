"""004-Fig6: A TCP flow through an over-buffered router (§2)

Registered from FIGURES.md; not reproducible yet (see ``SPEC`` and ``bufsize reproduce --list``).
"""

from bufsize.reproduce._core import FigureSpec

SPEC = FigureSpec(
    id='fig_004_06',
    paper_id='004-Fig6',
    title='A TCP flow through an over-buffered router (§2)',
    kind='simulation',
    kind_detail='simulation',
    needs=('TCP-RENO', 'MET-CWND', 'MET-QHIST', 'SIM-Q', 'TRF-BULK', 'M-004'),
    paper_cost='~0.2 M',
)
