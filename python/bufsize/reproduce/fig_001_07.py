"""001-Fig7: Cross traffic: size-limited short TCP transfers (congested path) (§VI-B)

Registered from FIGURES.md; not reproducible yet (see ``SPEC`` and ``bufsize reproduce --list``).
"""

from bufsize.reproduce._core import FigureSpec

SPEC = FigureSpec(
    id='fig_001_07',
    paper_id='001-Fig7',
    title='Cross traffic: size-limited short TCP transfers (congested path) (§VI-B)',
    kind='simulation',
    kind_detail='simulation',
    needs=('TRF-MICE', 'TRF-BULK', 'TCP-WMAX', 'SIM-REV', 'MET-PATH', 'EXP-MFT', 'MET-LOSS'),
    paper_cost='≈ 0.12 G (×2)',
)
