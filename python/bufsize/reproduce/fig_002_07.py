"""002-Fig7: Topology (Appendix I)

An illustration (a schematic without data): registered so the catalogue is complete.
"""

from bufsize.reproduce._core import FigureSpec

SPEC = FigureSpec(
    id='fig_002_07',
    paper_id='002-Fig7',
    title='Topology (Appendix I)',
    kind='illustration',
    kind_detail='illustration',
    needs=('SIM-TOPO-DB',),
    paper_cost='0',
)
