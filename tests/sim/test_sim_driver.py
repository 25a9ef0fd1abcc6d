"""The Python driver around the engine, with a stand-in engine: chunked advancing, the progress
bar, Ctrl-C, turning results JSON into DataFrames, and atomic table files.

The real engine is exercised in test_sim_engine.py; here a fake `Simulation` records how it is
driven, so the driver's own logic is checked independently of the engine's speed.
"""

import json

import pandas as pd
import pytest

from bufsize import simulate as sim_mod
from bufsize.scenario import Scenario
from bufsize.simulate import FLOW_COLUMNS, SimResult


def fake_results(n_flows=3, queue=True, cwnd_flows=(0, 1)):
    return {
        "summary": {"utilization": 0.97, "loss_rate": 0.01, "drops": 10, "mean_queue_packets": 12.5,
                    "queue_std_packets": 3.0, "max_queue_packets": 20, "bottleneck_packets": 1000,
                    "bottleneck_bytes": 10**6, "goodput_bps_mean": 1e6, "goodput_bps_total": 3e6,
                    "jain_fairness": 0.99, "timeouts": 0, "fast_retransmits": 10, "frac_time_queue_empty": 0.1,
                    "frac_time_queue_full": 0.05, "queue_delay_mean_s": 0.001, "queue_delay_p50_s": 0.001,
                    "queue_delay_p99_s": 0.002, "queue_delay_bin_s": 1e-5, "cwnd_sum_mean": 50.0,
                    "cwnd_sum_std": 5.0, "sent": 2000, "delivered": 1980, "dropped": 10, "in_flight": 10,
                    "conservation_ok": True, "events": 12345, "engine_version": "0.1.0", "seed": 1,
                    "measure_seconds": 5.0},
        "queue_histogram": [0.1, 0.2, 0.7],
        "cwnd_sum_histogram": {"bins": [40.0, 50.0, 60.0], "bin_width": 10.0, "fractions": [0.25, 0.5, 0.25]},
        "flows": [{"id": i, "rtt_s": 0.05, "start_s": 0.1 * i, "goodput_bps": 1e6, "bytes_acked": 625000,
                   "retransmits": 3, "timeouts": 0, "mean_cwnd": 16.0} for i in range(n_flows)],
        "links": [{"name": "bn", "rate_bps": 10e6, "packets": 1000, "bytes": 10**6, "drops": 10, "arrivals": 1010,
                   "utilization": 0.97, "max_queue_packets": 20, "max_queue_bytes": 20000}],
        "traces": {"queue": {"t_s": [0.0, 0.01, 0.02], "packets": [0, 3, 5]} if queue else None,
                   "cwnd": [{"flow": f, "t_s": [0.0, 0.01], "cwnd": [2.0, 4.0]} for f in cwnd_flows]},
    }


class FakeEngine:
    """Stands in for bufsize._engine: each run_until 'costs' some wall time via a fake clock."""

    def __init__(self, interrupt_at=None, results=None):
        self.calls = []
        self.finished = 0
        self.interrupt_at = interrupt_at
        self.results = results or fake_results()
        engine = self

        class EngineError(Exception):
            pass

        self.EngineError = EngineError

        class Simulation:
            def __init__(self, text):
                self.scenario = json.loads(text)
                self.now = 0
                self.end = int(round(self.scenario["duration_s"] * 1e9))

            def run_until(self, t):
                engine.calls.append(t)
                if engine.interrupt_at is not None and len(engine.calls) >= engine.interrupt_at:
                    raise KeyboardInterrupt
                self.now = min(max(self.now, t), self.end)

            def now_ns(self):
                return self.now

            def end_ns(self):
                return self.end

            def finish(self):
                engine.finished += 1
                return json.dumps(engine.results)

        self.Simulation = Simulation


@pytest.fixture
def small():
    return Scenario.dumbbell(capacity="10Mbps", flows=3, rtt="50ms", buffer="20pkt", duration="6s", warmup="1s")


