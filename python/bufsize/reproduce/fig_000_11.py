"""000-Fig11: Average throughput vs buffer size, M/M/1/B heavy-load losses and delays (§V)

Registered from FIGURES.md; not reproducible yet (see ``SPEC`` and ``bufsize reproduce --list``).
"""

from bufsize.reproduce._core import FigureSpec

SPEC = FigureSpec(
    id='fig_000_11',
    paper_id='000-Fig11',
    title='Average throughput vs buffer size, M/M/1/B heavy-load losses and delays (§V)',
    kind='analytic',
    kind_detail='analytic',
    needs=('M-000',),
    paper_cost='~0',
)
