"""000-Fig18: TCP throughput for the S- and L-model with the EX-form loss (BDP = 500 packets) (§VII-B.3)

Registered from FIGURES.md; not reproducible yet (see ``SPEC`` and ``bufsize reproduce --list``).
"""

from bufsize.reproduce._core import FigureSpec

SPEC = FigureSpec(
    id='fig_000_18',
    paper_id='000-Fig18',
    title='TCP throughput for the S- and L-model with the EX-form loss (BDP = 500 packets) (§VII-B.3)',
    kind='analytic',
    kind_detail='analytic (sim-fitted a,b,f)',
    needs=('M-000', 'SIM-TOPO-GAMMA', 'TRF-CLOSED', 'TCP-RENO', 'MET-LOSS', 'MET-QDELAY', 'EXP-SWEEP', 'EXP-FIT'),
    paper_cost='needs 1 sim sweep, 80 M',
)
