"""What a verification says while it runs: one line per decided size, readable by people and code.

A verification reports through one callback, ``say(line)`` (the CLI prints the lines on stderr,
:func:`bufsize.api.recommend` passes them to the function given as ``progress``). Every line is a
``str``; the line of a decided size is a :class:`SizeLine`, a ``str`` that also carries what it says
as fields (the size, its verdict, the means over its seeds, the runs so far, the time spent and the
time-left guide), so a notebook or a script can follow the search without parsing text.
:class:`VerifyBar` draws those fields as a progress bar (rich; in Jupyter it renders in the cell).
"""

from __future__ import annotations

import math
from typing import Any


class SizeLine(str):
    """A decided size's progress line, with its fields: ``size`` (packets, or the marking threshold K
    where ``unit`` is "K"), ``verdict`` ("meets", "fails" or "unclear"), ``seeds``, ``utilization``
    and ``loss_rate`` (means over the seeds), ``runs`` (simulated so far in this verification),
    ``cached_runs`` (answered by the run cache), ``expected_runs`` (a typical search's count; 0 when
    unknown), ``elapsed_s`` and ``eta_s`` (the time-left guide: the typical count at the mean time per
    run so far; None when unknown)."""

    size: int
    unit: str
    verdict: str
    seeds: int
    utilization: float
    loss_rate: float
    runs: int
    cached_runs: int
    expected_runs: int
    elapsed_s: float
    eta_s: float | None

    def __new__(cls, text: str, **fields: Any) -> "SizeLine":
        line = super().__new__(cls, text)
        for k, v in fields.items():
            setattr(line, k, v)
        return line

    def fields(self) -> dict[str, Any]:
        """The fields as a dict (for a DataFrame of the search's progress)."""
        return {k: getattr(self, k) for k in ("size", "unit", "verdict", "seeds", "utilization", "loss_rate",
                                              "runs", "cached_runs", "expected_runs", "elapsed_s", "eta_s")}


def size_line(size: int, unit: str, verdict: str, seeds: int, utilization: float, loss_rate: float,
              runs: int, cached_runs: int, expected_runs: int, elapsed_s: float) -> SizeLine:
    """The line for a decided size: '  170 pkt: utilization 0.9911, loss 0.00501 over 6 seeds -> meets
    [14 runs, 3 s; about 1 s left]'."""
    eta: float | None = None
    clock = f"[{runs} runs" + (f" + {cached_runs} from the run cache" if cached_runs else "") + f", {elapsed_s:.0f} s"
    if expected_runs and runs:
        eta = max(0, expected_runs - runs - cached_runs) * elapsed_s / runs
        clock += f"; about {eta:.0f} s left" if eta > 0 else "; finishing"
    text = (f"  {size:>8} {unit}: utilization {utilization:.4f}, loss {loss_rate:.3g} over {seeds} seeds "
            f"-> {verdict}  {clock}]")
    return SizeLine(text, size=size, unit=unit, verdict=verdict, seeds=seeds, utilization=utilization,
                    loss_rate=loss_rate, runs=runs, cached_runs=cached_runs, expected_runs=expected_runs,
                    elapsed_s=elapsed_s, eta_s=eta)


class VerifyBar:
    """A progress bar over a verification's runs, fed the lines of its ``say`` callback: its total is
    the typical search's run count (raised when the search makes more), its text the last decided
    size and verdict; other lines are printed above it. It appears with the first line (a
    recommendation that does not verify shows none). Use as a context manager: the bar is closed on
    leaving, also on Ctrl-C; ``lines`` keeps every line it was given."""

    def __init__(self, console: Any = None):
        self.console = console
        self.bar: Any = None
        self.task: Any = None
        self.lines: list[str] = []

    def __enter__(self) -> "VerifyBar":
        return self

    def __exit__(self, *exc: Any) -> None:
        if self.bar is not None:
            self.bar.stop()

    def _start(self) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        self.bar = Progress(TextColumn("verifying"), BarColumn(), MofNCompleteColumn(), TextColumn("runs"),
                            TimeElapsedColumn(), TextColumn("{task.fields[eta]}"), TextColumn("{task.fields[last]}"),
                            console=self.console or Console(stderr=True), transient=False)
        self.task = self.bar.add_task("verify", total=None, eta="", last="")
        self.bar.start()

    def __call__(self, line: str) -> None:
        self.lines.append(line)
        if self.bar is None:
            self._start()
        if not isinstance(line, SizeLine):
            self.bar.console.print(line, markup=False, highlight=False)
            return
        done = line.runs + line.cached_runs
        total = max(done, line.expected_runs) if line.expected_runs else None
        eta = "" if line.eta_s is None or not math.isfinite(line.eta_s) else f"about {line.eta_s:.0f} s left"
        self.bar.update(self.task, completed=done, total=total, eta=eta,
                        last=f"{line.size} {line.unit}: {line.verdict}")


def in_notebook() -> bool:
    """Whether this runs in a Jupyter kernel."""
    import sys

    return "ipykernel" in sys.modules


def notebook_bar() -> bool:
    """Whether a live progress bar can be drawn here: a Jupyter kernel with ipywidgets (rich draws
    its live display in a notebook through them; without them the lines are printed instead)."""
    from importlib.util import find_spec

    return in_notebook() and find_spec("ipywidgets") is not None
