#!/usr/bin/env python3
"""One OC3-grid point of the profile-ns3 CUBIC comparison, with extra knobs (cubic_gap.md).

    python3 bench/ns3/cubic_gap.py ns3 50 110 [--ns3::TcpCubic::HyStart=false ...]
    python3 bench/ns3/cubic_gap.py bufsize 50 110 ['{"cubic_integer": true}']   # tcp overrides

Environment: SEED (default 1: the grid's RTT/start lists); NS3_BIN (another dumbbell build, e.g.
the all-flow tracing variant of cubic_gap_trace.sh); TRACE_OUT (write ns-3's stderr / bufsize's
full JSON there).

Prints one JSON line: utilization, loss, mean queue, timeouts (+ fast recoveries for ns-3).
Same RTT/start lists as compare.py (seed from SEED, default 1; 40 s, warm-up 10 s, 1000-B packets, 155 Mb/s).
"""
import json, subprocess, sys, tempfile, os
from pathlib import Path
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import compare  # noqa: E402


def main():
    who, n, buf = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    extra = sys.argv[4:]
    seed = int(os.environ.get("SEED", "1"))
    rtts, starts = compare.flow_inputs(n, seed)
    p = dict(n=n, buffer=buf, duration=40.0, warmup=10.0, seed=seed, profile="ns3", cc="cubic")
    if who == "ns3":
        cmd = [os.environ.get("NS3_BIN", str(compare.NS3_BIN)), f"--flows={n}", f"--capacity={int(compare.CAPACITY_BPS)}bps",
               f"--buffer={buf}", "--duration=40", "--warmup=10", f"--seed={seed}",
               f"--packetSize={compare.PACKET_BYTES}", "--stack=defaults", "--cc=cubic",
               "--rtts=" + ",".join(f"{r:.6f}" for r in rtts),
               "--starts=" + ",".join(f"{s:.6f}" for s in starts), *extra]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode:
            sys.exit(r.stderr[-2000:])
        res = json.loads(r.stdout.strip().splitlines()[-1])
        if os.environ.get("TRACE_OUT"):
            Path(os.environ["TRACE_OUT"]).write_text(r.stderr)
        keys = {"utilization": "utilization", "loss_rate": "loss_rate", "mean_queue_packets": "mean_queue",
                "timeouts": "timeouts", "fast_recoveries": "fast_recoveries"}
        out = {k2: res.get(k) for k, k2 in keys.items()}
    else:
        sc = compare.bufsize_scenario(p, rtts, starts)
        for e in extra:
            ov = json.loads(e)
            top = ov.pop("_top", {})
            sc["dumbbell"]["tcp"].update(ov)
            sc.update(top)
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            json.dump(sc, f)
        r = subprocess.run([str(compare.BUFSIZE), "simulate", f.name, "--json", "--no-progress"],
                           capture_output=True, text=True)
        os.unlink(f.name)
        if r.returncode:
            sys.exit(r.stderr[-2000:])
        res = json.loads(r.stdout)
        if os.environ.get("TRACE_OUT"):
            Path(os.environ["TRACE_OUT"]).write_text(r.stdout)
        out = {"utilization": res.get("utilization"), "loss_rate": res.get("loss_rate"),
               "mean_queue": res.get("mean_queue_packets"), "timeouts": res.get("timeouts")}
    print(json.dumps({"who": who, "n": n, "B": buf, "seed": seed, "extra": extra, **out}))


if __name__ == "__main__":
    main()
