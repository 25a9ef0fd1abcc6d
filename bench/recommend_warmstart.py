"""Are runs continued from a shared warm-up faithful? For each link, at sizes around its verified
answer, every seed is run twice over the search's full run length: *cold* (the scenario alone, its
own warm-up behind its own size) and *warm* (the same scenario with the search's ``warm_buffer``:
behind the search's first size until ``shared_warmup_s``, then behind its own size for
``resettle_s`` before the measurement, as a search runs it). The means over seeds are compared, with
the interval of their difference; CPU seconds per run are recorded for both.

    nice .venv/bin/python bench/recommend_warmstart.py OUT.jsonl [LINK ...]   # resumable
    nice .venv/bin/python bench/recommend_warmstart.py OUT.jsonl --settled [LINK ...]   # the search's lengths

Results: bench/recommend_warmstart.md.
"""
import json
import math
import os
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
import recommend_speed as RS  # noqa: E402

from bufsize.recommendation import recommend  # noqa: E402
from bufsize.recommendation import verification as V  # noqa: E402
from bufsize.recommendation.runlength import run_length  # noqa: E402

#: link -> (description, sizes): the sizes bracket each link's verified size on cold runs (README
#: transcripts and bench/recommend_speed.md: demo 170, spread 66, cubic 161, 1G-200-cubic-bbr 188,
#: 500M-100-reno-bbr 75, 10G-10000 35, 100G-100000 31)
LINKS = {
    "demo": (RS.LINKS["demo"], (85, 170)),
    "spread": (RS.LINKS["spread"], (33, 66)),
    "cubic": (RS.LINKS["cubic"], (80, 161)),
    "1G-200-cubic-bbr": (RS.BBR_LINKS["1G-200-cubic-bbr"], (47, 188)),
    "500M-100-reno-bbr": (RS.BBR_LINKS["500M-100-reno-bbr"], (19, 75)),
    "10G-10000": (dict(capacity="10Gbps", flows=10000, rtt="5ms..80ms"), (17, 35)),
    "100G-100000": (dict(capacity="100Gbps", flows=100000, rtt="5ms..80ms"), (31,)),
}
SEEDS = {"100G-100000": (1, 2, 3)}
DEFAULT_SEEDS = (1, 2, 3, 4, 5, 6)


