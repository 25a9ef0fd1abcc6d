"""bufsize: how much buffer does a router port (or a TCP socket) need?

Public API (imported lazily so that ``import bufsize`` stays fast; the keywords are the command
line's flags without the dashes, see :mod:`bufsize.api`):

- :func:`bufsize.recommend` -- every analytic model of the five papers, side by side, and one size.
- :func:`bufsize.simulate` -- the packet-level simulator (Rust engine), on a scenario or keywords.
- :func:`bufsize.sweep` -- a resumable grid of simulations (local pool or Dask), one tidy table;
  :func:`bufsize.plot_sweep` plots it.
- :func:`bufsize.search_min_buffer` -- the buffer that meets a goal, by simulation.
- :func:`bufsize.search_optimal_buffer` -- paper 000's throughput-optimal buffer, on the simulator.
- :func:`bufsize.fit_sweep` -- paper 000's loss and delay forms fitted to a sweep, and its optimum.
- :func:`bufsize.reproduce` -- the papers' figures and tables (``bufsize.reproduce.list_figures()``).
- :func:`bufsize.compare`, :func:`bufsize.testbed_run`, :func:`bufsize.testbed_check` -- the kernel
  testbed (root); :func:`bufsize.transfer_client`, :func:`bufsize.transfer_server` -- real transfers.
- :class:`bufsize.Scenario` -- a simulation scenario; :mod:`bufsize.models` -- the models, one
  module per paper; :mod:`bufsize.units` -- ``"155Mbps"``, ``"80ms"``, ``"64KiB"`` <-> SI numbers.
"""

from __future__ import annotations

import importlib
import inspect
import sys
import types
from typing import TYPE_CHECKING, Any

from bufsize.errors import BufsizeError, ScenarioError, UnitError

__version__ = "0.1.0"

if TYPE_CHECKING:  # what the lazy names are, for type checkers and editors
    from bufsize.api import (compare, fit_sweep, recommend, reproduce, search_min_buffer, search_optimal_buffer,
                             simulate, sweep, testbed_check, testbed_run, transfer_client, transfer_server)
    from bufsize.plots.sweep import plot_sweep
    from bufsize.recommendation import Recommendation
    from bufsize.scenario import Scenario
    from bufsize.simulate import SimResult

__all__ = ["BufsizeError", "ScenarioError", "UnitError", "recommend", "simulate", "sweep", "plot_sweep",
           "search_min_buffer", "search_optimal_buffer", "fit_sweep", "reproduce", "Scenario", "Recommendation", "SimResult",
           "compare", "testbed_run", "testbed_check", "transfer_client", "transfer_server", "__version__"]

# lazy attribute -> (module, name)
_LAZY = {
    "recommend": ("bufsize.api", "recommend"),
    "sweep": ("bufsize.api", "sweep"),
    "search_min_buffer": ("bufsize.api", "search_min_buffer"),
    "search_optimal_buffer": ("bufsize.api", "search_optimal_buffer"),
    "fit_sweep": ("bufsize.api", "fit_sweep"),
    "compare": ("bufsize.api", "compare"),
    "testbed_run": ("bufsize.api", "testbed_run"),
    "testbed_check": ("bufsize.api", "testbed_check"),
    "transfer_client": ("bufsize.api", "transfer_client"),
    "transfer_server": ("bufsize.api", "transfer_server"),
    "plot_sweep": ("bufsize.plots.sweep", "plot_sweep"),
    "Scenario": ("bufsize.scenario", "Scenario"),
    "Recommendation": ("bufsize.recommendation", "Recommendation"),
    "SimResult": ("bufsize.simulate", "SimResult"),
}

# ``bufsize.simulate`` and ``bufsize.reproduce`` are also submodules, and importing a submodule
# binds it as the package's attribute. So those two names stay the modules (``from bufsize import
# reproduce; reproduce.list_figures()`` keeps working) and are made callable: calling one runs the
# API function of the same name, with its keywords and signature.
_CALLABLE_MODULES = {"simulate": "simulate", "reproduce": "reproduce"}


def _api_module_class(func_name: str) -> type[types.ModuleType]:
    class _ApiModule(types.ModuleType):
        def __call__(self, *args: Any, **kwargs: Any) -> Any:
            from bufsize import api

            return getattr(api, func_name)(*args, **kwargs)

    _ApiModule.__name__ = f"callable_module_{func_name}"
    from bufsize import api

    # IPython's `bufsize.simulate?` shows this as the "Call docstring", beside the module's own
    func = getattr(api, func_name)
    _ApiModule.__call__.__doc__ = func.__doc__
    sig = inspect.signature(func)
    self_param = inspect.Parameter("self", inspect.Parameter.POSITIONAL_ONLY)
    _ApiModule.__call__.__signature__ = sig.replace(  # type: ignore[attr-defined]
        parameters=[self_param, *sig.parameters.values()])
    return _ApiModule


def _make_callable(name: str, module: types.ModuleType) -> types.ModuleType:
    if not getattr(module, "__bufsize_api__", False):
        from bufsize import api

        func = getattr(api, _CALLABLE_MODULES[name])
        module.__class__ = _api_module_class(_CALLABLE_MODULES[name])
        module.__signature__ = inspect.signature(func)  # type: ignore[attr-defined]
        module.__bufsize_api__ = True  # type: ignore[attr-defined]
    return module


class _Package(types.ModuleType):
    """The package's own module type: makes ``simulate``/``reproduce`` callable whenever the
    import system binds them (whoever imported them first)."""

    def __setattr__(self, name: str, value: Any) -> None:
        if name in _CALLABLE_MODULES and isinstance(value, types.ModuleType) and \
                value.__name__ == f"{__name__}.{name}":
            value = _make_callable(name, value)
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package


def __getattr__(name: str) -> Any:
    if name in _CALLABLE_MODULES:
        mod = importlib.import_module(f"{__name__}.{name}")
        return _make_callable(name, mod)
    if name in _LAZY:
        mod_name, attr = _LAZY[name]
        return getattr(importlib.import_module(mod_name), attr)
    raise AttributeError(f"module 'bufsize' has no attribute {name!r}")


_SUBMODULES = ("api", "errors", "units", "models", "scenario", "experiments", "plots", "display")


def __dir__() -> list[str]:
    """What tab completion offers: the public API (lazy names included) and the submodules."""
    return sorted(set(__all__) | set(_SUBMODULES) | {"__doc__", "__file__", "__name__", "__path__"})
