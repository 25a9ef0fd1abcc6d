"""A cache of finished simulation runs, keyed by the exact scenario and the engine that ran it.

A run of the engine is deterministic: the same scenario (seed included) on the same engine build
gives the same result. So a verification that was stopped (Ctrl-C, a closed terminal, a killed
job) and is started again, or a second surface asking the same question (``--json`` after the
text, Python after the CLI), need not run again what already ran: :class:`RunCache` keeps each
run's summary under a key made of the scenario's canonical JSON, the package version and a hash of
the engine library's bytes, so a rebuilt engine never reads an older engine's results.

Where: ``$BUFSIZE_CACHE_DIR`` if set, else ``$XDG_CACHE_HOME/bufsize/runs`` (``~/.cache/bufsize/runs``).
``BUFSIZE_CACHE=off`` turns it off. Each entry is one small JSON file written atomically; an entry
that cannot be read is treated as missing. Nothing is ever evicted automatically (entries are
about 1 kB; delete the directory to clear it).
"""

from __future__ import annotations

import hashlib
import json
import os
from functools import lru_cache
from pathlib import Path
from typing import Any


@lru_cache(maxsize=1)
def engine_fingerprint() -> str:
    """The package version and a hash of the engine library's bytes (read once per process)."""
    import bufsize
    from bufsize import _engine

    h = hashlib.sha256(bufsize.__version__.encode())
    path = getattr(_engine, "__file__", None)
    if path and os.path.exists(path):
        with open(path, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                h.update(chunk)
    return h.hexdigest()[:16]


def default_dir() -> Path | None:
    """The cache directory in force, or None when the cache is off."""
    if os.environ.get("BUFSIZE_CACHE", "").lower() in ("off", "0", "no", "false"):
        return None
    given = os.environ.get("BUFSIZE_CACHE_DIR")
    if given:
        return Path(given)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "bufsize" / "runs"


class RunCache:
    """Finished runs by scenario. ``get`` answers None for a run not made (or unreadable); ``put``
    stores a finished run's record; ``hits`` counts the runs answered from the cache."""

    def __init__(self, directory: str | os.PathLike[str] | None = None):
        self.dir = Path(directory) if directory is not None else default_dir()
        self.hits = 0

    @classmethod
    def off(cls) -> "RunCache":
        """A cache that holds nothing."""
        c = cls()
        c.dir = None
        return c

    @property
    def enabled(self) -> bool:
        return self.dir is not None

    def key(self, scenario_json: str) -> str:
        canon = json.dumps(json.loads(scenario_json), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256((engine_fingerprint() + "\n" + canon).encode()).hexdigest()

    def _path(self, key: str) -> Path:
        assert self.dir is not None
        return self.dir / key[:2] / f"{key}.json"

    def get(self, scenario_json: str) -> dict[str, Any] | None:
        if self.dir is None:
            return None
        try:
            with open(self._path(self.key(scenario_json)), encoding="utf-8") as f:
                rec = json.load(f)
        except (OSError, ValueError):
            return None
        if not isinstance(rec, dict) or rec.get("status") != "ok":
            return None
        self.hits += 1
        return rec

    def put(self, scenario_json: str, record: dict[str, Any]) -> None:
        """Store a finished run (failed runs are not stored). A full or read-only disk only loses
        the cache entry, never the run."""
        if self.dir is None or record.get("status") != "ok":
            return
        path = self._path(self.key(scenario_json))
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(f".{os.getpid()}.tmp")
            with open(tmp, "w", encoding="utf-8") as f:
                json.dump(record, f)
            os.replace(tmp, path)
        except OSError:
            pass
