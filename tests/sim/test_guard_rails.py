"""Scenarios that cannot finish or cannot fit stop before they start, with one line naming the
problem and exit code 2; long runs say what they will cost first."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bufsize.cli import main
from bufsize.errors import ScenarioError
from bufsize.scenario import Scenario
from bufsize.scenario import _bounds

ONE_FLOW = {"duration": "2s", "warmup": "1s",
            "dumbbell": {"capacity": "10Mbps", "flows": 1, "rtt": "100ms", "buffer": "0.5bdp"}}


def _cli(capsys, args):
    t0 = time.perf_counter()
    code = main(["simulate", *args])
    elapsed = time.perf_counter() - t0
    out, err = capsys.readouterr()
    return code, out, err.strip(), elapsed


def _file(tmp_path: Path, scenario: dict) -> str:
    p = tmp_path / "s.json"
    p.write_text(json.dumps(scenario))
    return str(p)


def _one_line_error(code, err, elapsed, *needles):
    assert code == 2, err
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    for n in needles:
        assert n in err, err
    # nothing ran: the check is a few milliseconds of parsing (generous bound for a busy machine)
    assert elapsed < 1.0, f"took {elapsed:.2f} s"


@pytest.mark.parametrize("interval, needle", [("1e-300s", "at least 1 µs"), (1e308, "at most")])
def test_queue_trace_interval_outside_1us_to_the_duration_is_refused(capsys, tmp_path, interval, needle):
    sc = {**ONE_FLOW, "measure": {"queue_trace_interval": interval}}
    code, _, err, elapsed = _cli(capsys, [_file(tmp_path, sc)])
    _one_line_error(code, err, elapsed, "measure.queue_trace_interval_s: ", needle)


def test_queue_trace_interval_longer_than_the_run_is_refused():
    with pytest.raises(ScenarioError, match=r"measure.queue_trace_interval_s: must be at most the run's duration"):
        Scenario.from_dict({**ONE_FLOW, "measure": {"queue_trace_interval": "3s"}})
    # the whole run is fine
    Scenario.from_dict({**ONE_FLOW, "measure": {"queue_trace_interval": "2s"}})


def test_pareto_shape_beyond_what_the_engine_can_represent_is_refused(capsys, tmp_path):
    sc = {**ONE_FLOW, "short_flows": [{"load": 0.2, "size": {"pareto": {"shape": 1e308, "mean": "20KB"}},
                                       "rtt": "50ms"}]}
    code, _, err, elapsed = _cli(capsys, [_file(tmp_path, sc)])
    _one_line_error(code, err, elapsed, "short_flows[0].size.pareto.shape: ", "at most 1000")


def test_queue_trace_of_1ns_says_how_many_samples_it_asks_for(capsys):
    code, _, err, elapsed = _cli(capsys, ["--capacity", "10Mbps", "--flows", "1", "--rtt", "100ms", "--buffer",
                                          "10pkt", "--duration", "60s", "--queue-trace", "1ns"])
    _one_line_error(code, err, elapsed, "--queue-trace: ", "at least 1 µs", "6e+10 samples")


def test_three_million_flows_are_refused_where_they_do_not_fit(capsys, monkeypatch):
    monkeypatch.setenv("BUFSIZE_MEMORY_LIMIT", "4GiB")  # a laptop, or a cluster job's share
    code, _, err, elapsed = _cli(capsys, ["--capacity", "100Gbps", "--flows", "3000000", "--rtt", "100ms",
                                          "--buffer", "100pkt", "--duration", "1s", "--warmup", "0.1s"])
    _one_line_error(code, err, elapsed, "GiB peak memory", "more than the 4 GiB", "--allow-over-memory")


def test_a_long_run_says_what_it_will_cost_before_it_starts(tmp_path):
    """Where 3 million flows fit, the run announces its estimate first (and then runs; stopped here)."""
    cmd = [sys.executable, "-m", "bufsize", "simulate", "--capacity", "100Gbps", "--flows", "3000000", "--rtt",
           "100ms", "--buffer", "100pkt", "--duration", "1s", "--warmup", "0.1s"]
    env = {**os.environ, "BUFSIZE_MEMORY_LIMIT": "1TiB"}
    proc = subprocess.Popen(cmd, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, env=env)
    try:
        line = proc.stderr.readline().strip()
    finally:
        proc.kill()
        proc.wait()
    assert line.startswith("bufsize: this run needs ≈ ") and "GiB peak memory" in line and "on this machine" in line


def test_allow_over_memory_lets_a_run_through(monkeypatch):
    import bufsize.simulate as S

    monkeypatch.setenv("BUFSIZE_MEMORY_LIMIT", "1MiB")
    with pytest.raises(Exception, match="allow_over_memory=True"):
        S.simulate(ONE_FLOW, progress=False)
    r = S.simulate(ONE_FLOW, progress=False, allow_over_memory=True)
    assert r.summary["utilization"] > 0
    import bufsize  # the public API passes it through too

    again = bufsize.simulate(ONE_FLOW, progress=False, allow_over_memory=True)
    assert again.summary["utilization"] == r.summary["utilization"]
    with pytest.raises(Exception, match="allow_over_memory=True"):
        bufsize.simulate(ONE_FLOW, progress=False)


@pytest.mark.parametrize("scenario, field", [
    ({**ONE_FLOW, "dumbbell": {**ONE_FLOW["dumbbell"], "capacity": "1e-3bps"}}, "dumbbell.capacity_bps"),
    ({**ONE_FLOW, "dumbbell": {**ONE_FLOW["dumbbell"], "capacity": "1e20bps"}}, "dumbbell.capacity_bps"),
    ({**ONE_FLOW, "dumbbell": {**ONE_FLOW["dumbbell"], "rtt": "1e9s"}}, "dumbbell.rtt_s"),
    ({**ONE_FLOW, "dumbbell": {**ONE_FLOW["dumbbell"], "tcp": {"initial_window": 2**31}}},
     "dumbbell.tcp.initial_window"),
    ({**ONE_FLOW, "measure": {"cwnd_sum_interval": "1ns"}}, "measure.cwnd_sum_interval_s"),
    ({**ONE_FLOW, "measure": {"cwnd_trace_interval": "0.5ns", "cwnd_trace_flows": [0]}},
     "measure.cwnd_trace_interval_s"),
    ({**ONE_FLOW, "measure": {"phase_trace_interval": "5s"}}, "measure.phase_trace_interval_s"),
    ({**ONE_FLOW, "short_flows": [{"arrivals_per_s": 1e12, "size": "2pkt", "rtt": "100ms"}]},
     "short_flows[0].arrivals_per_s"),
    ({**ONE_FLOW, "short_flows": [{"load": 0.1, "size": "1e12pkt", "rtt": "100ms"}]}, "short_flows[0].size"),
    ({**ONE_FLOW, "short_flows": [{"load": 0.1, "size": {"exponential": "1e20B"}, "rtt": "100ms"}]},
     "short_flows[0].size.exponential"),
    ({**ONE_FLOW, "udp": [{"rate": "1Mbps", "pattern": {"pareto": {"shape": 1e9}}}]}, "udp[0].pattern.pareto.shape"),
])
def test_each_bound_names_its_field(scenario, field):
    with pytest.raises(ScenarioError) as exc:
        Scenario.from_dict(scenario)
    assert str(exc.value).startswith(field + ":"), str(exc.value)
    assert "\n" not in str(exc.value)


def test_the_schema_defaults_pass_even_in_runs_shorter_than_their_interval():
    # phase_trace_interval_s defaults to 0.1 s; a 50-ms run keeps it (it takes no phase sample)
    sc = Scenario.from_dict({**ONE_FLOW, "duration": "50ms", "warmup": "0s"})
    assert sc.to_dict()["measure"]["phase_trace_interval_s"] == 0.1
    Scenario.from_dict(sc.to_dict())  # and its own SI form reads back


def test_the_bounds_sit_at_the_engine_limits_they_describe():
    # the engine's clock: u64 nanoseconds hold ~584 years; the longest time leaves room for sums
    assert _bounds.MAX_TIME_S * 1e9 * 1000 < 2**64
    # 32-bit segment numbers
    assert _bounds.MAX_TRANSFER_PACKETS < 2**32 - 1


def test_a_panic_inside_the_binding_arrives_as_one_line_not_a_backtrace():
    code = ("from bufsize import _engine\n"
            "try:\n"
            "    _engine._panic_for_test('index out of range\\nsecond line')\n"
            "except _engine.EngineError as e:\n"
            "    print(e)\n")
    env = {**os.environ, "RUST_BACKTRACE": "1"}
    env.pop("BUFSIZE_ENGINE_BACKTRACE", None)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stderr == ""  # the default hook's message and backtrace are not printed
    line = out.stdout.strip()
    assert len(line.splitlines()) == 1
    assert line.startswith("the simulator failed while testing the panic guard: index out of range second line at ")
    assert "sim.rs:" in line and "please report it" in line


def test_an_engine_panic_during_a_run_becomes_a_one_line_error_and_spends_the_run(monkeypatch):
    """simulate() turns the binding's EngineError into a BufsizeError (the CLI prints one line)."""
    import bufsize.simulate as S
    from bufsize.errors import BufsizeError

    class Exploding:
        EngineError = S._engine().EngineError

        class Simulation:
            def __init__(self, text):
                pass

            def end_ns(self):
                return 10

            def now_ns(self):
                return 0

            def run_until(self, t):
                raise Exploding.EngineError("the simulator failed while simulating: boom at x.rs:1 (an engine bug)")

    monkeypatch.setattr(S, "_engine", lambda: Exploding)
    with pytest.raises(BufsizeError, match=r"^the simulator failed while simulating: boom") as exc:
        S.simulate(ONE_FLOW, progress=False)
    assert isinstance(exc.value, S.EngineError)


