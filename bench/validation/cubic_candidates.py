"""Candidate Linux behaviours for the testbed twin: their effect at the tiny-buffer settings and the grid.

Runs the engine only (no kernel): the twin of each tiny setting (``tiny.config(setting, 15360, seed)``,
seeds 1-3) and the twin column of the Reno/CUBIC grid points of docs/validation.md, once per variant
(a set of TCP options merged into the twin's ``tcp`` table), and prints utilization and loss (%) per
setting next to Linux's mean. Usage: ``python bench/validation/cubic_candidates.py [VARIANT ...]``.
Results and what they mean: bench/validation/cubic_candidates.md.
"""
from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import run  # noqa: E402  (bench/validation/run.py)
import tiny  # noqa: E402

VARIANTS: dict[str, dict] = {
    "dupack": {},
    "rack": {"loss_detection": "rack"},
    "rack+int": {"loss_detection": "rack", "cubic_integer": True},
    "rack+prr": {"loss_detection": "rack", "prr_linux": True},
    "rack+int+prr": {"loss_detection": "rack", "cubic_integer": True, "prr_linux": True},
    "dupack+int": {"cubic_integer": True},
}
GRID = [p for p in run.grid() if p["kind"] in ("reno", "cubic") and p["buffer_bdp"] <= 0.25]


def kernel_means() -> dict[str, float]:
    rows = tiny.read(HERE / "tiny_kernel.csv")
    out: dict[str, list[float]] = {}
    for r in rows.values():
        if r["bucket"] == "15360" and r["status"] == "ok":
            out.setdefault(r["point"], []).append(float(r["utilization"]))
    k = {p: statistics.mean(v) for p, v in out.items()}
    for r in run.read_csv(HERE / "kernel.csv").values():
        if r.get("status") == "ok":
            k[r["point"]] = float(r["utilization"])
    return k


def tiny_runs(opts: dict) -> dict[str, tuple[float, float, float]]:
    import bufsize
    from bufsize.scenario import Scenario
    from bufsize.testbed.compare import simulator_twin

    out = {}
    for st in tiny.SETTINGS:
        u, loss, to = [], [], []
        for seed in tiny.ENGINE_SEEDS:
            d = simulator_twin(tiny.config(st, 15_360, seed)).to_dict()
            d["dumbbell"]["tcp"].update(opts)
            s = bufsize.simulate(Scenario(d), progress=False).summary
            u.append(s["utilization"]), loss.append(s["loss_rate"]), to.append(float(s.get("timeouts", 0)))
        out[st[0]] = (statistics.mean(u), statistics.mean(loss), statistics.mean(to))
    return out


def grid_runs(opts: dict) -> dict[str, tuple[float, float, float]]:
    base = run.twin_tcp

    def patched() -> dict:
        # run_engine passes these as keyword arguments too (same values as the twin's)
        t = {k: v for k, v in base().items()
             if k not in ("packet_bytes", "header_bytes", "initial_window", "min_rto_s", "sack", "delayed_ack")}
        return {**t, **opts}

    run.twin_tcp = patched
    try:
        out = {}
        for p in GRID:
            r = run.run_engine(p, burst=run.KERNEL_BURST_BYTES)
            out[p["point"]] = (float(r["utilization"]), float(r["loss_rate"]), float(r["timeouts"] or 0))
        return out
    finally:
        run.twin_tcp = base


def main(names: list[str]) -> None:
    k = kernel_means()
    res = {}
    for n in names or list(VARIANTS):
        res[n] = {**tiny_runs(VARIANTS[n]), **grid_runs(VARIANTS[n])}
        print(f"== {n}: {json.dumps(VARIANTS[n])}", flush=True)
        for pt, (u, l, t) in res[n].items():
            kk = k.get(pt, float("nan"))
            print(f"  {pt:24s} util {100*u:6.2f}  kernel {100*kk:6.2f}  diff {100*(u-kk):+6.2f}  loss {100*l:5.2f}  timeouts {t:7.1f}")
    (HERE.parent / "out").mkdir(exist_ok=True)
    (HERE.parent / "out" / "cubic_candidates.json").write_text(json.dumps(res, indent=1))


if __name__ == "__main__":
    main(sys.argv[1:])
