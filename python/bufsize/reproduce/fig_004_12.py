"""004-Fig12: Minimum buffer that keeps the average flow completion time ≤ 12.5 % above the infinite-buffer AFCT, short flows (§5.1.2)

Registered from FIGURES.md; not reproducible yet (see ``SPEC`` and ``bufsize reproduce --list``).
"""

from bufsize.reproduce._core import FigureSpec

SPEC = FigureSpec(
    id='fig_004_12',
    paper_id='004-Fig12',
    title='Minimum buffer that keeps the average flow completion time ≤ 12.5 % above the infinite-buffer AFCT, short flows (§5.1.2)',
    kind='simulation',
    kind_detail='simulation + overlay',
    needs=('TRF-POISSON-FIXED', 'SIM-QINF', 'MET-AFCT', 'EXP-MINB', 'M-004'),
    paper_cost='≈ 0.5 G eq',
)