def test_chunks_cover_the_run_in_order(monkeypatch, small):
    eng = FakeEngine()
    monkeypatch.setattr(sim_mod, "_engine", lambda: eng)
    r = sim_mod.simulate(small, progress=False)
    assert eng.calls == sorted(eng.calls) and eng.calls[-1] == 6 * 10**9
    assert len(eng.calls) >= 2  # advanced in several chunks, starting with 10 ms
    assert eng.calls[0] == 10_000_000
    assert eng.finished == 1
    assert r.summary["wall_seconds"] >= 0 and r.summary["utilization"] == 0.97


def test_progress_bar_shown_when_asked_and_closed(monkeypatch, small):
    eng = FakeEngine()
    monkeypatch.setattr(sim_mod, "_engine", lambda: eng)
    bars = []
    real = sim_mod._start_bar

    def spy(end):
        bar, task = real(end)
        bars.append(bar)
        return bar, task

    monkeypatch.setattr(sim_mod, "_start_bar", spy)
    sim_mod.simulate(small, progress=True)
    assert len(bars) == 1 and bars[0].finished and not bars[0].live.is_started
    bars.clear()
    sim_mod.simulate(small, progress=False)
    assert bars == []


def test_no_bar_for_a_quick_run_when_not_forced(monkeypatch, small):
    eng = FakeEngine()
    monkeypatch.setattr(sim_mod, "_engine", lambda: eng)
    monkeypatch.setattr(sim_mod.sys.stderr, "isatty", lambda: True, raising=False)
    started = []
    monkeypatch.setattr(sim_mod, "_start_bar", lambda end: started.append(end) or (_ for _ in ()).throw(AssertionError))
    sim_mod.simulate(small, progress=None)  # the fake runs in microseconds: expected < 2 s
    assert started == []


def test_ctrl_c_stops_between_chunks(monkeypatch, small):
    eng = FakeEngine(interrupt_at=3)
    monkeypatch.setattr(sim_mod, "_engine", lambda: eng)
    bars = []
    real = sim_mod._start_bar
    monkeypatch.setattr(sim_mod, "_start_bar", lambda end: bars.append(real(end)) or bars[-1])
    with pytest.raises(KeyboardInterrupt):
        sim_mod.simulate(small, progress=True)
    assert len(eng.calls) == 3 and eng.finished == 0
    assert bars and not bars[0][0].live.is_started  # the bar was stopped


def test_ctrl_c_in_the_cli_is_one_line_exit_130(monkeypatch, capsys, tmp_path):
    from bufsize.cli import main

    eng = FakeEngine(interrupt_at=2)
    monkeypatch.setattr(sim_mod, "_engine", lambda: eng)
    out = tmp_path / "out"
    code = main(["simulate", "--capacity", "10Mbps", "--flows", "3", "--rtt", "50ms", "--buffer", "20pkt",
                 "--duration", "6s", "--warmup", "1s", "--out", str(out), "--no-progress"])
    _, err = capsys.readouterr()
    assert code == 130 and err == "bufsize: interrupted\n"
    assert not out.exists()  # nothing half-written


def test_result_tables(small):
    r = SimResult(small, fake_results(), 1.5)
    assert list(r.flows.columns) == list(FLOW_COLUMNS) and len(r.flows) == 3
    assert list(r.queue_trace.columns) == ["t_s", "queue_packets", "serialized_bits"] and len(r.queue_trace) == 3
    assert list(r.cwnd_traces.columns) == ["flow", "t_s", "cwnd", "flight"] and sorted(r.cwnd_traces["flow"].unique()) == [0, 1]
    assert r.queue_histogram["packets"].tolist() == [0, 1, 2]
    assert r.queue_histogram["fraction"].sum() == pytest.approx(1.0)
    assert r.cwnd_sum_histogram["cwnd_sum"].tolist() == [40.0, 50.0, 60.0]
    assert r.links.loc[0, "name"] == "bn"
    assert r.summary["wall_seconds"] == 1.5


