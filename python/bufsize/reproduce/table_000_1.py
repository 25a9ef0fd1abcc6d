"""000-TableI: Simulation parameters (§VI-A)

A configuration table (it states a setup, no data): registered so the catalogue is complete.
"""

from bufsize.reproduce._core import FigureSpec

SPEC = FigureSpec(
    id='table_000_1',
    paper_id='000-TableI',
    title='Simulation parameters (§VI-A)',
    kind='config',
    kind_detail='config (drives sim)',
    needs=('SIM-TOPO-GAMMA', 'TRF-CLOSED', 'EXP-FIT'),
    paper_cost='full 8-row campaign ≈ 0.3 G',
)
