"""001-Fig3: Cross traffic: rate-controlled UDP, constant average rate (§V-A)

Registered from FIGURES.md; not reproducible yet (see ``SPEC`` and ``bufsize reproduce --list``).
"""

from bufsize.reproduce._core import FigureSpec

SPEC = FigureSpec(
    id='fig_001_03',
    paper_id='001-Fig3',
    title='Cross traffic: rate-controlled UDP, constant average rate (§V-A)',
    kind='simulation',
    kind_detail='simulation',
    needs=('TRF-UDP-PARETO', 'TRF-BULK', 'TCP-WMAX', 'SIM-REV', 'MET-PATH', 'EXP-MFT'),
    paper_cost='≈ 0.12 G',
)
