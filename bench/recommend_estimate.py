"""The verification's cost estimate against whole commands: for each link, ``estimate_cost``'s idle-machine
wall time and the measured wall time of ``bufsize recommend LINK --verify --json`` (run cache off, two
workers, FQ-CoDel line included), written as JSON lines.

    .venv/bin/python bench/recommend_estimate.py OUT.jsonl

The links are bench/recommend_speed.py's (the README and docs/recommend.md examples and its four BBR
links) and the big links of issue 32 that verify within a minute or so here.
"""
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
from recommend_speed import BBR_LINKS, LINKS  # noqa: E402

from bufsize.recommendation import recommend, verification as V  # noqa: E402

BIG = {"10G-2000-cubic": dict(capacity="10Gbps", rtt="5ms..80ms", flows=2000),
       "10G-10000-cubic": dict(capacity="10Gbps", rtt="5ms..80ms", flows=10000)}


def flags(kw):
    out = []
    for k, v in kw.items():
        out += ["--" + k.replace("_", "-"), str(v)]
    return out


def main():
    links = {**LINKS, **BBR_LINKS, **BIG}
    env = dict(os.environ, BUFSIZE_CACHE="off")
    with open(sys.argv[1], "w") as f:
        for name, kw in links.items():
            est = V.estimate_cost(recommend(**kw), workers=2)["wall_s"]
            t = time.perf_counter()
            out = subprocess.run([str(ROOT / ".venv/bin/bufsize"), "recommend", *flags(kw), "--verify", "--json",
                                  "--workers", "2"], capture_output=True, text=True, env=env, check=True).stdout
            wall = time.perf_counter() - t
            v = json.loads(out)["verified"]
            row = dict(link=name, estimate_s=round(est, 1), wall_s=round(wall, 1), ratio=round(est / wall, 2),
                       size=v["buffer_packets"], runs=v["runs"], load=round(os.getloadavg()[0], 2))
            print(row, flush=True)
            f.write(json.dumps(row) + "\n")


if __name__ == "__main__":
    main()
