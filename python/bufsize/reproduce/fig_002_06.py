"""002-Fig6: Constant vs logarithmic buffers (§IV-A)

Registered from FIGURES.md; not reproducible yet (see ``SPEC`` and ``bufsize reproduce --list``).
"""

from bufsize.reproduce._core import FigureSpec

SPEC = FigureSpec(
    id='fig_002_06',
    paper_id='002-Fig6',
    title='Constant vs logarithmic buffers (§IV-A)',
    kind='simulation',
    kind_detail='simulation',
    needs=('TCP-PACED', 'EXP-SWEEP', 'TCP-WMAX', 'TRF-BULK', 'MET-UTIL'),
    paper_cost='≈ 0.4 G',
)
