"""bufsize: how much buffer does a router port (or a TCP socket) need?

Public API (imported lazily so that ``import bufsize`` stays fast):

- :func:`bufsize.recommend` -- every analytic model of the five papers, side by side, and one size.
- :func:`bufsize.simulate` -- the packet-level simulator (Rust engine).
- :mod:`bufsize.models` -- the models themselves, one module per paper.
- :mod:`bufsize.units` -- ``"155Mbps"``, ``"80ms"``, ``"64KiB"`` <-> SI numbers.
"""

from __future__ import annotations

from bufsize.errors import BufsizeError, ScenarioError, UnitError

__version__ = "0.1.0"

__all__ = ["BufsizeError", "ScenarioError", "UnitError", "recommend", "simulate", "__version__"]


def __getattr__(name: str):
    if name == "recommend":
        from bufsize.recommendation import recommend

        return recommend
    if name == "simulate":
        from bufsize.simulate import simulate

        return simulate
    raise AttributeError(f"module 'bufsize' has no attribute {name!r}")
