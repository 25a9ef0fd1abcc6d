"""Where a sweep keeps its results: one small file per finished point, written atomically.

Layout of a sweep directory::

    DIR/.bufsize-sweep        marks the directory as a sweep's (JSON: the last command's inputs)
    DIR/.bufsize-lock         the pid of the process using the directory (locked while it runs)
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

One process at a time uses a directory: :meth:`Store.prepare` takes an exclusive ``flock`` on
``.bufsize-lock`` (and writes its pid there) until :meth:`Store.close`; a second sweep or search
into it is refused with that pid. The kernel drops the lock when its holder dies, however it dies,
so a stale lock file from a killed run is simply taken over. Where the filesystem has no ``flock``
the pid decides: a lock file naming a live process refuses, one naming a dead process is taken
over. A directory also remembers which sweep it holds (a hash of the scenario with the varied
fields left out, and the varied fields): a different sweep into it is refused rather than replacing
its results table, while the same sweep with more values or seeds goes on in it.

A write that fails (a full disk, a quota) stops the run with one line naming the file; every point
file written before it stays, and a rerun goes on from them.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

from bufsize.errors import BufsizeError

MARKER = ".bufsize-sweep"
LOCK = ".bufsize-lock"
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


def sweep_identity(raw: Mapping[str, Any], paths: Iterable[Sequence[Any]]) -> str:
    """What makes a sweep the same sweep: its scenario with the varied fields (``paths``) and the
    seed left out, and which fields are varied. More values or seeds keep it; another scenario or
    other varied fields change it."""
    from bufsize.experiments.vary import set_path

    paths = [tuple(p) for p in paths]
    base: dict[str, Any] = dict(raw)
    fields = sorted(".".join(str(x) for x in p) for p in paths)
    for p in paths:
        base = set_path(base, p, "(varied)")
    base.pop("seed", None)
    return hashlib.sha256(canonical_json({"scenario": base, "varied": fields}).encode()).hexdigest()[:20]


def check_own_dir(root: Path, marker: str, tool: str) -> list[str]:
    """Refuse (one line naming ``--out``) an existing path that is not a directory, or a directory
    that holds files but not ``marker`` (so another tool's or the user's files are never touched).
    Returns the directory's entries (empty when it does not exist)."""
    if not root.exists():
        return []
    if not root.is_dir():
        raise BufsizeError(f"{str(root)!r} exists and is not a directory", argument="--out")
    entries = sorted(p.name for p in root.iterdir())
    # a run stopped between taking the lock and writing its marker leaves only these behind
    unmarked = set(entries) <= {LOCK, POINTS} and not (POINTS in entries and any((root / POINTS).iterdir()))
    if entries and marker not in entries and not unmarked:
        shown = ", ".join(entries[:3]) + (", ..." if len(entries) > 3 else "")
        raise BufsizeError(f"{str(root)!r} holds other files ({shown}); give a new or empty directory, "
                           f"or one written by {tool}", argument="--out")
    return entries


# ----------------------------------------------------------------------------- the lock

#: Locks this process holds: real path of the lock file -> [file descriptor, users].
_HELD: dict[str, list[int]] = {}


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, someone else's
        return True
    return True


def _read_pid(path: Path) -> int | None:
    try:
        text = path.read_text(encoding="ascii", errors="replace").split()
        return int(text[0]) if text else None
    except (OSError, ValueError):
        return None


def _in_use(root: Path, pid: int | None) -> BufsizeError:
    who = f"pid {pid}" if pid is not None else "another process"
    return BufsizeError(f"{str(root)!r} is in use by another bufsize run ({who}); wait for it to finish "
                        f"or give another directory", argument="--out")


def acquire_lock(root: Path) -> str:
    """Lock the directory ``root`` for this process (re-entrant within it); returns the key for
    :func:`release_lock`. Raises :class:`BufsizeError` naming the holder's pid when another live
    process holds it."""
    import errno

    path = root / LOCK
    key = os.path.realpath(path)
    if key in _HELD:
        _HELD[key][1] += 1
        return key
    from bufsize._atomic import default_mode

    fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), default_mode())
    try:
        try:
            import fcntl

            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except (BlockingIOError, PermissionError):
            raise _in_use(root, _read_pid(path)) from None
        except (ImportError, OSError) as exc:  # no flock here (some network filesystems): the pid decides
            if isinstance(exc, OSError) and exc.errno in (errno.EAGAIN, errno.EACCES):
                raise _in_use(root, _read_pid(path)) from None
            other = _read_pid(path)
            if other is not None and other != os.getpid() and _pid_alive(other):
                raise _in_use(root, other) from None
        mine = f"{os.getpid()}\n".encode()
        if os.pread(fd, 64, 0) != mine:
            os.ftruncate(fd, 0)
            os.pwrite(fd, mine, 0)
    except BaseException:
        os.close(fd)
        raise
    _HELD[key] = [fd, 1]
    return key


