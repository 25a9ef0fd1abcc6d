"""000-Fig6: median per-flow throughput vs buffer size, U1200 (§III-B.2).

As Fig 5 (:mod:`bufsize.reproduce.fig_000_05`) for U1200; the paper says U1200 gives results
similar to U1000, tested here as B̂ of each class within a factor 2.5 of U1000's (assumed: about
two steps of the 20-point grid, one of the quick grid).
"""

from __future__ import annotations

from bufsize.reproduce._core import FigureOutput, FigureSpec, check_range
from bufsize.reproduce._setup import Setting
from bufsize.reproduce.fig_000_05 import SETUP_MEDIANS

SPEC = FigureSpec(
    id='fig_000_06',
    paper_id='000-Fig6',
    title='Median per-flow throughput vs buffer size, U1200 (§III-B.2)',
    kind='testbed',
    kind_detail='testbed',
    needs=('MET-FLOW', 'EXP-STATS', 'TRF-CLOSED', 'TCP-NRSACK', 'TCP-RENO', 'TRF-RTT', 'SIM-QB', 'MET-UTIL', 'EXP-SWEEP', 'EXP-SEEDS'),
    paper_cost='T000',
    quick_seconds=100.0,
    note="simulator as the testbed's proxy, and with root the kernel testbed scaled 1/50; shares the T000 runs "
         "of both (after fig_000_03 it takes under 1 s)",
)

SIMILAR = 2.5

SETUP = (
    Setting("experiment", "U1200 (1200 users)", "paper",
            "Median per-flow throughput as a function of the buffer size in the U1200 experiments", "Fig. 6 caption"),
    Setting("comparison", "U1000's runs (fig_000_05) for 'similar results'", "paper",
            "The experiment U1200 gives similar results", "§III-B.2"),
) + SETUP_MEDIANS


def run(ctx) -> FigureOutput:
    from bufsize.reproduce.fig_000_05 import medians, output

    from bufsize.reproduce._p000_miss import if_miss
    from bufsize.reproduce.fig_000_03 import TESTBED

    camp, m1000, b1000 = medians(ctx, 1000)
    _, m1200, b1200 = medians(ctx, 1200)
    cfg = camp["config"]

    def scatter(c):
        return (f"B̂ is the smallest buffer within 10 % of a curve's largest median, and our runs have "
                f"{m1000[f'{c}_n'].mean():.0f} (U1000) and {m1200[f'{c}_n'].mean():.0f} (U1200) {c} flows per run "
                f"({len(cfg['seeds'])} seed(s), {cfg['duration'] - cfg['warmup']:g} s measured): the plateau's "
                f"run-to-run scatter is comparable with that 10 %, so B̂ of a flat-topped curve moves by several grid "
                f"steps; {TESTBED}")

    extra = [if_miss(check_range(f"U1200 is similar to U1000: B̂({c}) of U1200 / B̂({c}) of U1000 "
                                 f"({b1200[c] / 1024:.0f} vs {b1000[c] / 1024:.0f} KiB)", 1.0, b1200[c] / b1000[c],
                                 1 / SIMILAR, SIMILAR, why=f"within ×{SIMILAR:g} assumed"), "setup", scatter(c))
             for c in ("small", "large")]
    from bufsize.reproduce.fig_000_05 import medians as _m

    notes = []
    for c in ("small", "large"):
        ratio = b1200[c] / b1000[c]
        if not (1 / SIMILAR <= ratio <= SIMILAR):
            m1, m2 = _m(ctx, 1000)[1], _m(ctx, 1200)[1]
            col = f"{c}_median_mbps"
            notes.append(f"B̂({c}) differs by ×{ratio:.2f} between U1200 and U1000. The {c}-flow medians (Mb/s) by "
                         "buffer, U1000: " + ", ".join(f"{v:.2f}" for v in m1.sort_values("buffer_bytes")[col])
                         + "; U1200: " + ", ".join(f"{v:.2f}" for v in m2.sort_values("buffer_bytes")[col])
                         + f". With a few hundred {c} flows per run, the plateau's run-to-run scatter is comparable with "
                         "the 10 % that defines B̂, so B̂ of a flat-topped curve moves by several grid steps.")
    return output(ctx, 1200, 6, checks_extra=extra, notes_extra=notes,
                  inputs_extra={"bhat_u1000_kib": {c: b / 1024 for c, b in b1000.items()}})
