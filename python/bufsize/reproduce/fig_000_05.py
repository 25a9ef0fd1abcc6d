"""000-Fig5: median per-flow throughput vs buffer size, U1000 (§III-B.2).

The T000 campaign (:mod:`bufsize.reproduce._p000_t000`): the median throughput of the small flows
(45–50 KB) and of the large flows (> 1000 KB) in each run, against the buffer. B̂, the optimal
buffer, is the smallest buffer whose median is within 10 % of the curve's largest median (assumed:
the runs are noisy, as the paper's). Figs 6 and 7 are the same for U1200 and U3000. Where the kernel
testbed runs (``--testbed``), the campaign scaled by 1/50 on real Linux TCP is drawn beside it (dashed,
paper-equivalent buffers) with its own (i)/(ii) checks.
"""

from __future__ import annotations

import math

from bufsize.reproduce import _p000_kernel as _pk
from bufsize.reproduce import _p000_t000 as _pt
from bufsize.reproduce._core import FigureOutput, FigureSpec, check_range, check_true
from bufsize.reproduce._setup import Setting

SPEC = FigureSpec(
    id='fig_000_05',
    paper_id='000-Fig5',
    title='Median per-flow throughput vs buffer size, U1000 (§III-B.2)',
    kind='testbed',
    kind_detail='testbed',
    needs=('MET-FLOW', 'EXP-STATS', 'TRF-CLOSED', 'TCP-NRSACK', 'TCP-RENO', 'TRF-RTT', 'SIM-QB', 'MET-UTIL', 'EXP-SWEEP', 'EXP-SEEDS'),
    paper_cost='T000',
    quick_seconds=85.0,
    note="simulator as the testbed's proxy, and with root the kernel testbed scaled 1/50; shares the T000 runs "
         "of both (after fig_000_03 it takes under 1 s)",
)

#: B̂ = the smallest buffer whose median is within this fraction of the largest (assumed)
BHAT_TOL = 0.10
#: "rises": the median at B̂ at least this much above the median at the smallest buffer (assumed)
RISE = 0.10

#: Figs 5–7's settings after the experiment: the T000 campaign, the flow classes, the median and B̂, the kernel route.
SETUP_MEDIANS = (_pt.SETTING_BUFFER_RANGE, _pt.SETTING_BUFFER_GRID) + _pt.SETUP_T000 + _pt.SETUP_T000_RUNS \
    + _pt.SETUP_FLOW_CLASSES + (
        Setting("statistic", "the median per-flow throughput of each class in each run; seeds averaged", "paper",
                "Figures 5-7 show the median per-flow throughput for two groups of flows", "§III-B.2"),
        Setting("optimal buffer B̂", f"the smallest buffer whose median is within {BHAT_TOL:.0%} of the curve's largest",
                "ours", "000: 'The minimum buffer size that leads to the maximum per-flow throughput can be viewed as "
                "the optimal buffer size' (§III-B.2); the tolerance keeps the runs' noise from choosing B̂"),
    ) + _pk.SETUP_KERNEL_T000

SETUP = (
    Setting("experiment", "U1000 (1000 users)", "paper",
            "Median per-flow throughput as a function of the buffer size in the U1000 experiments", "Fig. 5 caption"),
) + SETUP_MEDIANS


def medians(ctx, users: int):
    """Per-buffer medians (mean over seeds) of one experiment, and B̂ of each class."""
    from bufsize.reproduce import _p000_t000 as p

    camp = p.campaign(ctx, users=(users,))
    m = p.per_buffer(camp["runs"])
    bhat = {c: p.optimal_buffer(m.buffer_bytes, m[f"{c}_median_mbps"], BHAT_TOL) for c in ("small", "large")}
    return camp, m, bhat


def _at(m, col: str, b: float) -> float:
    r = m[m.buffer_bytes == b]
    return float(r[col].iloc[0]) if len(r) else math.nan


