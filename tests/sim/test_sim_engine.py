"""The real engine through the Python face: tables, CLI outputs, determinism, and a few short
physics sanity checks. Every run here is small (well under a few seconds on this machine).

The engine's own acceptance tests (paper figures, ns-3 comparison) live with the engine; these
check that what reaches Python is complete, consistent and physically plausible.
"""

import json
import math

import numpy as np
import pytest

from bufsize import _engine
from bufsize.cli import main
from bufsize.models.appenzeller import single_flow_utilization
from bufsize.scenario import Scenario
from bufsize.simulate import FLOW_COLUMNS, simulate

SUMMARY_KEYS = {"utilization", "loss_rate", "drops", "mean_queue_packets", "bottleneck_packets", "bottleneck_bytes",
                "goodput_bps_mean", "goodput_bps_total", "jain_fairness", "timeouts", "fast_retransmits",
                "frac_time_queue_empty", "frac_time_queue_full", "queue_std_packets", "queue_delay_mean_s",
                "queue_delay_p50_s", "queue_delay_p99_s", "cwnd_sum_mean", "cwnd_sum_std", "sent", "delivered",
                "dropped", "in_flight", "conservation_ok", "events", "engine_version", "seed", "measure_seconds",
                "wall_seconds"}


def one_flow(buffer, **kw):
    # 10 Mb/s, 50 ms: BDP = 62.5 packets of 1000 B; Reno sawtooth period a few seconds
    args = dict(capacity="10Mbps", flows=1, rtt="50ms", buffer=buffer, duration="40s", warmup="10s", start="0s",
                cc="reno")
    args.update(kw)
    return Scenario.dumbbell(**args)


def few_flows(**kw):
    args = dict(capacity="20Mbps", flows=10, rtt="20ms..100ms", buffer="bdp/sqrt(n)", duration="12s", warmup="3s")
    args.update(kw)
    return Scenario.dumbbell(**args)


@pytest.fixture(scope="module")
def traced():
    sc = few_flows(queue_trace_interval="5ms", cwnd_trace_flows=[0, 3])
    return simulate(sc, progress=False)


def test_summary_and_tables(traced):
    r = traced
    assert SUMMARY_KEYS <= set(r.summary)
    assert list(r.flows.columns)[:len(FLOW_COLUMNS)] == list(FLOW_COLUMNS)
    assert r.flows["id"].tolist() == list(range(10))
    # per-flow RTTs come from the uniform 20..100 ms draw
    assert r.flows["rtt_s"].between(0.02, 0.1).all() and r.flows["rtt_s"].nunique() == 10
    assert (r.flows["goodput_bps"] > 0).all()
    assert r.summary["goodput_bps_total"] == pytest.approx(r.flows["goodput_bps"].sum(), rel=1e-9)
    assert r.summary["goodput_bps_mean"] == pytest.approx(r.flows["goodput_bps"].mean(), rel=1e-9)
    # Jain's index recomputed from the table
    g = r.flows["goodput_bps"].to_numpy()
    assert r.summary["jain_fairness"] == pytest.approx(g.sum() ** 2 / (len(g) * (g ** 2).sum()), rel=1e-9)
    assert r.summary["conservation_ok"] is True
    assert r.summary["sent"] == r.summary["delivered"] + r.summary["dropped"] + r.summary["in_flight"]
    assert r.summary["measure_seconds"] == pytest.approx(9.0)
    assert "bn" in r.links["name"].tolist()


def test_traces_and_histograms(traced):
    r = traced
    limit = r.scenario.buffer_limit["limit_packets"]
    q = r.queue_trace
    assert len(q) > 1000 and q["t_s"].is_monotonic_increasing
    assert q["queue_packets"].max() <= limit and q["queue_packets"].min() >= 0
    assert sorted(r.cwnd_traces["flow"].unique().tolist()) == [0, 3]
    assert (r.cwnd_traces["cwnd"] >= 1).all()
    h = r.queue_histogram
    assert h["fraction"].sum() == pytest.approx(1.0, abs=1e-6)
    assert h["packets"].max() <= limit
    # the histogram's mean is the time-weighted mean queue
    assert (h["packets"] * h["fraction"]).sum() == pytest.approx(r.summary["mean_queue_packets"], rel=1e-6, abs=1e-9)
    assert r.cwnd_sum_histogram["fraction"].sum() == pytest.approx(1.0, abs=1e-6)
    # bottleneck bytes never exceed what the link can send in the window
    cap = r.scenario.to_dict()["dumbbell"]["capacity_bps"]
    assert r.summary["bottleneck_bytes"] * 8 <= cap * r.summary["measure_seconds"] * (1 + 1e-9)
    assert 0 < r.summary["utilization"] <= 1.0


