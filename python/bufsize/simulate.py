"""Run the packet-level simulator from Python: ``bufsize.simulate(scenario) -> SimResult``.

The Rust engine (``bufsize._engine.Simulation``) does the work; this module checks the scenario,
advances the engine in chunks of simulated time (so a progress bar can move and Ctrl-C is noticed
between chunks; the engine itself runs without the GIL), and turns the results JSON into a summary
dict and pandas DataFrames.
"""

from __future__ import annotations

import json
import math
import sys
import time
from pathlib import Path
from typing import Any, Mapping

from bufsize._json import json_safe  # noqa: F401  (re-exported: commands use it)
from bufsize.errors import BufsizeError, ScenarioError
from bufsize.scenario import Scenario

#: Runs expected to take longer than this (wall seconds) get a progress bar when one is allowed.
PROGRESS_AFTER_S = 2.0
#: Target wall time of one engine chunk: short enough for a lively bar and a prompt Ctrl-C.
_CHUNK_WALL_S = 0.25

FLOW_COLUMNS = ("id", "rtt_s", "start_s", "goodput_bps", "bytes_acked", "retransmits", "timeouts", "mean_cwnd")
#: Columns of :attr:`SimResult.transfers` as the engine reports them (``class_name`` is added).
TRANSFER_COLUMNS = ("class", "flow", "segments", "size_bytes", "start_s", "end_s", "delivered_s", "fct_s", "goodput_bps",
                    "acked_segments", "rtt_s", "mean_rtt_s", "drops", "congestion_events", "ss_packets",
                    "ca_packets", "retransmits", "timeouts", "think_s", "completed")
#: Columns of :attr:`SimResult.sources`.
SOURCE_COLUMNS = ("name", "kind", "target_bps", "offered_bps", "arrivals", "packets_sent", "packets_received",
                  "packets_dropped")


class EngineError(BufsizeError):
    """A failure inside the engine (a panic: a bug, not a bad scenario), as one line naming what
    the engine was doing and where it failed; the CLI prints it like any other error."""