def release_lock(key: str) -> None:
    held = _HELD.get(key)
    if held is None:
        return
    held[1] -= 1
    if held[1] <= 0:
        del _HELD[key]
        os.close(held[0])  # closing the last descriptor drops the flock (the file stays: no race)


def forget_locks() -> None:
    """In a forked child: close the inherited lock descriptors without unlocking the parent's."""
    for fd, _ in _HELD.values():
        try:
            os.close(fd)
        except OSError:
            pass
    _HELD.clear()


# ----------------------------------------------------------------------------- the store

def _write_error(target: Path, exc: OSError) -> BufsizeError:
    return BufsizeError(f"cannot write {str(target)!r}: {exc.strerror or exc}; the points finished before "
                        f"it are kept in {str(target.parent)!r} (free space and rerun to go on)", argument="--out")


class Store:
    """The point files of one sweep directory."""

    def __init__(self, root: str | os.PathLike):
        self.root = Path(root)
        self.points = self.root / POINTS
        self._lock: str | None = None

    def prepare(self, manifest: Mapping[str, Any], *, identity: str | None = None) -> None:
        """Create the directory (or check it is a sweep's), lock it for this process (until
        :meth:`close`) and check it is writable.

        ``identity`` (a sweep's, :func:`sweep_identity`): refuse a directory that holds another
        sweep, and record this one in the marker. Without it (a search, a reproduction) an existing
        marker is left as it is."""
        root = self.root
        check_own_dir(root, MARKER, "bufsize sweep")
        try:
            root.mkdir(parents=True, exist_ok=True)
            self._lock = acquire_lock(root)
        except OSError as exc:
            raise BufsizeError(f"cannot write to {str(root)!r}: {exc.strerror or exc}", argument="--out") from None
        try:
            old = None
            try:
                old = json.loads((root / MARKER).read_bytes())
            except (OSError, ValueError):
                pass
            old = old if isinstance(old, dict) else None
            if identity is not None and old is not None and old.get("identity") not in (None, identity):
                raise BufsizeError(f"{str(root)!r} holds the results of another sweep (a different scenario or "
                                   f"other varied fields); give another directory", argument="--out")
            data = dict(manifest, **({"identity": identity} if identity is not None else {}))
            try:
                self.points.mkdir(exist_ok=True)
                if identity is not None or old is None:
                    atomic_write(root / MARKER, lambda f: f.write(json.dumps(data, indent=2).encode() + b"\n"))
            except OSError as exc:
                raise BufsizeError(f"cannot write to {str(root)!r}: {exc.strerror or exc}", argument="--out") from None
        except BaseException:
            self.close()
            raise
        for leftover in self.points.glob(".tmp-*"):  # from a run killed while writing
            try:
                leftover.unlink()
            except OSError:
                pass

    def close(self) -> None:
        """Release the directory's lock (a no-op when not held)."""
        if self._lock is not None:
            release_lock(self._lock)
            self._lock = None

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
        """Write a finished point's file (atomically); a failed write is a :class:`BufsizeError`."""
        text = json.dumps(record, allow_nan=True).encode()
        target = self.path(record["key"])
        try:
            atomic_write(target, lambda f: f.write(text))
        except OSError as exc:
            raise _write_error(target, exc) from None

    def write_table(self, name: str, df) -> Path:
        """Write a table (atomically: a failed write leaves the previous one); a failed write is a
        :class:`BufsizeError`."""
        target = self.root / name
        try:
            atomic_write(target, lambda f: df.to_parquet(f, index=False))
        except OSError as exc:
            raise _write_error(target, exc) from None
        return target

    def keys(self) -> Iterable[str]:
        # a point being written (by a live worker) is a hidden temporary file until it is whole
        return (p.stem for p in self.points.glob("*.json") if not p.name.startswith("."))
