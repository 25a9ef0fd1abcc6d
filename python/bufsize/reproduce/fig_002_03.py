"""002-Fig3: Paced TCP vs TCP Reno, constant 80 % peak load (§III)

Registered from FIGURES.md; not reproducible yet (see ``SPEC`` and ``bufsize reproduce --list``).
"""

from bufsize.reproduce._core import FigureSpec

SPEC = FigureSpec(
    id='fig_002_03',
    paper_id='002-Fig3',
    title='Paced TCP vs TCP Reno, constant 80 % peak load (§III)',
    kind='simulation',
    kind_detail='simulation',
    needs=('TCP-PACED', 'TCP-RENO', 'MET-UTIL', 'TCP-WMAX', 'TRF-BULK', 'SIM-Q', 'EXP-SWEEP'),
    paper_cost='≈ 0.8 G',
)
