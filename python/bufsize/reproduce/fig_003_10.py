"""003-Fig10: Inequality (1) is satisfied by the aggregate traffic (§VIII)

Registered from FIGURES.md; not reproducible yet (see ``SPEC`` and ``bufsize reproduce --list``).
"""

from bufsize.reproduce._core import FigureSpec

SPEC = FigureSpec(
    id='fig_003_10',
    paper_id='003-Fig10',
    title='Inequality (1) is satisfied by the aggregate traffic (§VIII)',
    kind='testbed',
    kind_detail='testbed',
    needs=('MET-SUMW', 'TB-CWND', 'M-003', 'TCP-RENO', 'TCP-BIC', 'TCP-CUBIC', 'TCP-CTCP', 'TRF-BULK'),
    paper_cost='shared w/ Fig9',
)
