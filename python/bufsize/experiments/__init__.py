"""Experiments above the engine: sweeps, buffer searches, curve fits, ``recommend --verify``.

One simulation is one deterministic task (scenario JSON in, summary out); parallelism and
bookkeeping live here, outside the engine:

- :func:`sweep` -- a grid of scenario fields x seeds on a local process pool or a Dask cluster,
  resumable (one atomic file per finished point, keyed by content hash), one tidy table out;
- :mod:`bufsize.experiments.search` -- the smallest (or largest) buffer meeting a target, by
  bisection on a noisy objective with replications and a stated confidence;
- :mod:`bufsize.experiments.fit` -- paper 000's power-law / exponential loss fits, the linear
  delay fit and the optimal buffer from them.
"""

from __future__ import annotations

from bufsize.experiments.sweep import WALL_COLUMNS, same_table, sweep

__all__ = ["sweep", "same_table", "WALL_COLUMNS"]