class SimResult:
    """Results of one run.

    - ``summary``: dict of scalars (the engine's summary plus ``wall_seconds``, the wall time of the
      engine run itself: construction, simulation and building the results);
    - ``flows``: one row per flow (:data:`FLOW_COLUMNS`);
    - ``links``: one row per link (name, rate_bps, packets, bytes, drops, arrivals, utilization,
      max_queue_packets, max_queue_bytes; discipline, aqm_drops, overflow_drops, marks (ECN: packets
      marked CE instead of dropped), sojourn_mean_s and
      sojourn_p99_s, the last two null on drop-tail links other than the bottleneck), counted over
      the measurement window;
    - ``queue_trace``: columns ``t_s``, ``queue_packets`` (waiting at the bottleneck) and
      ``serialized_bits`` (bits serialized since the warm-up's end) (empty unless
      ``measure.queue_trace_interval_s``);
    - ``cwnd_traces``: long form, columns ``flow``, ``t_s``, ``cwnd``, ``flight`` (packets; flight = snd_nxt − snd_una, segments outstanding);
    - ``queue_histogram``: columns ``packets``, ``fraction`` (time fraction at each occupancy);
    - ``cwnd_sum_histogram``: columns ``cwnd_sum``, ``fraction``;
    - ``classes``: one row per flow class (``name``, ``kind`` long/finite/users/short, ``cc``, ``flows``);
      ``flows`` carries ``class`` (the index) and ``class_name``;
    - ``transfers``: one row per finite transfer (short flows, users' fetches, finite flows):
      size, start, completion, FCT, goodput, RTTs, losses, congestion events, slow-start and
      congestion-avoidance packets, think time, ``completed``; ``class_name`` added;
    - ``sources``: one row per traffic source (target and offered load in the window, UDP counters);
    - ``phases``: columns ``t_s``, ``slow_start``, ``congestion_avoidance`` (flows in each phase);
    - ``sobas``, ``sobas_decisions``, ``sobas_series`` (receive throughput per second),
      ``sobas_limits`` (the receive-buffer limit over time): flows with SOBAS at the receiver;
    - ``scenario``: the :class:`Scenario` that ran; ``raw``: the engine's results as a dict.
    """

    def __init__(self, scenario: Scenario, raw: Mapping[str, Any], wall_seconds: float):
        import numpy as np
        import pandas as pd

        self.scenario = scenario
        self.raw = dict(raw)
        self.summary: dict[str, Any] = dict(raw.get("summary", {}))
        self.summary["wall_seconds"] = wall_seconds
        # the stack that ran: its profile and every detail changed from it (bufsize.profiles)
        self.summary["profile"] = scenario.profile
        self.summary["stack"] = scenario.stack

        flows = raw.get("flows") or []
        self.flows = pd.DataFrame(flows, columns=list(FLOW_COLUMNS) if not flows else None)
        for col in FLOW_COLUMNS:
            if col not in self.flows.columns:
                self.flows[col] = np.nan
        self.flows = self.flows[list(FLOW_COLUMNS) + [c for c in self.flows.columns if c not in FLOW_COLUMNS]]

        traces = raw.get("traces") or {}
        q = traces.get("queue") or {}
        qt = np.asarray(q.get("t_s", []), dtype=float)
        self.queue_trace = pd.DataFrame({"t_s": qt,
                                         "queue_packets": np.asarray(q.get("packets", []), dtype=float),
                                         "serialized_bits": np.asarray(q.get("bits", [np.nan] * len(qt)),
                                                                       dtype=float)})
        parts = []
        for tr in traces.get("cwnd") or []:
            t = np.asarray(tr.get("t_s", []), dtype=float)
            parts.append(pd.DataFrame({"flow": np.full(len(t), int(tr["flow"]), dtype=np.int64), "t_s": t,
                                       "cwnd": np.asarray(tr.get("cwnd", []), dtype=float),
                                       "flight": np.asarray(tr.get("flight", [np.nan] * len(t)), dtype=float)}))
        self.cwnd_traces = (pd.concat(parts, ignore_index=True) if parts else
                            pd.DataFrame({"flow": np.array([], dtype=np.int64), "t_s": np.array([], dtype=float),
                                          "cwnd": np.array([], dtype=float), "flight": np.array([], dtype=float)}))

        qh = raw.get("queue_histogram")
        qh = qh if isinstance(qh, list) else (qh or {}).get("fractions", [])
        self.queue_histogram = pd.DataFrame({"packets": np.arange(len(qh), dtype=np.int64),
                                             "fraction": np.asarray(qh, dtype=float)})
        links = raw.get("links") or []
        self.links = pd.DataFrame(links) if links else pd.DataFrame(
            {c: [] for c in ("name", "rate_bps", "packets", "bytes", "drops", "arrivals", "utilization",
                             "max_queue_packets", "max_queue_bytes")})
        ch = raw.get("cwnd_sum_histogram") or {}
        bins = np.asarray(ch.get("bins", []), dtype=float)
        fr = np.asarray(ch.get("fractions", []), dtype=float)
        n = min(len(bins), len(fr))
        self.cwnd_sum_histogram = pd.DataFrame({"cwnd_sum": bins[:n], "fraction": fr[:n]})

        self.classes = pd.DataFrame(raw.get("classes") or [], columns=["name", "kind", "cc", "flows"])
        names = list(self.classes["name"])
        if "class" in self.flows.columns and names:
            self.flows["class_name"] = [names[int(c)] for c in self.flows["class"]]
        self.transfers = pd.DataFrame(raw.get("transfers") or [], columns=list(TRANSFER_COLUMNS))
        for col in ("end_s", "fct_s", "goodput_bps", "mean_rtt_s", "think_s"):
            self.transfers[col] = pd.to_numeric(self.transfers[col], errors="coerce").astype(float)
        self.transfers["class_name"] = [names[int(c)] for c in self.transfers["class"]] if names else []
        self.sources = pd.DataFrame(raw.get("sources") or [], columns=list(SOURCE_COLUMNS))
        self.sources["target_bps"] = pd.to_numeric(self.sources["target_bps"], errors="coerce").astype(float)
        sb = raw.get("sobas") or []
        self.sobas = pd.DataFrame(
            [{k: v for k, v in x.items() if k not in ("decisions", "rate_t_s", "rate_bps", "limit_t_s",
                                                      "limit_series_bytes")} for x in sb],
            columns=["flow", "phase", "limit_bytes", "initial_limit_bytes", "capacity_estimate_bps", "rtt_s",
                     "probes_sent", "echoes_received", "forward_losses"])
        self.sobas_decisions = pd.DataFrame(
            [{"flow": x["flow"], **d} for x in sb for d in x["decisions"]],
            columns=["flow", "t_s", "rate_bps", "rtt_s", "congested", "probes_lost", "limit_bytes"])
        self.sobas_series = pd.DataFrame(
            [{"flow": x["flow"], "t_s": t, "receive_bps": r} for x in sb for t, r in zip(x["rate_t_s"], x["rate_bps"])],
            columns=["flow", "t_s", "receive_bps"])
        self.sobas_limits = pd.DataFrame(
            [{"flow": x["flow"], "t_s": t, "limit_bytes": v} for x in sb
             for t, v in zip(x["limit_t_s"], x["limit_series_bytes"])], columns=["flow", "t_s", "limit_bytes"])
        ph = traces.get("phases") or {}
        self.phases = pd.DataFrame({"t_s": np.asarray(ph.get("t_s", []), dtype=float),
                                    "slow_start": np.asarray(ph.get("slow_start", []), dtype=np.int64),
                                    "congestion_avoidance": np.asarray(ph.get("congestion_avoidance", []),
                                                                       dtype=np.int64)})

    def utilization_series(self, interval_s: float | None = None) -> Any:
        """Bottleneck utilization per interval over the measurement window, as a DataFrame with
        ``t_s`` (the interval's end), ``start_s`` and ``utilization``.

        Needs ``measure.queue_trace_interval_s`` (the sampling step). ``interval_s`` (default: the
        sampling step) is rounded to a whole number of steps; the intervals start at the warm-up's
        end, and a last partial interval is dropped. Each value is the exact share of the interval
        the bottleneck spent serializing (packets straddling an edge count in part).
        """
        import numpy as np
        import pandas as pd

        q = (self.raw.get("traces") or {}).get("queue") or {}
        step = (self.scenario.to_dict().get("measure") or {}).get("queue_trace_interval_s")
        tr = self.queue_trace
        if step is None or tr.empty or "rate_bps" not in q:
            raise ValueError("utilization_series needs measure.queue_trace_interval_s (no queue trace in this run)")
        step = float(step)
        k = 1 if interval_s is None else int(round(float(interval_s) / step))
        if k < 1:
            raise ValueError(f"interval_s = {interval_s} is shorter than the sampling step {step} s")
        warm, end = float(self.scenario.warmup_s), float(self.scenario.duration_s)
        rate = float(q["rate_bps"])
        # The samples start at the end of the warm-up; the run's end closes the last interval,
        # where the serialized total is the window's (utilization x rate x window).
        t = np.append(tr["t_s"].to_numpy(), end)
        bits = np.append(tr["serialized_bits"].to_numpy(), float(self.summary["utilization"]) * rate * (end - warm))
        idx = np.arange(0, len(t), k)
        if idx[-1] != len(t) - 1:
            idx = np.append(idx, len(t) - 1)
        t0, t1 = t[idx[:-1]], t[idx[1:]]
        keep = (t1 - t0) > (k * step) * (1 - 1e-9)
        util = np.diff(bits[idx]) / (rate * (t1 - t0))
        return pd.DataFrame({"start_s": t0[keep], "t_s": t1[keep], "utilization": util[keep]})

    def fct_by_size(self, edges: Any = None, confidence: float = 0.95) -> Any:
        """Mean flow completion time per size class with a confidence interval (Student t over the
        completed transfers of each class). ``edges``: segment-count bin edges (default powers of
        two); a transfer of s segments falls in [edges[k], edges[k+1]).

        Returns a DataFrame: ``size_lo``, ``size_hi`` (segments), ``n``, ``fct_mean_s``, ``fct_lo_s``,
        ``fct_hi_s``.
        """
        import numpy as np
        import pandas as pd
        from scipy import stats

        done = self.transfers[self.transfers["completed"].astype(bool)]
        seg = done["segments"].to_numpy()
        if edges is None:
            top = max(2, int(seg.max()) + 1) if len(seg) else 2
            edges = [1] + [2**k for k in range(1, int(np.ceil(np.log2(top))) + 1)]
            edges[-1] = max(edges[-1], top)
        edges = list(edges)
        rows = []
        for lo, hi in zip(edges[:-1], edges[1:]):
            x = done["fct_s"].to_numpy()[(seg >= lo) & (seg < hi)]
            n = len(x)
            mean = float(np.mean(x)) if n else float("nan")
            if n > 1:
                half = float(stats.t.ppf(0.5 + confidence / 2, n - 1) * np.std(x, ddof=1) / np.sqrt(n))
            else:
                half = float("nan")
            rows.append({"size_lo": lo, "size_hi": hi, "n": n, "fct_mean_s": mean,
                         "fct_lo_s": mean - half, "fct_hi_s": mean + half})
        return pd.DataFrame(rows)

    def tables(self) -> dict[str, Any]:
        """The DataFrames by name (what :meth:`to_dir` writes)."""
        return {"flows": self.flows, "links": self.links, "queue_trace": self.queue_trace, "cwnd_traces": self.cwnd_traces,
                "queue_histogram": self.queue_histogram, "cwnd_sum_histogram": self.cwnd_sum_histogram,
                "classes": self.classes, "transfers": self.transfers, "sources": self.sources,
                "phases": self.phases, "sobas": self.sobas, "sobas_decisions": self.sobas_decisions,
                "sobas_series": self.sobas_series, "sobas_limits": self.sobas_limits}

    def plot(self, path: str | Path | None = None) -> Any:
        """``simulate --plot``: the bottleneck queue and the traced flows' cwnd over time (the
        scenario needs its traces: :func:`bufsize.plots.simulation.with_traces`). With ``path`` it
        is written there; without, the figure is returned."""
        from bufsize.plots.simulation import plot_simulation

        return plot_simulation(self, path)

    def to_dir(self, path: str | Path, *, format: str = "parquet") -> Path:
        """Write every table (``NAME.parquet`` or ``NAME.csv``), ``summary.json`` and ``scenario.json``.

        Each file is written to a temporary name in the same directory and renamed into place, so a
        reader never sees a half-written file.
        """
        if format not in ("parquet", "csv"):
            raise BufsizeError(f"unknown table format {format!r} (known: parquet, csv)", argument="format")
        out = Path(path)
        try:
            out.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise BufsizeError(f"cannot create directory {str(out)!r}: {exc.strerror or exc}", argument="out") from None
        if not out.is_dir():
            raise BufsizeError(f"{str(out)!r} is not a directory", argument="out")
        # the small files first: a full disk then loses a table, not the summary
        writes: list[tuple[str, Any]] = [
            ("summary.json", lambda f: f.write(json.dumps(json_safe(self.summary), indent=2).encode() + b"\n")),
            ("scenario.json", lambda f: f.write(self.scenario.to_json(indent=2).encode() + b"\n"))]
        for name, df in self.tables().items():
            if format == "parquet":
                writes.append((f"{name}.parquet", lambda f, df=df: df.to_parquet(f, index=False)))
            else:
                writes.append((f"{name}.csv", lambda f, df=df: df.to_csv(f, index=False)))
        done: list[str] = []
        for fname, write in writes:
            try:
                _atomic(out / fname, write)
            except OSError as exc:   # a full disk, a quota: one line, and what was written stays whole
                raise BufsizeError(f"cannot write {str(out / fname)!r}: {exc.strerror or exc}"
                                   + (f" (written: {', '.join(done)})" if done else ""), argument="out") from None
            done.append(fname)
        return out

    def __repr__(self) -> str:
        from bufsize.display import simresult_repr

        return simresult_repr(self)

    def _repr_html_(self) -> str:
        from bufsize.display import simresult_html

        return simresult_html(self)


