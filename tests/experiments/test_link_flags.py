"""search and sweep take recommend's link flags: the same scenario as describe.scenario_from_input."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from bufsize.cli import main
from bufsize.recommendation.scenario import scenario_from_input
from bufsize.recommendation import parse_input

LINK = ["--capacity", "10Mbps", "--rtt", "20ms..60ms", "--flows", "4", "--mix", "cubic=0.5,reno=0.5"]


def _file(tmp_path, **run):
    inp = parse_input(capacity="10Mbps", rtt="20ms..60ms", flows=4, mix="cubic=0.5,reno=0.5")
    sc = scenario_from_input(inp, buffer=20, **run)
    p = tmp_path / "s.json"
    p.write_text(json.dumps(sc))
    return p


def test_sweep_with_link_flags_runs_the_described_scenario(tmp_path, capsys):
    common = ["--vary", "buffer=5,40", "--seeds", "1", "--workers", "1", "--no-progress"]
    assert main(["sweep", *LINK, "--duration", "6s", "--warmup", "1s", *common, "--out", str(tmp_path / "a")]) == 0
    err = capsys.readouterr().err
    assert "assumed 1500-byte packets" in err
    assert main(["sweep", str(_file(tmp_path, duration="6s", warmup="1s")), *common, "--out", str(tmp_path / "b")]) == 0
    a = pd.read_parquet(tmp_path / "a" / "results.parquet").sort_values("buffer").reset_index(drop=True)
    b = pd.read_parquet(tmp_path / "b" / "results.parquet").sort_values("buffer").reset_index(drop=True)
    for col in ("utilization", "loss_rate", "queue_delay_mean_s", "n_flows", "bdp_packets"):
        assert a[col].tolist() == b[col].tolist(), col
    assert a["bdp_packets"].iloc[0] == pytest.approx(10e6 * 0.04 / 8 / 1500)   # 1500-B packets


def test_search_with_link_flags_equals_the_search_on_the_file(tmp_path, capsys):
    common = ["--target-utilization", "0.9", "--seeds", "2", "--range", "2..60", "--resolution", "8",
              "--workers", "1", "--json"]
    assert main(["search", "min-buffer", *LINK, "--duration", "6s", "--warmup", "1s", *common]) == 0
    flags = json.loads(capsys.readouterr().out)["utilization"]
    assert main(["search", "min-buffer", str(_file(tmp_path, duration="6s", warmup="1s")), *common]) == 0
    file = json.loads(capsys.readouterr().out)["utilization"]
    assert (flags["low_packets"], flags["high_packets"]) == (file["low_packets"], file["high_packets"])
    assert [e["mean"] for e in flags["evaluations"]] == [e["mean"] for e in file["evaluations"]]


@pytest.mark.parametrize("args, needle", [
    (["search", "min-buffer", "--target-utilization", "0.9"], "SCENARIO_FILE: give a SCENARIO_FILE"),
    (["search", "min-buffer", "--capacity", "1Gbps", "--rtt", "40ms", "--target-utilization", "0.9"], "--flows"),
    (["sweep", "--capacity", "1Gbps", "--flows", "5", "--out", "x"], "--rtt"),
    (["search", "optimal-buffer", "--capacity", "1Gbps"], "--rtt"),
])
def test_incomplete_link_flags_are_one_line_errors(args, needle, capsys):
    assert main(args) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("bufsize: error:") and needle in err and "\n" not in err


def test_link_flags_and_a_file_are_not_mixed(tmp_path, capsys):
    f = _file(tmp_path)
    assert main(["sweep", str(f), "--capacity", "1Gbps", "--out", str(tmp_path / "o")]) == 2
    assert "--capacity: cannot be combined with SCENARIO_FILE" in capsys.readouterr().err