def flat_cause(m, c: str) -> str:
    """Why a class's median does not rise with B: at the smallest buffer most of its flows lose nothing."""
    from bufsize.reproduce.fig_000_03 import TESTBED

    first = m[m.buffer_bytes == float(m.buffer_bytes.min())].iloc[0]
    loss = f", loss rate {first['loss_rate']:.2%}" if "loss_rate" in first.index else ""
    head = f"at the smallest buffer ({float(first.buffer_bytes) / 1024:.0f} KiB{loss}) "
    if f"{c}_no_drop" not in first.index:   # the kernel runs record no per-transfer losses
        return head + f"the median {c} flow hardly moves with B; {TESTBED}"
    return (head + f"{first[f'{c}_no_drop']:.0%} of the {c} flows lose no packet at all, so the median {c} flow's "
            f"throughput is its RTT class's loss-free slow start and does not move with B; {TESTBED}")


def rise_checks(m, bhat: dict, users: int) -> list:
    from bufsize.reproduce._p000_miss import if_miss

    b0 = float(m.buffer_bytes.min())
    out = []
    for c, label in (("small", "small flows (45–50 KB)"), ("large", "large flows (> 1000 KB)")):
        col = f"{c}_median_mbps"
        ratio = _at(m, col, bhat[c]) / _at(m, col, b0)
        out.append(if_miss(check_range(f"(i) U{users}, {label}: the median rises with B up to B̂ = "
                                       f"{bhat[c] / 1024:.0f} KiB (median at B̂ / median at the smallest B)", None,
                                       ratio, 1 + RISE, math.inf,
                                       why=f"≥ {1 + RISE:g} assumed; B̂ = smallest B within {BHAT_TOL:.0%} of the maximum"),
                           "setup", flat_cause(m, c)))
    out.append(if_miss(check_true(f"(ii) U{users}: B̂(small) < B̂(large) ({bhat['small'] / 1024:.0f} vs "
                                  f"{bhat['large'] / 1024:.0f} KiB)", bhat["small"] < bhat["large"], "strict",
                                  value=bhat["small"] / bhat["large"] if bhat["large"] > 0 else math.nan),
                       "setup", f"B̂ is the smallest buffer within {BHAT_TOL:.0%} of a curve's maximum, and neither "
                                f"curve rises here from {b0 / 1024:.0f} KiB: " + flat_cause(m, "large")))
    return out


def slow_start_mbps(rtt_s: float, size_bytes: float = 47_500) -> float:
    """Loss-free slow-start throughput (eq. (1), handshake included) of a flow of this size, Mb/s."""
    from bufsize.models import prasad as pm
    from bufsize.reproduce import _p000_t000 as p

    return pm.slow_start_throughput(size_bytes, rtt_s, m=p.MSS) * 8 / 1e6


def miss_notes(m, bhat: dict, users: int, ctx=None) -> list[str]:
    """Why a rise check missed, from the runs' own numbers."""
    from bufsize.reproduce import _p000_t000 as p

    out = []
    b0 = float(m.buffer_bytes.min())
    for c in ("small", "large"):
        col = f"{c}_median_mbps"
        ratio = _at(m, col, bhat[c]) / _at(m, col, b0)
        if ratio >= 1 + RISE:
            continue
        first = m[m.buffer_bytes == b0].iloc[0]
        text = (f"U{users}, {c} flows: the median does not rise with B (B̂ = {bhat[c] / 1024:.0f} KiB, median "
                f"{_at(m, col, bhat[c]):.3f} Mb/s; at the smallest buffer {_at(m, col, b0):.3f} Mb/s). At the smallest "
                f"buffer the loss rate is {first.loss_rate:.2%} and {first[f'{c}_no_drop']:.0%} of these flows lose no "
                "packet at all.")
        if c == "small":
            rtts = ", ".join(f"{r} ms: {slow_start_mbps(r / 1e3):.2f}" for r in p.RTTS_MS)
            indep = (1 - first.loss_rate) ** math.ceil(47_500 / p.MSS)
            text += (f" Independent losses at that rate would leave (1 − p)^33 = {indep:.0%} of them loss-free: the "
                     "losses concentrate on fewer flows. With a quarter of the users at each of four RTTs, the median "
                     "small flow sits at a boundary between RTT classes, at a loss-free slow-start value (47.5 KB by "
                     f"base RTT, Mb/s: {rtts}), and moves only when the share of lossy flows pushes it across one.")
            if ctx is not None and users in (1000, 3000):
                for i in (0, len(p.BUFFERS) - 1):
                    text += p.paper_length_text(ctx, users, i, lambda rec: (
                        f"a small-flow median of {rec['small']['median'] / 1e6:.3f} Mb/s with {rec['small_no_drop']:.0%} "
                        "of the small flows loss-free"))
        out.append(text)
    flat_small = _at(m, "small_median_mbps", bhat["small"]) / _at(m, "small_median_mbps", b0) < 1 + RISE
    if flat_small and bhat["small"] < bhat["large"]:
        out.append("(ii) holds here only because the small-flow curve has its maximum already at the smallest buffer "
                   "(see (i)), not because it rises and saturates earlier than the large-flow curve.")
    if not bhat["small"] < bhat["large"]:
        out.append(f"U{users}: B̂(small) = {bhat['small'] / 1024:.0f} KiB is not below B̂(large) = "
                   f"{bhat['large'] / 1024:.0f} KiB.")
    return out