def _atomic(target: Path, write) -> None:
    from bufsize.experiments.store import atomic_write

    atomic_write(target, write)


def _as_scenario(scenario: Any) -> Scenario:
    if isinstance(scenario, Scenario):
        return scenario
    if isinstance(scenario, Mapping):
        return Scenario.from_dict(scenario)
    if isinstance(scenario, (str, Path)):
        return Scenario.from_file(scenario)
    raise ScenarioError(f"expected a Scenario, a dict or a file path, got {type(scenario).__name__}",
                        argument="scenario")


def _engine():
    try:
        from bufsize import _engine
    except ImportError as exc:  # pragma: no cover - a broken install, not a user error
        raise RuntimeError("the Rust engine bufsize._engine is not built; run `make install`") from exc
    return _engine


def simulate(scenario: Scenario | Mapping[str, Any] | str | Path, *, progress: bool | None = None,
             allow_over_memory: bool = False) -> SimResult:
    """Run one simulation and return its :class:`SimResult`.

    ``scenario``: a :class:`Scenario`, a dict in the scenario schema, or a TOML/JSON file path.
    ``progress``: ``True`` shows a rich progress bar on stderr for any run (rich draws it only on
    a terminal or in Jupyter; redirected stderr stays clean), ``False`` never, ``None`` shows one
    when stderr is a terminal and the run is expected to last more than
    :data:`PROGRESS_AFTER_S` seconds. Ctrl-C stops the run between chunks and raises
    :class:`KeyboardInterrupt` with the bar closed.

    Before it starts, the run's cost is estimated (:func:`bufsize.cost.estimate`): a run that needs
    more memory than the machine has raises :class:`BufsizeError` unless ``allow_over_memory``; a
    run expected to take more than :data:`bufsize.cost.LONG_RUN_S` seconds says so on stderr (unless
    ``progress=False``), and its progress bar shows from the start.
    """
    from bufsize import cost

    sc = _as_scenario(scenario)
    est = cost.estimate(sc)
    cost.check_fits(est, allow_over_memory=allow_over_memory)
    if progress is not False and est.wall_seconds > cost.LONG_RUN_S:
        print(f"bufsize: this run needs {est.describe()}", file=sys.stderr, flush=True)
    engine = _engine()
    show = progress if progress is not None else bool(getattr(sys.stderr, "isatty", lambda: False)())
    bar: list = []  # [Progress, task id] once a bar shows
    t0 = time.perf_counter()
    try:
        if show and (progress is True or est.wall_seconds > PROGRESS_AFTER_S):
            # a long run: the bar from the start (building many flows takes a while too)
            bar.extend(_start_bar(int(round(sc.duration_s * 1e9))))
        try:
            sim = engine.Simulation(sc.to_json())
            text = _run(sim, show, progress, t0, bar)
        except ValueError as exc:
            # the engine's message is already "field: reason"
            raise ScenarioError(str(exc)) from None
        except engine.EngineError as exc:  # a panic inside the engine, caught by the binding
            raise EngineError(str(exc)) from None
    finally:
        if bar:
            bar[0].stop()
    wall = time.perf_counter() - t0
    return SimResult(sc, json.loads(text), wall)


