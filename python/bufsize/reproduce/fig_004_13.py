"""004-Fig13: Buffer requirements for a traffic mix with different flow lengths (§5.1.3)

Registered from FIGURES.md; not reproducible yet (see ``SPEC`` and ``bufsize reproduce --list``).
"""

from bufsize.reproduce._core import FigureSpec

SPEC = FigureSpec(
    id='fig_004_13',
    paper_id='004-Fig13',
    title='Buffer requirements for a traffic mix with different flow lengths (§5.1.3)',
    kind='simulation',
    kind_detail='simulation',
    needs=('TRF-BULK', 'TRF-POISSON-FIXED', 'EXP-MINB', 'MET-UTIL', 'MET-SYNC'),
    paper_cost='≈ 0.35 G eq',
)
