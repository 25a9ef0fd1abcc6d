"""Where a sweep keeps its results: one small file per finished point, written atomically.

Layout of a sweep directory::

    DIR/.bufsize-sweep        marks the directory as a sweep's (JSON: the last command's inputs)
    DIR/points/KEY.json       one finished point (scenario, seed, status, error, summary, flows)
    DIR/results.parquet       the tidy table, rebuilt from the point files at the end of each run
    DIR/flows.parquet         per-flow rows (when asked for)

``KEY`` is a content hash (:func:`point_key`) of the engine-SI scenario with its seed and of the
engine version: a rerun finds finished points by their key, and changing any field or the engine
changes it. Each file is written under a temporary name in the same directory and renamed into
place (``os.replace`` is atomic on POSIX), so a ``kill -9`` at any moment leaves either the whole
file or none; leftover temporary files are ignored and removed by the next run. Files are not
fsync'ed: a process kill cannot lose them, a power cut might lose the last ones (they would then
be recomputed).
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

from bufsize.errors import BufsizeError

MARKER = ".bufsize-sweep"
POINTS = "points"
RESULTS = "results.parquet"
FLOWS = "flows.parquet"


def engine_version() -> str:
    """The engine's version (part of every key)."""
    from bufsize import _engine

    return str(_engine.engine_version())


def canonical_json(obj: Any) -> str:
    """Sorted keys, no spaces: the same data always gives the same text."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=True)


def point_key(scenario_si: Mapping[str, Any], seed: int, engine: str) -> str:
    """Hash of the full engine-SI scenario (seed included), the seed and the engine version."""
    text = canonical_json({"engine": engine, "scenario": scenario_si, "seed": int(seed)})
    return hashlib.sha256(text.encode()).hexdigest()[:40]


def atomic_write(target: Path, write: Callable[[Any], None]) -> None:
    """Write ``target`` through a temporary file in its directory and an atomic rename (with the
    usual umask-derived permissions: :mod:`bufsize._atomic`)."""
    from bufsize._atomic import atomic_write as _write

    _write(target, write)


def check_own_dir(root: Path, marker: str, tool: str) -> list[str]:
    """Refuse (one line naming ``--out``) an existing path that is not a directory, or a directory
    that holds files but not ``marker`` (so another tool's or the user's files are never touched).
    Returns the directory's entries (empty when it does not exist)."""
    if not root.exists():
        return []
    if not root.is_dir():
        raise BufsizeError(f"{str(root)!r} exists and is not a directory", argument="--out")
    entries = sorted(p.name for p in root.iterdir())
    if entries and marker not in entries:
        shown = ", ".join(entries[:3]) + (", ..." if len(entries) > 3 else "")
        raise BufsizeError(f"{str(root)!r} holds other files ({shown}); give a new or empty directory, "
                           f"or one written by {tool}", argument="--out")
    return entries


class Store:
    """The point files of one sweep directory."""

    def __init__(self, root: str | os.PathLike):
        self.root = Path(root)
        self.points = self.root / POINTS

    def prepare(self, manifest: Mapping[str, Any]) -> None:
        """Create the directory (or check it is a sweep's) and check it is writable."""
        root = self.root
        check_own_dir(root, MARKER, "bufsize sweep")
        try:
            self.points.mkdir(parents=True, exist_ok=True)
            atomic_write(root / MARKER, lambda f: f.write(json.dumps(manifest, indent=2).encode() + b"\n"))
        except OSError as exc:
            raise BufsizeError(f"cannot write to {str(root)!r}: {exc.strerror or exc}", argument="--out") from None
        for leftover in self.points.glob(".tmp-*"):  # from a run killed while writing
            try:
                leftover.unlink()
            except OSError:
                pass

    def path(self, key: str) -> Path:
        return self.points / f"{key}.json"

    def load(self, key: str) -> dict[str, Any] | None:
        """The record of a finished point, or None (a file that does not parse counts as absent)."""
        try:
            data = json.loads(self.path(key).read_bytes())
        except (FileNotFoundError, json.JSONDecodeError, UnicodeDecodeError, IsADirectoryError):
            return None
        return data if isinstance(data, dict) and data.get("key") == key else None

    def save(self, record: Mapping[str, Any]) -> None:
        text = json.dumps(record, allow_nan=True).encode()
        atomic_write(self.path(record["key"]), lambda f: f.write(text))

    def write_table(self, name: str, df) -> Path:
        target = self.root / name
        atomic_write(target, lambda f: df.to_parquet(f, index=False))
        return target

    def keys(self) -> Iterable[str]:
        return (p.stem for p in self.points.glob("*.json"))