def test_utilization_series_tiles_the_window(traced):
    r = traced
    u = r.utilization_series()  # one value per 5-ms sample step
    assert len(u) == 1800 and u["start_s"].iloc[0] == pytest.approx(3.0) and u["t_s"].iloc[-1] == pytest.approx(12.0)
    assert u["utilization"].between(-1e-9, 1 + 1e-9).all()
    # equal intervals covering the window: their mean is the window's utilization
    assert u["utilization"].mean() == pytest.approx(r.summary["utilization"], rel=1e-9)
    one = r.utilization_series(1.0)
    assert len(one) == 9 and (one["t_s"] - one["start_s"]).round(9).eq(1.0).all()
    assert one["utilization"].mean() == pytest.approx(r.summary["utilization"], rel=1e-9)
    # coarser intervals average the finer ones
    assert one["utilization"].iloc[0] == pytest.approx(u["utilization"].iloc[:200].mean(), rel=1e-9)
    with pytest.raises(ValueError, match="shorter than the sampling step"):
        r.utilization_series(0.001)


def test_utilization_series_needs_a_queue_trace():
    r = simulate(few_flows(duration="4s", warmup="1s"), progress=False)
    with pytest.raises(ValueError, match="queue_trace_interval_s"):
        r.utilization_series(1.0)


def test_same_seed_same_summary_different_seed_different():
    a = simulate(few_flows(seed=11), progress=False)
    b = simulate(few_flows(seed=11), progress=False)
    c = simulate(few_flows(seed=12), progress=False)
    strip = lambda s: {k: v for k, v in s.items() if k != "wall_seconds"}  # noqa: E731
    assert strip(a.summary) == strip(b.summary)
    assert a.flows.equals(b.flows)
    assert strip(a.summary) != strip(c.summary)
    assert not np.allclose(a.flows["rtt_s"], c.flows["rtt_s"])


def test_chunked_run_equals_one_shot_run():
    sc = few_flows(seed=5)
    chunked = simulate(sc, progress=False)
    one = json.loads(_engine.Simulation(sc.to_json()).finish())
    # Python adds the wall time and names the stack that ran; the rest is the engine's own summary
    added = ("wall_seconds", "profile", "stack")
    assert {k: v for k, v in chunked.summary.items() if k not in added} == one["summary"]
    assert chunked.summary["profile"] == "linux" and chunked.summary["stack"].startswith("linux profile: ")
    assert chunked.raw["flows"] == one["flows"]


def test_reproductions_earlier_stack_is_the_raw_engines_defaults_and_python_defaults_are_linux():
    # The raw engine's own defaults (NewReno, IW 2, no delayed ACKs, dupack, initial RTO 1 s, ...) are
    # the stack the reproduction ran before it took ns-2's rules (reproduce/_stack.py on the ns2
    # profile with _stack.LEGACY on top): with the papers' packet size and SACK off, the two are the
    # same experiment. A scenario built in Python with no profile gets every detail of the linux profile.
    from bufsize import defaults, profiles
    from bufsize.reproduce import _stack

    minimal = {"duration_s": 8.0, "warmup_s": 2.0,
               "dumbbell": {"capacity_bps": 20e6, "flows": 5, "rtt_s": {"uniform": [0.02, 0.1]},
                            "buffer": {"limit_packets": 40}}}
    engine_default = json.loads(_engine.Simulation(json.dumps(minimal)).finish())["summary"]
    papers = _stack.scenario(dict(minimal, dumbbell=dict(minimal["dumbbell"],
                                                         tcp=dict(defaults.PAPERS_TCP, **_stack.LEGACY))))
    ours = simulate(Scenario.from_dict(papers), progress=False).summary
    for key in ("wall_seconds", "profile", "stack"):
        ours.pop(key)
    assert ours == engine_default
    tcp = Scenario.from_dict(minimal).to_dict()["dumbbell"]["tcp"]
    assert tcp == dict(profiles.PROFILES["linux"].tcp)


