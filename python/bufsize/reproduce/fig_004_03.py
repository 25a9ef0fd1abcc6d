"""004-Fig3: Schematic evolution of the router buffer for one TCP flow (§2)

An illustration (a schematic without data): registered so the catalogue is complete.
"""

from bufsize.reproduce._core import FigureSpec

SPEC = FigureSpec(
    id='fig_004_03',
    paper_id='004-Fig3',
    title='Schematic evolution of the router buffer for one TCP flow (§2)',
    kind='illustration',
    kind_detail='illustration',
    needs=(),
    paper_cost='0',
)
