"""bufsize: how much buffer does a router port (or a TCP socket) need?

Public API (imported lazily so that ``import bufsize`` stays fast):

- :func:`bufsize.recommend` -- every analytic model of the five papers, side by side, and one size.
- :func:`bufsize.simulate` -- the packet-level simulator (Rust engine).
- :func:`bufsize.sweep` -- a resumable grid of simulations (local pool or Dask), one tidy table;
  :func:`bufsize.plot_sweep` plots it; :mod:`bufsize.experiments` also has searches and fits.
- :mod:`bufsize.models` -- the models themselves, one module per paper.
- :mod:`bufsize.units` -- ``"155Mbps"``, ``"80ms"``, ``"64KiB"`` <-> SI numbers.
"""

from __future__ import annotations

from bufsize.errors import BufsizeError, ScenarioError, UnitError

__version__ = "0.1.0"

__all__ = ["BufsizeError", "ScenarioError", "UnitError", "recommend", "simulate", "sweep", "plot_sweep",
           "search_min_buffer", "fit_sweep", "__version__"]

# lazy attribute -> (module, name)
_LAZY = {
    "sweep": ("bufsize.experiments.sweep", "sweep"),
    "plot_sweep": ("bufsize.plots.sweep", "plot_sweep"),
    "search_min_buffer": ("bufsize.experiments.search", "search_min_buffer"),
    "fit_sweep": ("bufsize.experiments.fit", "fit_sweep"),
}


def __getattr__(name: str):
    if name == "recommend":
        from bufsize.recommendation import recommend

        return recommend
    if name == "simulate":
        from bufsize.simulate import simulate

        return simulate
    if name in _LAZY:
        import importlib

        mod, attr = _LAZY[name]
        return getattr(importlib.import_module(mod), attr)
    raise AttributeError(f"module 'bufsize' has no attribute {name!r}")
