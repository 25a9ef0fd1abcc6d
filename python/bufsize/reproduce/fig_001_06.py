"""001-Fig6: Cross traffic: congestion-limited persistent TCP transfers (congested path) (§VI-A)

Registered from FIGURES.md; not reproducible yet (see ``SPEC`` and ``bufsize reproduce --list``).
"""

from bufsize.reproduce._core import FigureSpec

SPEC = FigureSpec(
    id='fig_001_06',
    paper_id='001-Fig6',
    title='Cross traffic: congestion-limited persistent TCP transfers (congested path) (§VI-A)',
    kind='simulation',
    kind_detail='simulation',
    needs=('TRF-BULK', 'MET-LOSS', 'M-001', 'TCP-WMAX', 'SIM-REV', 'MET-PATH', 'EXP-MFT'),
    paper_cost='≈ 0.12 G',
)
