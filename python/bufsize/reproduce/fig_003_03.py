"""003-Fig3: Congestion-window evolution of Reno (§IV-A)

An illustration (a schematic without data): registered so the catalogue is complete.
"""

from bufsize.reproduce._core import FigureSpec

SPEC = FigureSpec(
    id='fig_003_03',
    paper_id='003-Fig3',
    title='Congestion-window evolution of Reno (§IV-A)',
    kind='illustration',
    kind_detail='illustration',
    needs=(),
    paper_cost='0',
)
