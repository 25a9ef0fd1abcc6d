"""004-Fig4: A TCP flow through a single router with buffer = delay-bandwidth product (§2)

Registered from FIGURES.md; not reproducible yet (see ``SPEC`` and ``bufsize reproduce --list``).
"""

from bufsize.reproduce._core import FigureSpec

SPEC = FigureSpec(
    id='fig_004_04',
    paper_id='004-Fig4',
    title='A TCP flow through a single router with buffer = delay-bandwidth product (§2)',
    kind='simulation',
    kind_detail='simulation (+ App. B fluid model)',
    needs=('TCP-RENO', 'MET-CWND', 'M-004', 'MET-QHIST', 'SIM-Q', 'TRF-BULK'),
    paper_cost='~0.2 M',
)