def test_one_flow_large_buffer_fills_the_link():
    # B = 1.2 BDP: the queue never drains, utilization ~100 % (paper 004 Fig. 6)
    r = simulate(one_flow("1.2bdp"), progress=False)
    assert r.summary["utilization"] >= 0.99
    assert r.summary["conservation_ok"] is True
    assert r.summary["drops"] > 0  # the sawtooth still overflows the buffer now and then
    assert r.summary["timeouts"] == 0


def test_one_flow_small_buffer_follows_the_sawtooth_model():
    # B = 0.25 BDP: utilization near the fluid model of paper 004 (about 0.9 at this ratio);
    # loose tolerance: this is a sanity check, the engine's acceptance tests are stricter.
    sc = one_flow("0.25bdp", duration="60s")
    r = simulate(sc, progress=False)
    bdp = 10e6 * 0.05 / 8000
    expected = single_flow_utilization(sc.buffer_limit["limit_packets"], bdp)
    assert abs(r.summary["utilization"] - expected) < 0.03, (r.summary["utilization"], expected)
    big = simulate(one_flow("1.2bdp"), progress=False)
    assert r.summary["utilization"] < big.summary["utilization"]
    assert r.summary["frac_time_queue_empty"] > big.summary["frac_time_queue_empty"]


# ------------------------------------------------------------------------ CLI with the engine

CLI = ["simulate", "--capacity", "20Mbps", "--flows", "10", "--rtt", "20ms..100ms", "--buffer", "bdp/sqrt(n)",
       "--duration", "8s", "--warmup", "2s", "--no-progress"]


def test_cli_json(capsys):
    assert main([*CLI, "--json"]) == 0
    out, err = capsys.readouterr()
    d = json.loads(out)
    for key in ("utilization", "loss_rate", "drops", "mean_queue_packets", "bottleneck_packets", "goodput_bps_mean",
                "jain_fairness", "timeouts", "conservation_ok", "wall_seconds"):
        assert key in d, key
    assert 0 < d["utilization"] <= 1 and d["conservation_ok"] is True and d["wall_seconds"] > 0
    assert isinstance(d["bottleneck_packets"], int) and d["bottleneck_packets"] > 0


def test_cli_text(capsys):
    assert main(CLI) == 0
    out, _ = capsys.readouterr()
    assert "utilization" in out and "conservation  ok" in out and "Jain fairness" in out


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
def test_cli_out(capsys, tmp_path, fmt):
    import pandas as pd

    out = tmp_path / "run"
    assert main([*CLI, "--out", str(out), "--format", fmt, "--json", "--queue-trace", "10ms"]) == 0
    summary = json.loads(capsys.readouterr()[0])
    files = {p.name for p in out.iterdir()}
    for name in ("flows", "links", "queue_trace", "cwnd_traces", "queue_histogram", "cwnd_sum_histogram"):
        assert f"{name}.{fmt}" in files
    assert {"summary.json", "scenario.json"} <= files
    assert not [f for f in files if f.startswith(".")]  # no temp files left
    read = pd.read_parquet if fmt == "parquet" else pd.read_csv
    flows = read(out / f"flows.{fmt}")
    assert list(flows.columns)[:len(FLOW_COLUMNS)] == list(FLOW_COLUMNS) and len(flows) == 10
    assert len(read(out / f"queue_trace.{fmt}")) > 100
    saved = json.loads((out / "summary.json").read_text())
    assert saved["utilization"] == summary["utilization"]


def test_cli_plot(capsys, tmp_path):
    png = tmp_path / "fig.png"
    assert main([*CLI, "--plot", str(png)]) == 0
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_cli_file_runs(capsys, tmp_path):
    f = tmp_path / "s.toml"
    f.write_text('duration = "6s"\nwarmup = "1s"\n[dumbbell]\ncapacity = "10Mbps"\nflows = 3\nrtt = "40ms"\n'
                 'buffer = "0.5bdp"\n')
    assert main(["simulate", str(f), "--json", "--seed", "4", "--no-progress"]) == 0
    d = json.loads(capsys.readouterr()[0])
    assert d["seed"] == 4 and d["conservation_ok"] is True and not math.isnan(d["utilization"])


