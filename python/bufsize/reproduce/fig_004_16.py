"""004-Fig16: Experimental, simulation and model prediction of the queue occupancy of a Cisco GSR 12410 (§5.2.2)

Registered from FIGURES.md; not reproducible yet (see ``SPEC`` and ``bufsize reproduce --list``).
"""

from bufsize.reproduce._core import FigureSpec

SPEC = FigureSpec(
    id='fig_004_16',
    paper_id='004-Fig16',
    title='Experimental, simulation and model prediction of the queue occupancy of a Cisco GSR 12410 (§5.2.2)',
    kind='testbed',
    kind_detail='testbed + overlay (+ sim)',
    needs=('TRF-POISSON-FIXED', 'MET-QHIST', 'M-004'),
    paper_cost='sim small; testbed minutes',
)
