"""Figures, each a function that draws one (matplotlib): with a file path it is written there
(PNG/PDF/SVG by the suffix), without one the figure is returned for a notebook.

- :func:`plot_recommendation` -- ``bufsize recommend --plot`` (``rec.plot()``): the simulated
  utilization, loss and queueing delay against the buffer with every model's size, or the models'
  curves when not verified;
- :func:`plot_simulation` -- ``bufsize simulate --plot`` (``result.plot()``): queue and cwnd traces;
- :func:`plot_sweep` -- ``bufsize sweep --plot``: a metric against a varied field, with intervals;
- :func:`plot_fit` -- ``bufsize fit --plot``: the fitted loss and delay laws over the runs.

matplotlib is imported when a figure is drawn, not with this package.
"""

from __future__ import annotations

from typing import Any

__all__ = ["plot_recommendation", "plot_simulation", "plot_sweep", "plot_fit"]

_WHERE = {"plot_recommendation": "recommend", "plot_verified": "recommend", "plot_simulation": "simulation",
          "plot_sweep": "sweep", "plot_fit": "sweep"}


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        import importlib

        return getattr(importlib.import_module(f"bufsize.plots.{_WHERE[name]}"), name)
    raise AttributeError(f"module 'bufsize.plots' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
