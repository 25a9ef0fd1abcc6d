"""Verification cost on the README's and docs/recommend.md's links: the verified size, runs, CPU
and simulated seconds of each search (run cache off, no FQ-CoDel line beside it), written as JSON.

    .venv/bin/python bench/recommend_speed.py OUT.json [fixed settled] [--bbr]

Compare two versions by running it on each, on the same machine in one sitting (bench/recommend_speed.md).
The optional modes after OUT.json are run lengths (``verify_recommendation(run_lengths=...)``), each
link verified once per mode, modes alternating so that the machine's load falls on both alike.
``--bbr`` adds the four BBR links of bench/recommend_bbr_warmup.py.
"""
import time, json, os, sys
from bufsize.recommendation import recommend, verification as V
LINKS = {
 "demo": dict(),
 "oc3-mix-3ms": dict(capacity="155Mbps", rtt="20ms..140ms", flows=400, packet_size="1000B", mix="reno=0.5,cubic=0.5", max_delay="3ms", target_utilization=0.99),
 "100M-30": dict(capacity="100Mbps", rtt="10ms..60ms", flows=30),
 "gamma5": dict(capacity="1Gbps", flows=300, rtt="50ms", input_capacity="200Mbps", target_utilization=0.99),
 "spread": dict(capacity="200Mbps", flows=40, rtt="20ms..80ms", target_utilization=0.98),
 "cubic": dict(capacity="500Mbps", flows=30, rtt="35ms..45ms", mix="cubic=1", target_utilization=0.99),
}
BBR_LINKS = {
 "100M-30-cubic-bbr": dict(capacity="100Mbps", rtt="10ms..60ms", flows=30, mix="cubic=0.7,bbr=0.3"),
 "200M-40-bbr": dict(capacity="200Mbps", rtt="20ms..80ms", flows=40, mix="bbr=1", target_utilization=0.98),
 "1G-200-cubic-bbr": dict(capacity="1Gbps", rtt="10ms..50ms", flows=200, mix="cubic=0.7,bbr=0.3"),
 "500M-100-reno-bbr": dict(capacity="500Mbps", rtt="20ms..100ms", flows=100, mix="reno=0.5,bbr=0.5",
                           target_utilization=0.98),
}


def main():
    if "--bbr" in sys.argv:
        LINKS.update(BBR_LINKS)
    modes = [a for a in sys.argv[2:] if a != "--bbr"] or ["settled"]
    out = {}
    for name, kw in LINKS.items():
        rec = recommend(**kw)
        for mode in modes:
            t = time.perf_counter()
            v = V.verify_recommendation(rec, runner=V.Runner(cache=False), beside=False, run_lengths=mode)
            key = name if len(modes) == 1 else f"{name}/{mode}"
            out[key] = dict(size=v.buffer_packets, status=v.status, runs=v.runs, settled_runs=v.settled_runs,
                            cpu=round(v.cpu_seconds, 1), wall=round(time.perf_counter() - t, 1),
                            simulated_s=round(v.simulated_seconds, 1), load=round(os.getloadavg()[0], 2))
            print(key, out[key], flush=True)
    json.dump(out, open(sys.argv[1], "w"), indent=1)


if __name__ == "__main__":
    main()
