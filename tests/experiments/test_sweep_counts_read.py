"""A sweep of one run says so in the singular ("1 point x 1 seed = 1 run", "(1 row)"): counts read
as English, not "1 runs"."""

from __future__ import annotations

import json


def test_a_one_run_sweep_counts_in_the_singular(tmp_path, capsys):
    from bufsize.cli import main

    sc = tmp_path / "s.json"
    sc.write_text(json.dumps({"seed": 1, "duration": "3s", "warmup": "1s",
                              "dumbbell": {"capacity": "10Mbps", "flows": 1, "rtt": "20ms", "buffer": 10}}))
    assert main(["sweep", str(sc), "--vary", "buffer=1", "--seeds", "1", "--out", str(tmp_path / "o"),
                 "--no-progress", "--workers", "1"]) == 0
    out = capsys.readouterr().out
    assert "sweep         1 point x 1 seed = 1 run (buffer: 1)" in out
    assert "results.parquet (1 row)" in out
    assert " 1 runs" not in out and "(1 rows)" not in out
