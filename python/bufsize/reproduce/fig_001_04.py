"""001-Fig4: Cross traffic: buffer-limited persistent TCP transfers (§V-B)

Registered from FIGURES.md; not reproducible yet (see ``SPEC`` and ``bufsize reproduce --list``).
"""

from bufsize.reproduce._core import FigureSpec

SPEC = FigureSpec(
    id='fig_001_04',
    paper_id='001-Fig4',
    title='Cross traffic: buffer-limited persistent TCP transfers (§V-B)',
    kind='simulation',
    kind_detail='simulation',
    needs=('TRF-WINLIM', 'M-001', 'EXP-MFT', 'TRF-BULK', 'TCP-WMAX', 'SIM-REV', 'MET-PATH'),
    paper_cost='≈ 0.12 G',
)
