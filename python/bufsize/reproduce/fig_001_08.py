"""001-Fig8: Receive-throughput using SOBAS for two tight-link buffer sizes (§VII-A)

Registered from FIGURES.md; not reproducible yet (see ``SPEC`` and ``bufsize reproduce --list``).
"""

from bufsize.reproduce._core import FigureSpec

SPEC = FigureSpec(
    id='fig_001_08',
    paper_id='001-Fig8',
    title='Receive-throughput using SOBAS for two tight-link buffer sizes (§VII-A)',
    kind='simulation',
    kind_detail='simulation',
    needs=('SOBAS-SIM', 'TRF-SIZED', 'MET-GOODPUT-TS'),
    paper_cost='6 M',
)
