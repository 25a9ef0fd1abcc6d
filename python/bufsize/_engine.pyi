"""Type stubs of the Rust extension ``bufsize._engine`` (crates/py/src/*.rs).

The extension converts arguments and results and nothing else; scenarios and results cross the
boundary as JSON text. Keep these in step with the ``#[pyfunction]``/``#[pymethods]`` there
(tests/api/test_engine_stub.py checks that every name the built extension exports is here).
"""

from typing import Any

def engine_version() -> str:
    """Version string of the Rust engine linked into this extension."""

def congestion_controls() -> list[str]:
    """Names of the congestion controls the engine knows."""

def delay_run(tun_name: str, default_delay_ns: int, entries: list[tuple[int, int]], capacity: int = 16384,
              rt_priority: int = 50, lock_memory: bool = True, stats_path: str | None = None,
              stats_interval_s: float = 0.5, max_runtime_s: float = 0.0) -> str:
    """Run the testbed's delay element on a tun device until stopped; returns its statistics as JSON.

    Raises OSError when the device or the real-time setup fails."""

class EngineError(RuntimeError):
    """A panic inside the engine (a bug, not a bad scenario), as one line: what the engine was
    doing, the panic's message and where. The Simulation that raised it is spent."""

def _panic_for_test(message: str) -> None:
    """Panic inside the binding on purpose (tests of the panic guard)."""

class Simulation:
    """One simulation run, built from a scenario in the engine's SI JSON form (ValueError:
    "field: reason" for an invalid one)."""

    def __init__(self, scenario_json: str) -> None: ...
    def run_until(self, t_ns: int) -> None:
        """Advance simulated time to ``t_ns`` (capped at the end); releases the GIL."""
    def window_so_far(self) -> dict[str, Any]:
        """The bottleneck's counters over the measurement window so far: ``now_ns``, ``window_s``,
        ``bits`` (serialized in the window), ``rate_bps``, ``arrivals``, ``drops``,
        ``queue_area_packet_s`` (the queue's integral over the window)."""
    def end_now(self) -> None:
        """End the run at the current time: ``finish()`` then reports the window [warm-up, now)
        (bits serialized after now are not counted). Does nothing during the warm-up."""
    def set_buffer(self, packets: int) -> None:
        """Change the bottleneck's limit that follows the scenario's ``warm_buffer``, before the
        warm buffer's end: the run goes on exactly as the same scenario with that buffer would
        (ValueError without a warm buffer still ahead)."""
    def now_ns(self) -> int:
        """Current simulated time, nanoseconds."""
    def end_ns(self) -> int:
        """Simulated time at which the run ends, nanoseconds."""
    def finish(self) -> str:
        """Run to the end (GIL released) and return the results as JSON; the run is spent after it."""

class Sobas:
    """SOBAS's receive-buffer controller (paper 001), driven by the transfer client's events."""

    def __init__(self, mss: int, max_buffer: int, *, min_buffer: int | None = None, trains: int = 5,
                 train_deadline_s: float = 5.0, sample_period_s: float = 1.0, slope_samples: int = 5,
                 slope_tolerance: float = 0.5, window_reached: float = 0.9, probe_memory: int = 1000,
                 increase_segments: int = 2, rtt_gain: float = 0.125, readjust: bool = False) -> None: ...
    @property
    def limit(self) -> int:
        """The receive-buffer limit to apply now (bytes)."""
    @property
    def phase(self) -> str: ...
    @property
    def srtt(self) -> float | None: ...
    @property
    def capacity_estimate(self) -> float | None: ...
    @property
    def initial_limit(self) -> int | None: ...
    @property
    def samples(self) -> list[float]: ...
    @property
    def probe_losses(self) -> tuple[int, int]: ...
    def decisions(self) -> list[dict[str, Any]]:
        """The rate-saturation decisions so far, as dicts."""
    def tick(self, now_ns: int) -> int | None:
        """Each event returns the new limit when it changed, else None."""
    def on_bytes(self, now_ns: int, nbytes: int) -> int | None: ...
    def on_rtt(self, now_ns: int, rtt_s: float) -> int | None: ...
    def on_train(self, now_ns: int, nbytes: int, dispersion_ns: int) -> int | None: ...
    def on_probe(self, now_ns: int, lost_forward: bool, rtt_s: float | None = None) -> int | None: ...

class CaptureReader:
    """Reads a packet capture in steps and turns it into per-flow records."""

    def __init__(self, path: str, *, idle_timeout_s: float = 60.0, bin_s: float = 0.1,
                 linger_s: float = 1.0) -> None: ...
    def step(self, budget: int) -> bool:
        """Read about ``budget`` more bytes (GIL released); False once the file is done."""
    @property
    def position(self) -> int:
        """Bytes of the file consumed so far."""
    @property
    def file_size(self) -> int: ...
    @property
    def live_flows(self) -> int: ...
    def take_records(self) -> dict[str, list[Any]]:
        """Flow records finished since the last call, as a dict of equal-length lists."""
    def info(self) -> dict[str, Any]: ...
