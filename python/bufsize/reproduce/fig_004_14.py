"""004-Fig14: Average flow completion time with B = RTT·C/√n vs B = RTT·C (§5.1.3)

Registered from FIGURES.md; not reproducible yet (see ``SPEC`` and ``bufsize reproduce --list``).
"""

from bufsize.reproduce._core import FigureSpec

SPEC = FigureSpec(
    id='fig_004_14',
    paper_id='004-Fig14',
    title='Average flow completion time with B = RTT·C/√n vs B = RTT·C (§5.1.3)',
    kind='simulation',
    kind_detail='simulation',
    needs=('MET-AFCT', 'TRF-BULK', 'TRF-POISSON-FIXED', 'SIM-Q', 'EXP-SWEEP'),
    paper_cost='≈ 60 M eq',
)