def test_a_sweep_point_that_cannot_fit_fails_at_once_with_its_estimate(monkeypatch):
    from bufsize.experiments.sweep import sweep

    monkeypatch.setenv("BUFSIZE_MEMORY_LIMIT", "1GiB")
    base = {"duration": "1s", "warmup": "0.5s",
            "dumbbell": {"capacity": "10Mbps", "flows": 1, "rtt": "100ms", "buffer": "20pkt"}}
    table = sweep(base, {"flows": [1, 2_000_000]}, seeds=1, executor="serial", progress=False)
    by_flows = {int(r["flows"]): r for _, r in table.iterrows()}
    assert by_flows[1]["status"] == "ok"
    bad = by_flows[2_000_000]
    assert bad["status"] == "failed" and "GiB peak memory" in bad["error"] and "\n" not in bad["error"]


def test_show_scenario_does_not_build_an_engine_that_cannot_fit(capsys, monkeypatch):
    monkeypatch.setenv("BUFSIZE_MEMORY_LIMIT", "2GiB")
    code, out, err, elapsed = _cli(capsys, ["--capacity", "1Gbps", "--flows", "3000000", "--rtt", "100ms",
                                            "--buffer", "10pkt", "--duration", "2s", "--warmup", "1s",
                                            "--show-scenario"])
    _one_line_error(code, err, elapsed, "GiB peak memory", "more than the 2 GiB")
    assert out == ""
