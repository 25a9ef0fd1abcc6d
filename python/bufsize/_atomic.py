"""Atomic file writes that keep the usual permissions.

A result is written to a temporary file in the target's directory and renamed into place
(``os.replace`` is atomic on POSIX), so a reader never sees half a file. :func:`tempfile.mkstemp`
creates its file with mode 0600 whatever the umask; renamed into place, every table, figure and
JSON file would be readable by its owner only, and a team sharing a results folder could not
read them. :func:`temp_path` therefore gives the temporary file the mode an ordinary ``open()``
would (0666 less the umask) before anything is written.
"""

from __future__ import annotations

import os
import tempfile
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

__all__ = ["default_mode", "temp_path", "atomic_write", "atomic_write_text", "atomic_write_bytes"]

_umask_lock = threading.Lock()


def default_mode() -> int:
    """The mode ``open(path, "w")`` gives a new file: 0o666 less the process umask."""
    with _umask_lock:  # os.umask can only be read by setting it
        mask = os.umask(0o022)
        os.umask(mask)
    return 0o666 & ~mask


@contextmanager
def temp_path(target: str | os.PathLike[str], suffix: str | None = None) -> Iterator[Path]:
    """A temporary path beside ``target`` (usual permissions), renamed onto ``target`` when the
    block ends without an exception and removed otherwise.

    ``suffix`` defaults to the target's, so writers that pick a format by suffix (matplotlib)
    see the right one."""
    target = Path(target)
    sfx = target.suffix if suffix is None else suffix
    fd, name = tempfile.mkstemp(prefix=f".tmp-{target.name}.", suffix=sfx, dir=target.parent)
    tmp = Path(name)
    try:
        os.fchmod(fd, default_mode())
        os.close(fd)
        yield tmp
        os.replace(tmp, target)
    except BaseException:
        try:
            tmp.unlink()
        except FileNotFoundError:
            pass
        raise


def atomic_write(target: str | os.PathLike[str], write: Callable[[IO[bytes]], Any]) -> None:
    """Write ``target`` by calling ``write(binary_file)`` on a temporary file, then rename it."""
    with temp_path(target) as tmp, open(tmp, "wb") as f:
        write(f)


def atomic_write_bytes(target: str | os.PathLike[str], data: bytes) -> None:
    """``target`` holds ``data``, written atomically."""
    atomic_write(target, lambda f: f.write(data))


def atomic_write_text(target: str | os.PathLike[str], text: str, encoding: str = "utf-8") -> None:
    """``target`` holds ``text``, written atomically."""
    atomic_write_bytes(target, text.encode(encoding))


def check_out_dir(out: str | os.PathLike[str], argument: str = "--out") -> None:
    """Refuse, before any work, an output directory that cannot be made or written in: an existing
    file, a path under a file, a folder without write permission (one line naming ``argument``)."""
    from bufsize.errors import BufsizeError

    p = Path(out).resolve()
    if p.exists() and not p.is_dir():
        raise BufsizeError(f"{out} exists and is not a directory", argument=argument)
    parent = p
    while not parent.exists():
        parent = parent.parent
    if not parent.is_dir():
        raise BufsizeError(f"{parent} is a file: no directory can be made under it", argument=argument)
    if not os.access(parent, os.W_OK):
        raise BufsizeError(f"cannot write in {parent} (permission denied)", argument=argument)