def _run(sim, show: bool, progress: bool | None, t0: float, bar: list) -> str:
    """Advance ``sim`` to its end in chunks; a bar (``bar`` = [Progress, task], empty for none) is
    started once the run looks long and follows it. Returns the results JSON."""
    end = sim.end_ns()
    chunk = max(1, min(end, 10_000_000))  # start with 10 ms of simulated time, then adapt
    while sim.now_ns() < end:
        before = sim.now_ns()
        target = min(end, before + chunk)
        c0 = time.perf_counter()
        sim.run_until(target)
        dt = time.perf_counter() - c0
        if sim.now_ns() <= before:  # the engine did not advance: let finish() take it to the end
            break
        # adapt the chunk so one call lasts about _CHUNK_WALL_S of wall time
        if dt > 0:
            chunk = int(max(1_000_000, min(end, chunk * min(4.0, max(0.25, _CHUNK_WALL_S / dt)))))
        else:
            chunk = min(end, chunk * 4)
        if show and not bar and sim.now_ns() < end:
            elapsed = time.perf_counter() - t0
            expected = elapsed * end / max(1, sim.now_ns())
            if progress is True or expected > PROGRESS_AFTER_S:
                bar.extend(_start_bar(end))  # the caller stops it
        if bar:
            bar[0].update(bar[1], completed=sim.now_ns())
    return sim.finish()


