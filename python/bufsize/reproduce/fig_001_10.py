"""001-Fig10: Throughput of an 800 MB transfer from Y to Z with SOBAS and two static socket buffer sizes (§VII-C)

Registered from FIGURES.md; not reproducible yet (see ``SPEC`` and ``bufsize reproduce --list``).
"""

from bufsize.reproduce._core import FigureSpec

SPEC = FigureSpec(
    id='fig_001_10',
    paper_id='001-Fig10',
    title='Throughput of an 800 MB transfer from Y to Z with SOBAS and two static socket buffer sizes (§VII-C)',
    kind='real-network',
    kind_detail='real-network',
    needs=('RS-SOBAS', 'RS-FIXED', 'RS-LOG', 'TB-ROUTER', 'TB-DELAY'),
    paper_cost='testbed ≈ 4–5 min',
)