def first_size(rec, top_i):
    """The size a search tries first (the middle of the models' sizes below the range's top): its
    shared warm-up runs behind this one."""
    pts = sorted({V._whole(b) for b in V._model_sizes(rec).values() if 1 <= b <= top_i})
    pts = [b for b in pts if b < top_i] or [top_i]
    return pts[len(pts) // 2]


def main(out_path, names):
    done = set()
    if os.path.exists(out_path):
        done = {(r["link"], r["size"], r["seed"], r["mode"]) for r in map(json.loads, open(out_path))}
    runner = V.Runner(cache=False, workers=2)
    for name in names:
        kw, sizes = LINKS[name]
        rec = recommend(**kw)
        inp = rec.input
        top = max([2.0 * inp.bdp_packets] + [b for b in V._model_sizes(rec).values() if b <= 8 * inp.bdp_packets])
        top_i = max(2, int(math.ceil(top)))
        run = run_length(inp, top_i)
        until = V.shared_warmup_s(inp, run, top_i)
        b0 = first_size(rec, top_i)
        print(f"{name}: warm-up {run.warmup_s:.3g} s, shared {until} s behind {b0} packets, "
              f"measure {run.measure_s:.3g} s", flush=True)
        if until is None:
            continue
        for b in sizes:
            for mode in ("cold", "warm"):
                seeds = [s for s in SEEDS.get(name, DEFAULT_SEEDS) if (name, b, s, mode) not in done]
                scs = []
                for s in seeds:
                    sc = V.build_scenario(inp, b, seed=s, warmup_s=run.warmup_s, duration_s=run.duration_s)
                    if mode == "warm":
                        sc["warm_buffer"] = {"packets": b0, "until_s": until}
                    scs.append(sc)
                t = time.perf_counter()
                for s, rec_ in zip(seeds, runner.map(scs)):
                    summ = rec_["summary"]
                    row = dict(link=name, size=b, seed=s, mode=mode, warm_from=b0, shared_s=until,
                               warmup_s=run.warmup_s, measure_s=run.measure_s,
                               utilization=summ["utilization"], loss=summ["loss_rate"],
                               cpu_s=rec_["wall_seconds"], load=os.getloadavg()[0])
                    with open(out_path, "a") as f:
                        f.write(json.dumps(row) + "\n")
                print(f"  {b} {mode}: {len(seeds)} runs in {time.perf_counter() - t:.1f} s", flush=True)
    runner.close()
    summarize(out_path)


#: The shortest runs, as the search makes them (stopped once settled): size, seeds, and the buffers the
#: shared start ran behind (the search's first size tried, a model's, against BDP/√n)
SETTLED = {
    "10G-10000": ((35, 20), 6, (24914, 354)),
    "100G-100000": ((31,), 4, (1119,)),
}


def settled(out_path, names):
    """Cold against warm over the search's own run lengths (its stop rule), warm behind each buffer of
    :data:`SETTLED`; rows with mode "settled-cold" and "settled-warm-B0"."""
    from bufsize.recommendation.runlength import stop_rule

    runner = V.Runner(cache=False, workers=2)
    for name in names:
        kw, _ = LINKS[name]
        sizes, n_seeds, froms = SETTLED[name]
        rec = recommend(**kw)
        inp = rec.input
        top = max([2.0 * inp.bdp_packets] + [b for b in V._model_sizes(rec).values() if b <= 8 * inp.bdp_packets])
        top_i = max(2, int(math.ceil(top)))
        run = run_length(inp, top_i)
        stop = stop_rule(inp, run, V.goals_of(inp))
        until = V.shared_warmup_s(inp, run, top_i)
        for b in sizes:
            for b0 in (None,) + tuple(froms):
                scs = []
                for s in range(1, n_seeds + 1):
                    sc = V.build_scenario(inp, b, seed=s, warmup_s=run.warmup_s, duration_s=run.duration_s)
                    if b0 is not None:
                        sc["warm_buffer"] = {"packets": b0, "until_s": until}
                    sc["_stop"] = stop.to_dict()
                    scs.append(sc)
                for s, rec_ in zip(range(1, n_seeds + 1), runner.map(scs)):
                    summ = rec_["summary"]
                    row = dict(link=name, size=b, seed=s, mode="settled-cold" if b0 is None else f"settled-warm-{b0}",
                               warm_from=b0, shared_s=until, warmup_s=run.warmup_s,
                               measured_s=summ.get("measured_s"), utilization=summ["utilization"],
                               loss=summ["loss_rate"], cpu_s=rec_["wall_seconds"], load=os.getloadavg()[0])
                    with open(out_path, "a") as f:
                        f.write(json.dumps(row) + "\n")
                u = [r["utilization"] for r in map(json.loads, open(out_path))
                     if r["link"] == name and r["size"] == b and r["warm_from"] == b0 and r["mode"].startswith("settled")]
                print(f"  {name} {b} from {b0}: {sum(u) / len(u):.5f} over {len(u)} seeds", flush=True)
    runner.close()


def summarize(path):
    rows = [r for r in map(json.loads, open(path)) if r["mode"] in ("cold", "warm")]
    keys = sorted({(r["link"], r["size"]) for r in rows}, key=lambda k: (list(LINKS).index(k[0]), k[1]))
    print("| link | size | seeds | utilization cold | warm | warm − cold (95 %) | loss cold | warm | CPU s per run cold → warm |")
    print("|---|---|---|---|---|---|---|---|---|")
    for link, b in keys:
        g = {m: [r for r in rows if r["link"] == link and r["size"] == b and r["mode"] == m] for m in ("cold", "warm")}
        if not g["cold"] or not g["warm"]:
            continue

        def ms(xs):
            n = len(xs)
            m = sum(xs) / n
            sd = math.sqrt(sum((x - m) ** 2 for x in xs) / (n - 1)) if n > 1 else float("nan")
            return m, sd, n

        uc, sc_, nc = ms([r["utilization"] for r in g["cold"]])
        uw, sw, nw = ms([r["utilization"] for r in g["warm"]])
        se = math.sqrt(sc_ ** 2 / nc + sw ** 2 / nw)
        lc = sum(r["loss"] for r in g["cold"]) / nc
        lw = sum(r["loss"] for r in g["warm"]) / nw
        cc = sum(r["cpu_s"] for r in g["cold"]) / nc
        cw = sum(r["cpu_s"] for r in g["warm"]) / nw
        print(f"| {link} | {b} | {nc} | {uc:.4f} | {uw:.4f} | {uw - uc:+.4f} ± {1.96 * se:.4f} | {lc:.4g} | {lw:.4g} | "
              f"{cc:.2f} → {cw:.2f} |")


if __name__ == "__main__":
    if sys.argv[2:3] == ["--summary"]:
        summarize(sys.argv[1])
    elif sys.argv[2:3] == ["--settled"]:
        settled(sys.argv[1], sys.argv[3:] or list(SETTLED))
    else:
        main(sys.argv[1], sys.argv[2:] or [n for n in LINKS if n != "100G-100000"])