def _start_bar(end_ns: int):
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

    bar = Progress(TextColumn("simulating"), BarColumn(),
                   TextColumn("{task.fields[simt]}"), TimeElapsedColumn(), TimeRemainingColumn(),
                   console=Console(stderr=True), transient=True)
    task = bar.add_task("sim", total=end_ns, simt="")
    bar.start()

    # show simulated seconds next to the bar
    orig_update = bar.update

    def update(task_id, completed=None, **kw):
        if completed is not None:
            kw["simt"] = f"{completed / 1e9:.1f}/{end_ns / 1e9:g} s"
        orig_update(task_id, completed=completed, **kw)

    bar.update = update  # type: ignore[method-assign]
    return bar, task


def summary_text(result: SimResult) -> str:
    """A short readable summary (what ``bufsize simulate`` prints by default)."""
    from bufsize import units

    s = result.summary
    sc = result.scenario
    lim = sc.buffer_limit
    buf = (f"{lim['limit_packets']} pkt" if "limit_packets" in lim else
           units.format_size(lim["limit_bytes"]) if "limit_bytes" in lim else "unlimited")
    disc = sc.buffer_discipline
    if disc:  # a queue discipline: its name beside its hard limit
        buf = f"{buf} {disc['name']}"

    def g(key, fmt="{:.4g}", scale=1.0):
        v = s.get(key)
        if v is None or (isinstance(v, float) and math.isnan(v)):
            return "n/a"
        return fmt.format(v * scale)

    lines = [
        f"scenario      {sc.n_flows} flow{'s' if sc.n_flows != 1 else ''}, buffer {buf}, {sc.duration_s:g} s (measured after {sc.warmup_s:g} s), "
        f"seed {sc.seed}",
        f"stack         {sc.stack}",
        f"utilization   {g('utilization', '{:.2f} %', 100)}   ({g('bottleneck_packets', '{:.0f}')} packets sent "
        f"by the bottleneck in {g('measure_seconds', '{:g}')} s)",
        f"loss rate     {g('loss_rate', '{:.3g} %', 100)}   ({g('drops', '{:.0f}')} drops, "
        f"{g('timeouts', '{:.0f}')} timeouts, {g('fast_retransmits', '{:.0f}')} fast retransmits)",
        f"queue         mean {g('mean_queue_packets', '{:.1f}')} pkt, std {g('queue_std_packets', '{:.1f}')} pkt, "
        f"empty {g('frac_time_queue_empty', '{:.1f} %', 100)}, full {g('frac_time_queue_full', '{:.1f} %', 100)}",
        f"queue delay   mean {_fmt_t(s.get('queue_delay_mean_s'))}, "
        f"p50 {_fmt_t(s.get('queue_delay_p50_s'), s.get('queue_delay_bin_s'))}, "
        f"p99 {_fmt_t(s.get('queue_delay_p99_s'), s.get('queue_delay_bin_s'))}",
        *([f"{s['queue_discipline']:<13} {g('aqm_drops', '{:.0f}')} drops by the discipline, "
           f"{g('overflow_drops', '{:.0f}')} over its hard limit; sojourn as queue delay above"]
          if s.get("queue_discipline", "fifo") != "fifo" else []),
        *([f"ECN marks     {g('marks', '{:.0f}')} packets marked CE instead of dropped "
           f"({g('mark_rate', '{:.3g} %', 100)} of the arrivals; not in the loss rate)"]
          if s.get("marks") else []),
        f"goodput       {_fmt_r(s.get('goodput_bps_total'))} total, {_fmt_r(s.get('goodput_bps_mean'))} per flow, "
        f"Jain fairness {g('jain_fairness', '{:.3f}')}",
        f"sum of cwnd   mean {g('cwnd_sum_mean', '{:.1f}')} pkt, std {g('cwnd_sum_std', '{:.1f}')} pkt",
        f"conservation  {'ok' if s.get('conservation_ok') else 'FAILED'} (sent {g('sent', '{:.0f}')} = delivered "
        f"{g('delivered', '{:.0f}')} + dropped {g('dropped', '{:.0f}')} + in flight {g('in_flight', '{:.0f}')})",
        f"run           {g('events', '{:.3g}')} events in {s['wall_seconds']:.2f} s wall "
        f"(engine {s.get('engine_version', '?')})",
    ]
    return "\n".join(lines)


def _fmt_t(v, bin_s=None) -> str:
    """A time; a percentile below the delay histogram's first bin is '< BIN' (the histogram cannot
    say more: 'p50 171 ns' was an interpolation inside the bin where the zero delays sit)."""
    from bufsize import units

    if v is None:
        return "n/a"
    if bin_s and 0 <= v < bin_s:
        return "< " + units.format_time(bin_s, 3)
    return units.format_time(v, 3)


def _fmt_r(v) -> str:
    from bufsize import units

    return "n/a" if v is None else units.format_rate(v, 4)


# ``import bufsize.simulate`` binds the *module* to the attribute ``bufsize.simulate`` (Python sets
# a submodule as an attribute of its package), which would hide the function that
# ``bufsize.__getattr__`` offers. Making this module callable keeps ``bufsize.simulate(scenario)``
# working either way.
class _CallableModule(type(sys)):
    def __call__(self, *args, **kwargs):
        return simulate(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
