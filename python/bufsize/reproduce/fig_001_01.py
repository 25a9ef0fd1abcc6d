"""001-Fig1: Throughput of a 1-gigabyte transfer with two socket buffer sizes (§IV)

Registered from FIGURES.md; not reproducible yet (see ``SPEC`` and ``bufsize reproduce --list``).
"""

from bufsize.reproduce._core import FigureSpec

SPEC = FigureSpec(
    id='fig_001_01',
    paper_id='001-Fig1',
    title='Throughput of a 1-gigabyte transfer with two socket buffer sizes (§IV)',
    kind='real-network',
    kind_detail='real-network',
    needs=('RS-FIXED', 'RS-LOG', 'TB-ROUTER', 'TB-DELAY', 'TRF-SIZED', 'TCP-WMAX'),
    paper_cost='testbed ≈ 4 min; sim 2 M',
)
