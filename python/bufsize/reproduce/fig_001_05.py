"""001-Fig5: Cross traffic: size-limited short TCP transfers (non-congested) (§V-C)

Registered from FIGURES.md; not reproducible yet (see ``SPEC`` and ``bufsize reproduce --list``).
"""

from bufsize.reproduce._core import FigureSpec

SPEC = FigureSpec(
    id='fig_001_05',
    paper_id='001-Fig5',
    title='Cross traffic: size-limited short TCP transfers (non-congested) (§V-C)',
    kind='simulation',
    kind_detail='simulation',
    needs=('TRF-MICE', 'MET-PATH', 'EXP-MFT', 'TRF-BULK', 'TCP-WMAX', 'SIM-REV'),
    paper_cost='≈ 0.12 G (×2)',
)
