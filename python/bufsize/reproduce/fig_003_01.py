"""003-Fig1: As the number of flows grows, the aggregate traffic W approaches a normal distribution (§III)

Registered from FIGURES.md; not reproducible yet (see ``SPEC`` and ``bufsize reproduce --list``).
"""

from bufsize.reproduce._core import FigureSpec

SPEC = FigureSpec(
    id='fig_003_01',
    paper_id='003-Fig1',
    title='As the number of flows grows, the aggregate traffic W approaches a normal distribution (§III)',
    kind='simulation',
    kind_detail='simulation (method unspecified, assumed)',
    needs=('MET-SUMW', 'TCP-RENO', 'EXP-STATS', 'TRF-BULK', 'TRF-RTT'),
    paper_cost='62 M',
)
