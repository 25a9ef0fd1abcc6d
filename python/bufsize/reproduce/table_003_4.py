"""003-TableIV: Netem parameters (§VIII)

A configuration table (it states the testbed's setup: an OC-12 link and three RTTs). ``run``
prints it with both BDP readings, as FIGURES.md asks ("reproduce with the RTTs; report both
BDPs"): the printed column and 622 Mb/s × RTT, and checks the [D] note: the products are 2.18 /
5.21 / 7.00 MB (decimal), the printed 2.3 / 5.5 / 18 MB do not follow from them; the first two
imply ≈ 657 Mb/s, and 18 MB would need an RTT of ≈ 220–230 ms.
"""

from __future__ import annotations

from bufsize.reproduce._core import FigureOutput, FigureSpec, check_abs, check_rel
from bufsize.reproduce._setup import Setting

SPEC = FigureSpec(
    id='table_003_4',
    paper_id='003-TableIV',
    title='Netem parameters (§VIII)',
    kind='config',
    kind_detail='config (testbed); both BDP readings computed',
    needs=(),
    paper_cost='0',
    quick_seconds=0.5,
)

RATE_BPS = 622e6
#: (RTT s, printed BDP MB) of the three rows
ROWS = ((0.028, 2.3), (0.067, 5.5), (0.090, 18.0))
COMPUTED = (2.18, 5.21, 7.00)   # FIGURES.md's [D] values (MB, decimal)

SETUP = (
    Setting("link", "OC-12, 622 Mb/s", "paper", "Link OC-12 (622Mbps)", "Table IV"),
    Setting("RTTs", "28, 67, 90 ms (BDP1, BDP2, BDP3)", "paper",
            "28ms 2.3 MBytes (BDP1) … 67ms 5.5 MBytes (BDP2) … 90ms 18 MBytes (BDP3)", "Table IV"),
    Setting("printed BDPs", "2.3, 5.5, 18 MB", "paper",
            "28ms 2.3 MBytes (BDP1) … 67ms 5.5 MBytes (BDP2) … 90ms 18 MBytes (BDP3)", "Table IV"),
    Setting("computed BDPs", "622 Mb/s × RTT: 2.18, 5.21, 7.00 MB", "figures",
            "FIGURES.md [D]: '622 Mb/s × RTT = 2.18 / 5.21 / 7.00 MB'; 'Reproduce with the RTTs; report both BDPs'"),
    Setting("megabyte", "10⁶ bytes", "figures",
            "FIGURES.md's 2.18 / 5.21 / 7.00 MB are decimal megabytes; binary ones (2.08 MiB for BDP1) would not "
            "bring the printed values closer"),
)


def printed_bdp_check(r: dict):
    """One printed BDP of Table IV against its own row's rate × RTT; a miss is the paper's inconsistency."""
    c = check_abs(f"Table IV prints {r['bdp']} = {r['printed_mb']:g} MB for 622 Mb/s × {r['rtt_s'] * 1e3:g} ms",
                  r["printed_mb"], r["rate_x_rtt_mb"], 0.05 if r["printed_mb"] < 10 else 0.5, unit=" MB",
                  why="½ unit of the printed digit; a miss is FIGURES.md's [D]")
    if not c.passed:
        c.because("paper", f"Table IV's own row gives the link as 622 Mb/s (OC-12) and the RTT as "
                  f"{r['rtt_s'] * 1e3:g} ms, whose product is {r['rate_x_rtt_mb']:.2f} MB, not the printed "
                  f"{r['printed_mb']:g} MB (that would need {r['rate_implied_by_printed_mbps']:.0f} Mb/s or an RTT of "
                  f"{r['rtt_implied_by_printed_ms']:.0f} ms)")
    return c


def run(ctx) -> FigureOutput:
    import pandas as pd

    from bufsize.reproduce._plot import table_figure

    rows = []
    for i, (rtt, printed) in enumerate(ROWS, 1):
        mb = RATE_BPS * rtt / 8 / 1e6
        rows.append({"bdp": f"BDP{i}", "rtt_s": rtt, "printed_mb": printed, "rate_x_rtt_mb": mb,
                     "printed_over_computed": printed / mb, "rate_implied_by_printed_mbps": printed * 8e6 / rtt / 1e6,
                     "rtt_implied_by_printed_ms": printed * 8e6 / RATE_BPS * 1e3})
    df = pd.DataFrame(rows)
    checks = []
    for r, want in zip(rows, COMPUTED):
        checks.append(check_abs(f"[D] 622 Mb/s × {r['rtt_s'] * 1e3:g} ms = {want:.2f} MB (FIGURES.md)", want,
                                r["rate_x_rtt_mb"], 0.005, unit=" MB", why="½ unit of the last digit"))
    for r in rows:
        checks.append(printed_bdp_check(r))
    for r in rows[:2]:
        checks.append(check_rel(f"[D] the printed {r['bdp']} implies ≈ 657 Mb/s", 657, r["rate_implied_by_printed_mbps"],
                                0.05 / r["printed_mb"], why=f"the printed {r['printed_mb']:g} MB is ±0.05 MB"))
    checks.append(check_rel("[D] the printed 18 MB would need an RTT of ≈ 220–230 ms", 230,
                            rows[2]["rtt_implied_by_printed_ms"], 0.5 / 18, why="the printed 18 MB is ±0.5 MB"))
    misses = [r for r in rows if abs(r["printed_mb"] - r["rate_x_rtt_mb"]) > (0.05 if r["printed_mb"] < 10 else 0.5)]
    notes = ["Both BDP readings: " + "; ".join(
        f"{r['bdp']} ({r['rtt_s'] * 1e3:g} ms) printed {r['printed_mb']:g} MB, 622 Mb/s × RTT {r['rate_x_rtt_mb']:.2f} MB "
        f"(printed / computed {r['printed_over_computed']:.2f})" for r in rows) + "."]
    if misses:
        notes.append("The printed BDPs do not follow from the printed rate and RTTs (" + ", ".join(
            f"{r['bdp']}: {r['printed_mb']:g} vs {r['rate_x_rtt_mb']:.2f} MB" for r in misses) + "): these misses are "
            "FIGURES.md's [D], a discrepancy inside the paper, not of the reproduction. BDP1 and BDP2 are consistent "
            "with a rate of ≈ 657 Mb/s (or binary megabytes: 2.18 MB = 2.08 MiB, which does not help); BDP3 = 18 MB "
            "matches no rate near 622 Mb/s at 90 ms and would need ≈ 231 ms. The project's 003 testbed items use "
            "622 Mb/s × RTT.")
    fig = table_figure(["link", "RTT", "BDP printed", "622 Mb/s × RTT", "printed / computed"],
                       [["OC-12 (622 Mb/s)", f"{r['rtt_s'] * 1e3:g} ms", f"{r['printed_mb']:g} MB ({r['bdp']})",
                         f"{r['rate_x_rtt_mb']:.2f} MB", f"{r['printed_over_computed']:.2f}"] for r in rows],
                       "003 Table IV: netem parameters, both BDP readings", width=8.0)
    return FigureOutput(data=df, checks=checks, figure=fig, notes=notes,
                        inputs={"rate_bps": RATE_BPS, "rows": [{"rtt_s": a, "printed_bdp_mb": b} for a, b in ROWS],
                                "megabyte": "10^6 bytes"})
