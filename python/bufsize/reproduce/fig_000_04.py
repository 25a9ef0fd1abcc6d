"""000-Fig4: Fraction of time under heavy load vs averaging time scale (§III-B.1)

Registered from FIGURES.md; not reproducible yet (see ``SPEC`` and ``bufsize reproduce --list``).
"""

from bufsize.reproduce._core import FigureSpec

SPEC = FigureSpec(
    id='fig_000_04',
    paper_id='000-Fig4',
    title='Fraction of time under heavy load vs averaging time scale (§III-B.1)',
    kind='testbed',
    kind_detail='testbed',
    needs=('TRF-CLOSED', 'MET-UTIL-TS', 'TCP-NRSACK', 'SIM-QB'),
    paper_cost='1 run, 17 M',
)
