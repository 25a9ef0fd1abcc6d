"""bufsize.plots shows its figures in a notebook (dir() lists them, the import does not load
matplotlib), and results draw themselves: rec.plot(), result.plot() return a figure or write a file."""

import subprocess
import sys

import bufsize
import bufsize.plots as plots


def test_the_figures_are_discoverable_and_importing_costs_nothing():
    assert {"plot_recommendation", "plot_simulation", "plot_sweep", "plot_fit"} <= set(dir(plots))
    assert callable(plots.plot_sweep)
    code = "import sys, bufsize.plots; print('matplotlib' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout.strip() == "False"


def test_results_plot_themselves(tmp_path):
    r = bufsize.simulate(capacity="2Mbps", flows=2, rtt="40ms", buffer=10, duration="2s", warmup="0.5s",
                         queue_trace="10ms", trace_cwnd=[0], progress=False)
    assert type(r.plot()).__name__ == "Figure"
    assert r.plot(tmp_path / "s.png").stat().st_size > 1000
    rec = bufsize.recommend(capacity="10Mbps", rtt="40ms", flows=8, target_utilization=0.95, progress=False)
    rec.plot(tmp_path / "r.png")
    assert (tmp_path / "r.png").stat().st_size > 1000
