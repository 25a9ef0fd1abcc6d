"""000-Fig17: TCP throughput for the S- and L-model with the PL-form loss (BDP = 250 packets) (§VII-A.3)

Registered from FIGURES.md; not reproducible yet (see ``SPEC`` and ``bufsize reproduce --list``).
"""

from bufsize.reproduce._core import FigureSpec

SPEC = FigureSpec(
    id='fig_000_17',
    paper_id='000-Fig17',
    title='TCP throughput for the S- and L-model with the PL-form loss (BDP = 250 packets) (§VII-A.3)',
    kind='analytic',
    kind_detail='analytic (sim-fitted a,b,f)',
    needs=('M-000', 'EXP-FIT', 'SIM-TOPO-GAMMA', 'TRF-CLOSED', 'TCP-RENO', 'SIM-Q', 'MET-LOSS', 'EXP-SWEEP', 'MET-QDELAY'),
    paper_cost='needs Fig13/14 fit',
)
