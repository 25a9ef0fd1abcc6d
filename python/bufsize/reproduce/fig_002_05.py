"""002-Fig5: Link pacing: throughput vs access-link capacity, unmodified TCP (§IV) [caption reconstructed]

Registered from FIGURES.md; not reproducible yet (see ``SPEC`` and ``bufsize reproduce --list``).
"""

from bufsize.reproduce._core import FigureSpec

SPEC = FigureSpec(
    id='fig_002_05',
    paper_id='002-Fig5',
    title='Link pacing: throughput vs access-link capacity, unmodified TCP (§IV) [caption reconstructed]',
    kind='simulation',
    kind_detail='simulation',
    needs=('SIM-ACC', 'TCP-RENO', 'MET-UTIL', 'EXP-SWEEP', 'TRF-BULK'),
    paper_cost='≈ 0.5 G',
)
