"""002-Fig8: Dynamics of the congestion window (Appendix I)

An illustration (a schematic without data): registered so the catalogue is complete.
"""

from bufsize.reproduce._core import FigureSpec

SPEC = FigureSpec(
    id='fig_002_08',
    paper_id='002-Fig8',
    title='Dynamics of the congestion window (Appendix I)',
    kind='illustration',
    kind_detail='illustration',
    needs=(),
    paper_cost='0',
)
