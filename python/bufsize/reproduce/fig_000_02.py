"""000-Fig2: Expected and observed maximum latency with drop-tail queueing (§III-A)

Registered from FIGURES.md; not reproducible yet (see ``SPEC`` and ``bufsize reproduce --list``).
"""

from bufsize.reproduce._core import FigureSpec

SPEC = FigureSpec(
    id='fig_000_02',
    paper_id='000-Fig2',
    title='Expected and observed maximum latency with drop-tail queueing (§III-A)',
    kind='testbed',
    kind_detail='testbed',
    needs=('SIM-QB', 'MET-QDELAY'),
    paper_cost='sim 3 M pkt',
)
