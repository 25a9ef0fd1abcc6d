"""000-Fig7: median per-flow throughput vs buffer size, U3000 (§III-B.2).

As Fig 5 (:mod:`bufsize.reproduce.fig_000_05`) for U3000, plus the two claims only the saturated
experiment shows: B̂ grows with the load (U3000 against U1000, per class), and the small flows'
median peaks at B̂ and then falls as the buffer grows.
"""

from __future__ import annotations

import math

from bufsize.reproduce._core import FigureOutput, FigureSpec, check_range, check_true
from bufsize.reproduce._setup import Setting
from bufsize.reproduce.fig_000_05 import SETUP_MEDIANS

SPEC = FigureSpec(
    id='fig_000_07',
    paper_id='000-Fig7',
    title='Median per-flow throughput vs buffer size, U3000 (§III-B.2)',
    kind='testbed',
    kind_detail='testbed',
    needs=('MET-FLOW', 'EXP-STATS', 'TRF-CLOSED', 'TCP-NRSACK', 'TCP-RENO', 'TRF-RTT', 'SIM-QB', 'MET-UTIL', 'EXP-SWEEP', 'EXP-SEEDS'),
    paper_cost='T000',
    quick_seconds=120.0,
    note="simulator as the testbed's proxy, and with root the kernel testbed scaled 1/50; shares the T000 runs "
         "of both (after fig_000_03 it takes under 1 s)",
)

#: "falls to a lower value": the median at the largest buffer at least this much below the peak (assumed)
DROP = 0.10

SETUP = (
    Setting("experiment", "U3000 (3000 users)", "paper",
            "Median per-flow throughput as a function of the buffer size in the U3000 experiments", "Fig. 7 caption"),
    Setting("comparison", "U1000's runs (fig_000_05) for B̂ growing with the load; on the kernel testbed U20 against "
            "U60", "paper", "the optimal buffer size for each flow type increases as the load increases", "§III-B.2"),
) + SETUP_MEDIANS


def run(ctx) -> FigureOutput:
    from bufsize.reproduce.fig_000_05 import medians, output

    _, _, b1000 = medians(ctx, 1000)
    _, m, b3000 = medians(ctx, 3000)
    from bufsize.reproduce._p000_miss import if_miss
    from bufsize.reproduce.fig_000_05 import flat_cause

    m1000 = medians(ctx, 1000)[1]
    extra = [if_miss(check_true(f"(iii) B̂({c}) grows with the load: U3000 {b3000[c] / 1024:.0f} KiB > U1000 "
                                f"{b1000[c] / 1024:.0f} KiB", b3000[c] > b1000[c], "strict",
                                value=b3000[c] / b1000[c]),
                     "setup", "B̂ is the smallest buffer within 10 % of a curve's maximum; U1000: " + flat_cause(m1000, c)
                     + ". U3000: " + flat_cause(m, c)) for c in ("small", "large")]
    peak = float(m.small_median_mbps.max())
    last = float(m.sort_values("buffer_bytes").small_median_mbps.iloc[-1])
    peak_b = float(m.buffer_bytes[m.small_median_mbps.idxmax()])
    extra.append(if_miss(check_range(f"(iv) U3000: the small flows' median peaks (at {peak_b / 1024:.0f} KiB) and then "
                                     "falls to a lower value (median at the largest B / peak median)", None,
                                     last / peak if peak > 0 else math.nan, 0.0, 1 - DROP,
                                     why=f"≤ {1 - DROP:g} assumed"), "setup", flat_cause(m, "small")))
    notes = []
    for c in ("small", "large"):
        if not b3000[c] > b1000[c]:
            notes.append(f"(iii) {c} flows: B̂ is {b3000[c] / 1024:.0f} KiB in U3000 and {b1000[c] / 1024:.0f} KiB in "
                         "U1000; B̂ is the smallest buffer within 10 % of the curve's maximum, so a curve that starts at "
                         "its maximum (see (i)) has B̂ at the smallest buffer.")
    if not last / peak <= 1 - DROP:
        notes.append(f"(iv) the small flows' median at the largest buffer is {last / peak:.2f}× the peak.")
    kc, kn = kernel_extra(ctx)
    return output(ctx, 3000, 7, checks_extra=extra + kc, notes_extra=notes + kn,
                  inputs_extra={"bhat_u1000_kib": {c: b / 1024 for c, b in b1000.items()}})


def kernel_extra(ctx):
    """(iii) for the small flows and (iv) on the kernel testbed's scaled campaign (U20 and U60)."""
    from bufsize.reproduce import _kernel
    from bufsize.reproduce import _p000_kernel as pk
    from bufsize.reproduce import _p000_miss as pm
    from bufsize.reproduce import _p000_t000 as p
    from bufsize.reproduce.fig_000_05 import BHAT_TOL, MIN_FLOWS

    claims = [f"{pk.label(3000)} (iv) U3000: the small flows' median peaks and then falls to a lower value (median at "
              "the largest B / peak median)",
              f"{pk.label(3000)} (iii) B̂(small) grows with the load: U{pk.USERS[3000]} above U{pk.USERS[1000]} "
              "(paper-equivalent KiB, ratio)"]
    kd = pk.t000(ctx, users=(1000, 3000))
    if kd is None:
        return pm.kernel_not_measured(claims, _kernel.skip_reason(ctx)), []
    ok = pk.accepted(kd).sort_values("buffer_bytes")
    k3, k1 = ok[ok.users == 3000], ok[ok.users == 1000]
    if min(len(k3), len(k1)) < 2 or int(min(k3.small_n.min(), k1.small_n.min())) < MIN_FLOWS:
        return pm.kernel_not_measured(claims, f"fewer than {MIN_FLOWS} small flows in some kernel run"), []
    peak = float(k3.small_median_mbps.max())
    last = float(k3.small_median_mbps.iloc[-1])
    b3 = p.optimal_buffer(k3.buffer_bytes, k3.small_median_mbps, BHAT_TOL)
    b1 = p.optimal_buffer(k1.buffer_bytes, k1.small_median_mbps, BHAT_TOL)
    checks = [check_range(claims[0], None, last / peak if peak > 0 else math.nan, 0.0, 1 - DROP,
                          why=f"≤ {1 - DROP:g} assumed"),
              check_true(claims[1] + f": {b3 / 1024:.0f} vs {b1 / 1024:.0f} KiB", b3 > b1, "strict", value=b3 / b1)]
    checks = pm.kernel_scaled(checks)
    notes = []
    if not b3 > b1:
        notes.append(f"{pk.label(3000)} (iii): B̂(small) is {b3 / 1024:.0f} KiB at U{pk.USERS[3000]} and {b1 / 1024:.0f} "
                     f"KiB at U{pk.USERS[1000]} on the kernel grid's three sizes; a curve whose maximum is at its "
                     "smallest buffer has B̂ there.")
    if not last / peak <= 1 - DROP:
        notes.append(f"{pk.label(3000)} (iv): the small flows' median at the largest buffer is {last / peak:.2f}× the peak.")
    return checks, notes