def test_result_tables_without_traces(small):
    r = SimResult(small, fake_results(n_flows=0, queue=False, cwnd_flows=()), 0.1)
    assert list(r.flows.columns) == list(FLOW_COLUMNS) and len(r.flows) == 0
    assert list(r.queue_trace.columns) == ["t_s", "queue_packets", "serialized_bits"] and len(r.queue_trace) == 0
    assert list(r.cwnd_traces.columns) == ["flow", "t_s", "cwnd", "flight"] and len(r.cwnd_traces) == 0


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
def test_to_dir_writes_every_table_atomically(tmp_path, small, fmt):
    r = SimResult(small, fake_results(), 1.0)
    out = r.to_dir(tmp_path / "run", format=fmt)
    names = sorted(p.name for p in out.iterdir())
    tables = ["classes", "cwnd_sum_histogram", "cwnd_traces", "flows", "links", "phases", "queue_histogram",
              "queue_trace", "sobas", "sobas_decisions", "sobas_limits", "sobas_series", "sources", "transfers"]
    assert names == sorted([f"{t}.{fmt}" for t in tables] + ["scenario.json", "summary.json"])
    read = pd.read_parquet if fmt == "parquet" else pd.read_csv
    flows = read(out / f"flows.{fmt}")
    pd.testing.assert_frame_equal(flows, r.flows, check_dtype=False)
    assert json.loads((out / "summary.json").read_text())["wall_seconds"] == 1.0
    assert Scenario.from_file(out / "scenario.json") == small


def test_to_dir_leaves_no_temp_file_on_failure(tmp_path, small, monkeypatch):
    r = SimResult(small, fake_results(), 1.0)

    def boom(*a, **k):
        raise OSError("disk full")

    monkeypatch.setattr(pd.DataFrame, "to_csv", boom)
    from bufsize.errors import BufsizeError

    with pytest.raises(BufsizeError, match="disk full"):
        r.to_dir(tmp_path / "run", format="csv")
    # no temporary file is left; what was written before the failure (the small files) is whole
    assert sorted(p.name for p in (tmp_path / "run").iterdir()) == ["scenario.json", "summary.json"]


def test_to_dir_bad_format(tmp_path, small):
    from bufsize.errors import BufsizeError

    with pytest.raises(BufsizeError, match="format: unknown table format"):
        SimResult(small, fake_results(), 1.0).to_dir(tmp_path, format="xlsx")


def test_bufsize_simulate_is_callable_after_submodule_import(monkeypatch, small):
    import bufsize
    import bufsize.simulate  # noqa: F401  (binds the module to bufsize.simulate)

    eng = FakeEngine()
    monkeypatch.setattr(sim_mod, "_engine", lambda: eng)
    r = bufsize.simulate(small, progress=False)
    assert isinstance(r, SimResult)


def test_plot_writes_an_image(tmp_path, small):
    from bufsize.plots.simulation import plot_simulation

    r = SimResult(small, fake_results(), 1.0)
    for name in ("f.png", "f.svg"):
        p = plot_simulation(r, tmp_path / name)
        assert p.stat().st_size > 5_000
    assert (tmp_path / "f.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # without traces the figure still comes out (with a note instead of curves)
    bare = SimResult(small, fake_results(queue=False, cwnd_flows=()), 1.0)
    assert plot_simulation(bare, tmp_path / "bare.png").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bare.png", "f.png", "f.svg"]


def test_with_traces_keeps_existing_choices(small):
    from bufsize.plots.simulation import with_traces

    m = with_traces(small).to_dict()["measure"]
    assert m["cwnd_trace_flows"] == [0, 1, 2] and m["queue_trace_interval_s"] == pytest.approx(6 / 20_000)
    chosen = small.replace(measure={"queue_trace_interval": "1ms", "cwnd_trace_flows": [2]})
    m = with_traces(chosen).to_dict()["measure"]
    assert m["cwnd_trace_flows"] == [2] and m["queue_trace_interval_s"] == 0.001


def test_summary_json_is_strict_json(tmp_path, small):
    res = fake_results()
    res["summary"]["jain_fairness"] = float("nan")  # e.g. no flow delivered anything
    out = SimResult(small, res, 1.0).to_dir(tmp_path / "run", format="csv")
    text = (out / "summary.json").read_text()
    assert "NaN" not in text and json.loads(text)["jain_fairness"] is None