def figure_for(m, bhat: dict, users: int, fig_no: int, kd=None):
    from bufsize.reproduce._plot import figure, finish

    fig, ax = figure()
    if kd is not None:
        from bufsize.reproduce import _p000_kernel as pk

        km = pk.accepted(kd).sort_values("buffer_bytes")
        for c, mk, col in (("small", "o", "C0"), ("large", "s", "C1")):
            ax.plot(km.buffer_kib, km[f"{c}_median_mbps"], mk + "--", ms=4, mfc="none", color=col,
                    label=f"{c}, kernel testbed U{pk.USERS[users]} at {pk.RATE_BPS / 1e6:g} Mb/s (B × {pk.SCALE_DOWN})")
    for c, mk, label in (("small", "o", "small flows (45–50 KB)"), ("large", "s", "large flows (> 1000 KB)")):
        ax.plot(m.buffer_bytes / 1024, m[f"{c}_median_mbps"], mk + "-", ms=4, label=label)
        if math.isfinite(bhat[c]):
            ax.axvline(bhat[c] / 1024, ls=":", lw=1, color="C0" if c == "small" else "C1",
                       label=f"B̂ ({c}) = {bhat[c] / 1024:.0f} KiB")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("router buffer size B (KiB), log scale")
    ax.set_ylabel("median per-flow throughput (Mb/s), log scale")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8)
    return finish(fig, f"000 Fig. {fig_no}: median per-flow throughput, U{users} (simulator"
                  + ("; dashed: kernel testbed)" if kd is not None else ")"))


#: fewest flows of a class in every kernel run for its medians to be judged
MIN_FLOWS = 5


def kernel_part(ctx, users: int):
    """The scaled kernel campaign for one experiment: (rows or None, checks, notes)."""
    from dataclasses import replace

    from bufsize.reproduce import _kernel
    from bufsize.reproduce import _p000_kernel as pk
    from bufsize.reproduce import _p000_miss as pm
    from bufsize.reproduce import _p000_t000 as p

    lab = pk.label(users)
    claims = [f"{lab} (i) U{users}, small flows (45–50 KB): the median rises with B up to B̂",
              f"{lab} (i) U{users}, large flows (> 1000 KB): the median rises with B up to B̂",
              f"{lab} (ii) U{users}: B̂(small) < B̂(large)"]
    kd = pk.t000(ctx, users=(users,))
    if kd is None:
        return None, pm.kernel_not_measured(claims, _kernel.skip_reason(ctx)), []
    km = pk.accepted(kd).sort_values("buffer_bytes").reset_index(drop=True)
    notes = [_kernel.accepted_text(kd.attrs["records"]) + f" Kernel flows per run: {km.small_n.mean():.0f} small, "
             f"{km.large_n.mean():.1f} large; medians (Mb/s) by paper-equivalent buffer: " + ", ".join(
                 f"{b:.0f} KiB small {a:.3f} / large {c:.3f}" for b, a, c in
                 zip(km.buffer_kib, km.small_median_mbps, km.large_median_mbps)) + "."]
    few = [c for c in ("small", "large") if len(km) < 2 or int(km[f"{c}_n"].min()) < MIN_FLOWS]
    if few:
        reason = (f"fewer than {MIN_FLOWS} {' and '.join(few)} flows finished in some kernel run (short runs, "
                  f"U{pk.USERS[users]} users)")
        out = [c for c in claims if not any(f in c for f in few) and "(ii)" not in c]
        checks = pm.kernel_not_measured([c for c in claims if c not in out], reason)
        if "small" not in few:
            bh = {"small": p.optimal_buffer(km.buffer_bytes, km.small_median_mbps, BHAT_TOL), "large": math.nan}
            checks = pm.kernel_scaled([replace(rise_checks(km, bh, users)[0], claim=claims[0])]) + checks
        return kd, checks, notes + kernel_miss_notes(km, checks, users)
    bhat = {c: p.optimal_buffer(km.buffer_bytes, km[f"{c}_median_mbps"], BHAT_TOL) for c in ("small", "large")}
    checks = pm.kernel_scaled([replace(c, claim=f"{lab} {c.claim}") for c in rise_checks(km, bhat, users)])
    return kd, checks, notes + kernel_miss_notes(km, checks, users)


