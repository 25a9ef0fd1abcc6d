"""004-Fig15: Comparison of the model, ns-2 simulation and experimental results for buffer requirements of a Cisco GSR 12410 OC3 linecard (§5.2.1)

Registered from FIGURES.md; not reproducible yet (see ``SPEC`` and ``bufsize reproduce --list``).
"""

from bufsize.reproduce._core import FigureSpec

SPEC = FigureSpec(
    id='fig_004_15',
    paper_id='004-Fig15',
    title='Comparison of the model, ns-2 simulation and experimental results for buffer requirements of a Cisco GSR 12410 OC3 linecard (§5.2.1)',
    kind='testbed',
    kind_detail='testbed (hardware) + simulation + analytic',
    needs=('TRF-BULK', 'TCP-RENO', 'TCP-NRSACK', 'SIM-Q', 'MET-UTIL', 'TB-ROUTER', 'TB-DELAY'),
    paper_cost='sim 25 M; testbed ≈ 32 min',
)
