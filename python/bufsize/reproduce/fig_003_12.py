"""003-Fig12: Inequality (10) is satisfied by the aggregate traffic and the router buffer (§VIII)

Registered from FIGURES.md; not reproducible yet (see ``SPEC`` and ``bufsize reproduce --list``).
"""

from bufsize.reproduce._core import FigureSpec

SPEC = FigureSpec(
    id='fig_003_12',
    paper_id='003-Fig12',
    title='Inequality (10) is satisfied by the aggregate traffic and the router buffer (§VIII)',
    kind='testbed',
    kind_detail='testbed',
    needs=('MET-SUMW', 'M-003', 'TCP-RENO', 'TCP-BIC', 'TCP-CUBIC', 'TCP-CTCP', 'TRF-BULK'),
    paper_cost='shared w/ Fig11',
)
