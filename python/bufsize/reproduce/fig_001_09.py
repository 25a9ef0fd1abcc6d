"""001-Fig9: Multi-hop simulation topology (§VII-B)

An illustration (a schematic without data): registered so the catalogue is complete.
"""

from bufsize.reproduce._core import FigureSpec

SPEC = FigureSpec(
    id='fig_001_09',
    paper_id='001-Fig9',
    title='Multi-hop simulation topology (§VII-B)',
    kind='illustration',
    kind_detail='illustration',
    needs=('SIM-TOPO-MH',),
    paper_cost='0',
)