def test_docs_list_every_output_and_field():
    from pathlib import Path

    from bufsize.scenario import MEASURE_DEFAULTS, TCP_DEFAULTS

    doc = (Path(__file__).parents[2] / "docs" / "simulate.md").read_text()
    r = simulate(few_flows(duration="4s", warmup="1s"), progress=False)
    # the contract's summary keys and every field Python controls (new engine extras are not
    # checked here, so adding one does not turn main red before the docs catch up)
    names = SUMMARY_KEYS | set(TCP_DEFAULTS) | set(MEASURE_DEFAULTS) | set(r.flows.columns) | set(r.links.columns)
    missing = sorted(n for n in names if f"`{n}`" not in doc and f"`{n}` (" not in doc)
    assert not missing, f"docs/simulate.md does not describe {missing}"


# ------------------------------------------------------------------------ the binding itself

def test_binding_steps_and_is_spent_after_finish():
    sc = few_flows(duration="3s", warmup="1s")
    sim = _engine.Simulation(sc.to_json())
    assert (sim.now_ns(), sim.end_ns()) == (0, 3 * 10**9)
    sim.run_until(10**9)
    assert sim.now_ns() == 10**9
    sim.run_until(5 * 10**8)  # going back is a no-op
    assert sim.now_ns() == 10**9
    sim.run_until(10**12)  # capped at the end
    assert sim.now_ns() == 3 * 10**9
    res = json.loads(sim.finish())
    assert res["summary"]["conservation_ok"] is True
    with pytest.raises(RuntimeError, match="already finished"):
        sim.finish()
    with pytest.raises(RuntimeError, match="already finished"):
        sim.run_until(1)


def test_threads_run_side_by_side_with_identical_results():
    # run_until releases the GIL; simulations in threads must not disturb one another
    from concurrent.futures import ThreadPoolExecutor

    scs = [few_flows(seed=s, duration="4s", warmup="1s") for s in (1, 2)]
    serial = [simulate(sc, progress=False).raw["summary"] for sc in scs]
    with ThreadPoolExecutor(2) as pool:
        threaded = [r.raw["summary"] for r in pool.map(lambda sc: simulate(sc, progress=False), scs)]
    assert threaded == serial and serial[0] != serial[1]


def test_many_flows_small_buffer_keep_the_link_busy():
    # Paper 004's headline through the Python API: 400 flows, OC3, RTTs 20-140 ms, B = BDP/sqrt(n)
    # (78 packets of 1000 B) keeps utilization >= 97 %; twice that buffer gives more, not less.
    base = dict(capacity="155Mbps", flows=400, rtt="20ms..140ms", duration="30s", warmup="10s")
    one = simulate(Scenario.dumbbell(buffer="bdp/sqrt(n)", **base), progress=False).summary
    two = simulate(Scenario.dumbbell(buffer="2bdp/sqrt(n)", **base), progress=False).summary
    assert one["utilization"] >= 0.97, one["utilization"]
    assert two["utilization"] >= one["utilization"] - 1e-3
    assert two["loss_rate"] < one["loss_rate"]
    assert one["conservation_ok"] and two["conservation_ok"]


def test_window_traces_record_the_segments_outstanding():
    # A window-capped flow through a buffer that never fills keeps exactly its cap outstanding once
    # slow start has reached it; its flight column says so, and the column is the per-flow term of
    # the run's flight sum (one flow traced: the two agree in mean).
    sc = Scenario.dumbbell(capacity="10Mbps", flows=1, rtt="100ms", buffer="500pkt", duration="20s",
                           warmup="5s", max_window=40, cwnd_trace_flows=[0], cwnd_trace_interval="10ms")
    r = simulate(sc, progress=False)
    c = r.cwnd_traces
    assert list(c.columns) == ["flow", "t_s", "cwnd", "flight"]
    assert r.summary["drops"] == 0
    assert (c.flight == 40).all() and (c.cwnd >= 40).all()
    assert c.flight.mean() == pytest.approx(r.summary["flight_sum_mean"], abs=0.5)
