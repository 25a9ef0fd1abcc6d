"""004-Fig8: Probability distribution of the sum of congestion windows vs a normal distribution (§3.2)

Registered from FIGURES.md; not reproducible yet (see ``SPEC`` and ``bufsize reproduce --list``).
"""

from bufsize.reproduce._core import FigureSpec

SPEC = FigureSpec(
    id='fig_004_08',
    paper_id='004-Fig8',
    title='Probability distribution of the sum of congestion windows vs a normal distribution (§3.2)',
    kind='simulation',
    kind_detail='simulation',
    needs=('MET-SUMW', 'TRF-RTT', 'TRF-START', 'EXP-STATS', 'TRF-BULK', 'TCP-RENO', 'SIM-Q'),
    paper_cost='12 M',
)