def kernel_miss_notes(km, checks, users: int) -> list[str]:
    """Why a kernel (i) check missed, from the runs' loss and utilization."""
    from bufsize.reproduce import _p000_kernel as pk

    if all(c.passed or c.ours is None for c in checks if "(i)" in c.claim):
        return []
    return [f"{pk.label(users)} the small-flow median does not rise by {RISE:.0%}: loss by buffer "
            + ", ".join(f"{b:.0f} KiB {l:.1%}" for b, l in zip(km.buffer_kib, km.loss_rate))
            + ", utilization " + ", ".join(f"{u:.2f}" for u in km.utilization)
            + ", small-flow median (Mb/s) " + ", ".join(f"{m:.2f}" for m in km.small_median_mbps)
            + ". The same check misses on the simulator at U1000, where the median small flow is loss-free and "
            "moves only with its RTT class (note above); the kernel runs do not record per-transfer losses, so "
            "that reason is not measured here."]


def output(ctx, users: int, fig_no: int, checks_extra=None, notes_extra=None, inputs_extra=None) -> FigureOutput:
    from bufsize.reproduce import _p000_kernel as pk
    from bufsize.reproduce import _p000_t000 as p

    camp, m, bhat = medians(ctx, users)
    kd, kchecks, knotes = kernel_part(ctx, users)
    checks = rise_checks(m, bhat, users) + list(checks_extra or []) + kchecks
    cols = ["users", "buffer_bytes", "buffer_kib", "small_median_mbps", "small_n", "large_median_mbps", "large_n",
            "utilization", "loss_rate", "queue_delay_mean_ms", "rtt_harmonic_ms"]
    notes = [f"Flows per run (mean over seeds): {m.small_n.mean():.0f} small, {m.large_n.mean():.0f} large; "
             "the large-flow medians are the noisier."] + miss_notes(m, bhat, users, ctx) + list(notes_extra or []) + knotes
    extra = {"runs": camp["runs"]}
    if kd is not None:
        extra["kernel"] = kd
    return FigureOutput(
        data=m[cols], checks=checks, figure=figure_for(m, bhat, users, fig_no, kd), extra_tables=extra,
        inputs={"scenario_template": camp["template"].to_dict(), "users": users,
                "buffers_bytes": [p.BUFFERS[i] for i in camp["buffers"]], "seeds": list(camp["config"]["seeds"]),
                "duration_s": camp["config"]["duration"], "warmup_s": camp["config"]["warmup"],
                "small_bytes": list(p.SMALL), "large_above_bytes": p.LARGE, "bhat_tolerance": BHAT_TOL,
                "bhat_kib": {c: b / 1024 for c, b in bhat.items()}, **(inputs_extra or {})},
        deviations=p.deviations(ctx) + [pk.deviation(ctx)], notes=notes)


def run(ctx) -> FigureOutput:
    return output(ctx, 1000, 5)
