"""004-Fig9: Σ Wi(t) of all flows and the queue Q offset by 10 500 packets (§3.2)

Registered from FIGURES.md; not reproducible yet (see ``SPEC`` and ``bufsize reproduce --list``).
"""

from bufsize.reproduce._core import FigureSpec

SPEC = FigureSpec(
    id='fig_004_09',
    paper_id='004-Fig9',
    title='Σ Wi(t) of all flows and the queue Q offset by 10 500 packets (§3.2)',
    kind='simulation',
    kind_detail='simulation',
    needs=('MET-SUMW', 'TRF-BULK', 'TCP-RENO', 'MET-QHIST', 'TRF-RTT', 'SIM-Q'),
    paper_cost='shared w/ Fig8',
)
