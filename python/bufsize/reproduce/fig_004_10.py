"""004-Fig10: Average queue length vs flow length, ρ = 0.8 (§4)

Registered from FIGURES.md; not reproducible yet (see ``SPEC`` and ``bufsize reproduce --list``).
"""

from bufsize.reproduce._core import FigureSpec

SPEC = FigureSpec(
    id='fig_004_10',
    paper_id='004-Fig10',
    title='Average queue length vs flow length, ρ = 0.8 (§4)',
    kind='simulation',
    kind_detail='simulation + overlay',
    needs=('TRF-POISSON-FIXED', 'TCP-IW2', 'SIM-QINF', 'MET-QHIST', 'M-004'),
    paper_cost='≈ 45 M eq',
)
