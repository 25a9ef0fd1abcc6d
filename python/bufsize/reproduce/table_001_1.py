"""001-TableI: Target throughput (Mb/s): six static socket-buffer sizings, SOBAS and MFT (§VII-B)

Registered from FIGURES.md; not reproducible yet (see ``SPEC`` and ``bufsize reproduce --list``).
"""

from bufsize.reproduce._core import FigureSpec

SPEC = FigureSpec(
    id='table_001_1',
    paper_id='001-TableI',
    title='Target throughput (Mb/s): six static socket-buffer sizings, SOBAS and MFT (§VII-B)',
    kind='simulation',
    kind_detail='simulation',
    needs=('SIM-TOPO-MH', 'TRF-BULK', 'TRF-MICE', 'TRF-UDP-PARETO', 'TRF-SIZED', 'TCP-WMAX', 'SOBAS-SIM', 'MET-PATH', 'EXP-MFT'),
    paper_cost='≈ 5.5 G pkt-hops',
)
