"""001-Fig2: Simple simulation topology (§V)

An illustration (a schematic without data): registered so the catalogue is complete.
"""

from bufsize.reproduce._core import FigureSpec

SPEC = FigureSpec(
    id='fig_001_02',
    paper_id='001-Fig2',
    title='Simple simulation topology (§V)',
    kind='illustration',
    kind_detail='illustration',
    needs=('SIM-TOPO-DB', 'SIM-REV'),
    paper_cost='0',
)
