"""Flow records from a packet capture, a flow-record table (CSV/Parquet) or a Zeek ``conn.log``.

Every reader returns a :class:`FlowRecords`: a pandas DataFrame with the columns of
:data:`COLUMNS` (one row per flow, the initiator's side called *fwd*), plus what the source said
about itself (``meta``: format, duration, truncation, the load time series of a capture, ...).

Captures are read by the Rust extension (``bufsize._engine.CaptureReader``) in bounded steps:
memory follows the number of concurrently open flows, and a progress bar shows on large files. A
gzip-compressed capture (``.pcap.gz``, ``.pcapng.gz``) and a capture on standard input (``-``,
plain or gzip-compressed) are streamed to the reader through a pipe as they are read.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from bufsize.errors import BufsizeError

#: Columns of a flow-record table, in order, with their meaning (docs/traffic.md repeats this).
COLUMNS: dict[str, str] = {
    "proto": "IP protocol number (6 TCP, 17 UDP)",
    "src": "initiator address", "sport": "initiator port", "dst": "responder address", "dport": "responder port",
    "start_s": "first packet, seconds from the start of the capture",
    "end_s": "last packet, seconds from the start of the capture",
    "packets_fwd": "packets initiator -> responder", "packets_rev": "packets responder -> initiator",
    "bytes_fwd": "IP bytes initiator -> responder", "bytes_rev": "IP bytes responder -> initiator",
    "payload_fwd": "TCP/UDP payload bytes initiator -> responder, retransmissions included",
    "payload_rev": "TCP/UDP payload bytes responder -> initiator, retransmissions included",
    "unique_fwd": "distinct TCP payload bytes initiator -> responder (the transfer size)",
    "unique_rev": "distinct TCP payload bytes responder -> initiator",
    "retrans_packets_fwd": "TCP segments repeating sequence space, initiator -> responder",
    "retrans_packets_rev": "the same, responder -> initiator",
    "retrans_bytes_fwd": "bytes of those segments", "retrans_bytes_rev": "bytes of those segments",
    "syn_seen": "the handshake's SYN is in the capture",
    "fin_fwd": "initiator sent FIN", "fin_rev": "responder sent FIN", "rst_seen": "a RST was seen",
    "complete": "handshake, both FINs and every byte acknowledged: a whole transfer",
    "rtt_handshake_s": "RTT from SYN -> SYN-ACK -> ACK (NaN if not seen or ambiguous)",
    "rtt_min_s": "smallest RTT: the sum of the two legs' smallest samples (handshake, timestamps, data/ACK)",
    "rtt_mean_s": "mean RTT (the legs' mean samples; includes queueing)",
    "rtt_leg_init_s": "smallest sample of the initiator's leg (capture -> initiator -> capture)",
    "rtt_leg_resp_s": "smallest sample of the responder's leg (capture -> responder -> capture)",
    "rtt_leg_init_mean_s": "mean sample of the initiator's leg (a host's own leg stays at its minimum)",
    "rtt_leg_resp_mean_s": "mean sample of the responder's leg",
    "rtt_samples": "number of leg samples behind the RTT",
    "rtt_path_s": "path RTT: the smallest rtt_min_s of all flows between the same two hosts (a short flow "
                  "may never see the queue empty; its host pair's other flows may)",
    "mss": "largest TCP payload of the main direction (an MSS estimate)",
    "timestamps": "both sides used TCP timestamps",
    "limit": "what seemed to limit the main direction: congestion, receiver_window, application, short, unknown",
    "rwnd_limited_frac": "fraction of round trips in which the flight reached the receiver's window",
    "idle_frac": "fraction of the sending time spent idle with nothing outstanding",
    "end_reason": "fin, rst, idle (timeout), capture_end, reused (a new SYN on the same 5-tuple)",
}

#: The least a flow-record table must have (other columns are filled in as unknown).
REQUIRED = ("start_s", "end_s", "proto", "bytes_fwd", "bytes_rev")

#: Alternative spellings accepted in CSV/Parquet flow records (NetFlow/IPFIX exports differ).
ALIASES = {
    "start": "start_s", "first": "start_s", "ts": "start_s", "start_time": "start_s",
    "end": "end_s", "last": "end_s", "end_time": "end_s",
    "protocol": "proto", "prot": "proto",
    "src_addr": "src", "srcaddr": "src", "sa": "src", "dst_addr": "dst", "dstaddr": "dst", "da": "dst",
    "src_port": "sport", "srcport": "sport", "sp": "sport", "dst_port": "dport", "dstport": "dport", "dp": "dport",
    "bytes_out": "bytes_fwd", "bytes_in": "bytes_rev", "orig_bytes": "bytes_fwd", "resp_bytes": "bytes_rev",
    "ibyt": "bytes_fwd", "obyt": "bytes_rev",
    "rtt": "rtt_min_s", "rtt_s": "rtt_min_s",
}


@dataclass
class FlowRecords:
    """Flow records and what their source told about itself."""

    flows: pd.DataFrame
    meta: dict[str, Any] = field(default_factory=dict)

    def to_parquet(self, path: str | Path) -> None:
        """Write the records (atomically) with the metadata in the file's key-value metadata."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        path = Path(path)
        table = pa.Table.from_pandas(self.flows, preserve_index=False)
        meta = {k: v for k, v in self.meta.items() if k not in ("bin_bytes_fwd", "bin_bytes_rev")}
        md = dict(table.schema.metadata or {})
        md[b"bufsize.traffic"] = json.dumps(meta, default=_jsonable).encode()
        table = table.replace_schema_metadata(md)
        tmp = path.with_name(f".{path.name}.tmp")
        pq.write_table(table, tmp)
        tmp.replace(path)


def _jsonable(x: Any) -> Any:
    if isinstance(x, (np.integer,)):
        return int(x)
    if isinstance(x, (np.floating,)):
        return float(x)
    if isinstance(x, np.ndarray):
        return x.tolist()
    return str(x)


# ---------------------------------------------------------------------------------------- sniffing
_PCAP_MAGICS = {b"\xd4\xc3\xb2\xa1", b"\xa1\xb2\xc3\xd4", b"\x4d\x3c\xb2\xa1", b"\xa1\xb2\x3c\x4d",
                b"\x0a\x0d\x0d\x0a"}


_GZIP_MAGIC = b"\x1f\x8b"


def kind_of(path: str | Path) -> str:
    """``capture``, ``parquet``, ``zeek``, ``csv`` or ``profile`` (a saved profile JSON), from the
    file's first bytes (the suffix is only a tie-breaker). Standard input (``-``) is read as a
    capture; a gzip-compressed file must hold one."""
    if str(path) == "-":
        return "capture"
    p = Path(path)
    _regular(p)
    try:
        with open(p, "rb") as f:
            head = f.read(4096)
        if head[:2] == _GZIP_MAGIC:
            import gzip

            try:
                with gzip.open(p, "rb") as g:
                    inner = g.read(4)
            except (OSError, EOFError) as exc:
                raise BufsizeError(f"{p.name}: not a readable gzip file ({exc})", argument="FILE") from None
            if inner[:4] not in _PCAP_MAGICS:
                raise BufsizeError(f"{p.name} is gzip-compressed but holds no pcap/pcapng capture (only captures "
                                   "are read compressed)", argument="FILE")
            return "capture"
    except FileNotFoundError:
        raise BufsizeError(f"{str(p)!r}: no such file", argument="FILE") from None
    except IsADirectoryError:
        raise BufsizeError(f"{str(p)!r} is a directory, not a capture or flow-record file", argument="FILE") from None
    except OSError as exc:
        raise BufsizeError(f"cannot read {str(p)!r}: {exc.strerror or exc}", argument="FILE") from None
    if not head:
        raise BufsizeError(f"{str(p)!r} is empty", argument="FILE")
    if head[:4] in _PCAP_MAGICS:
        return "capture"
    if head[:4] == b"PAR1":
        return "parquet"
    text = head.decode("utf-8", errors="replace")
    if text.startswith("#separator") or "#fields\tts\tuid" in text:
        return "zeek"
    stripped = text.lstrip()
    if stripped.startswith("{"):
        first = stripped.splitlines()[0]
        try:
            obj = json.loads(first)
        except (ValueError, RecursionError):
            obj = None
        if (isinstance(obj, dict) and "id.orig_h" in obj) or (obj is None and '"id.orig_h"' in first):
            return "zeek"
        return "profile"
    if p.suffix.lower() in (".pcap", ".pcapng", ".cap", ".dmp"):
        return "capture"  # the reader names the problem (not a capture)
    if b"\x00" in head:
        raise BufsizeError(f"{str(p)!r} is not a pcap/pcapng capture, a Parquet or CSV flow-record file, "
                           "or a Zeek conn.log", argument="FILE")
    return "csv"


def _regular(p: Path) -> None:
    """Refuse a FIFO, a device or a socket before opening it: opening a FIFO with no writer blocks
    forever, and a device such as /dev/zero never ends. A stream is read from standard input (``-``)."""
    import os
    import stat

    try:
        mode = os.stat(p).st_mode
    except OSError:
        return  # the open that follows names the problem
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return
    what = "a FIFO (named pipe)" if stat.S_ISFIFO(mode) else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) \
        else "not a regular file"
    raise BufsizeError(f"{str(p)!r} is {what}: a capture streamed through a pipe is read from standard input "
                       f"('-', e.g. bufsize traffic summarize - < {p})", argument="FILE")


# ---------------------------------------------------------------------------------------- captures
class _Available:
    """A buffered stream whose ``read(n)`` returns what has arrived (at most ``n`` bytes; empty at
    the end) instead of waiting for ``n``."""

    def __init__(self, f: Any):
        self._f = f

    def read(self, n: int = -1) -> bytes:
        return bytes(self._f.read1(n if n and n > 0 else 1 << 20))


class _Pipe:
    """A capture streamed to the reader through a pipe (``/dev/fd/N``): standard input, or a gzip
    file decompressed as it is read. A thread copies; the reader sees a file without a size. The
    copy stops when :meth:`close` is called, also while the reader has stopped reading."""

    def __init__(self, path: str | Path):
        import os
        import sys
        import threading

        self.stdin = str(path) == "-"
        self.name = "standard input" if self.stdin else Path(path).name
        self.error: str | None = None
        if self.stdin:
            src = sys.stdin.buffer
            try:
                head = src.peek(2)[:2] if hasattr(src, "peek") else b""
            except (OSError, ValueError):
                head = b""
            self._src: Any = src
            self.gz = head == _GZIP_MAGIC
        else:
            self._src = open(path, "rb")
            self.gz = True
        self._r, self._w = os.pipe()
        self.path = f"/dev/fd/{self._r}"
        self._stop = threading.Event()
        #: bytes of the (decompressed) stream read so far, those drained after the reader stopped included
        self.produced = 0
        #: the stream was read to its end (or to a damaged part of the gzip stream)
        self.ended = False
        self._drain = threading.Event()
        self._drain_limit = 0
        self._thread = threading.Thread(target=self._pump, daemon=True)
        self._started = False

    def start(self) -> None:
        """Start copying (before the reader opens the pipe: it reads the header at once)."""
        self._started = True
        self._thread.start()

    def opened(self) -> None:
        """The reader has its own descriptor of the pipe (or failed to open it): drop ours, so
        that the copy sees a broken pipe once the reader is gone."""
        import os

        if self._r >= 0:
            os.close(self._r)
            self._r = -1

    def _pump(self) -> None:
        import gzip
        import os
        import select
        import zlib

        w = self._w
        os.set_blocking(w, False)
        # what has arrived is passed on as it comes (read1), not once a buffer is full: a live
        # capture on standard input reaches the reader packet by packet
        raw = _Available(self._src) if hasattr(self._src, "read1") else self._src
        src = gzip.GzipFile(fileobj=raw, mode="rb") if self.gz else raw
        try:
            while not self._stop.is_set():
                # read1: what was decompressed comes out before a cut-short stream's error
                chunk = src.read1(1 << 16) if self.gz else src.read(1 << 20)  # read1 underneath
                if not chunk:
                    self.ended = True
                    break
                self.produced += len(chunk)
                if self._drain.is_set():
                    if self.produced > self._drain_limit:
                        break
                    continue  # counted, not kept
                view = memoryview(chunk)
                while view and not self._stop.is_set() and not self._drain.is_set():
                    if not select.select([], [w], [], 0.2)[1]:
                        continue
                    try:
                        view = view[os.write(w, view):]
                    except BlockingIOError:
                        continue
        except BrokenPipeError:
            pass  # the reader stopped early (an unreadable capture): it says why
        except (OSError, EOFError, zlib.error) as exc:
            self.ended = True
            if not self._drain.is_set():
                self.error = f"the gzip stream is damaged or cut short ({exc}); the rest was ignored"
        finally:
            os.close(w)
            if not self.stdin:
                self._src.close()

    def drain(self, limit: int, timeout_s: float) -> None:
        """The reader has stopped (at a corrupt record): read on without keeping anything, to learn
        how much of the stream was left unread; stop once more than ``limit`` bytes have been
        counted in all, at the end of the stream, or after ``timeout_s`` (a slow producer)."""
        self._drain_limit = limit
        self._drain.set()
        if self._started:
            self._thread.join(timeout=timeout_s)

    def close(self) -> None:
        """Stop copying (a no-op once the copy is done) and wait for the thread."""
        self._stop.set()
        self.opened()
        if self._started:
            self._thread.join(timeout=5.0)


def read_capture(path: str | Path, *, idle_timeout: float = 60.0, bin_s: float = 0.1,
                 progress: bool | None = None) -> FlowRecords:
    """Flow records of a pcap/pcapng file (read by the Rust extension, streaming); ``-`` reads
    standard input, and a gzip-compressed file (or input) is decompressed as it is read."""
    from bufsize._engine import CaptureReader

    p = Path(path)
    pipe: _Pipe | None = None
    if str(path) == "-":
        pipe = _Pipe(path)
    else:
        _regular(p)
        try:
            with open(p, "rb") as f:
                if f.read(2) == _GZIP_MAGIC:
                    pipe = _Pipe(p)
        except OSError as exc:
            raise BufsizeError(f"cannot read {str(p)!r}: {exc.strerror or exc}", argument="FILE") from None
    if pipe:
        pipe.start()
    try:
        r = CaptureReader(pipe.path if pipe else str(p), idle_timeout_s=float(idle_timeout), bin_s=float(bin_s))
    except ValueError as exc:
        if pipe:
            pipe.close()
        raise BufsizeError(str(exc).replace(pipe.path, pipe.name) if pipe else str(exc), argument="FILE") from None
    if pipe:
        pipe.opened()
    try:
        return _read_steps(r, p, pipe, progress)
    finally:
        if pipe:
            pipe.close()


def _read_steps(r: Any, p: Path, pipe: "_Pipe | None", progress: bool | None) -> FlowRecords:
    size = r.file_size
    show = progress if progress is not None else (size > 256 << 20)
    chunks: list[pd.DataFrame] = []
    step = 64 << 20

    def drain() -> None:
        d = r.take_records()
        if d["proto"]:
            chunks.append(pd.DataFrame(d))

    try:
        if show:
            from rich.progress import BarColumn, DownloadColumn, Progress, TimeRemainingColumn, TransferSpeedColumn

            with Progress("[progress.description]{task.description}", BarColumn(), DownloadColumn(),
                          TransferSpeedColumn(), TimeRemainingColumn(), transient=True) as bar:
                task = bar.add_task(f"reading {p.name}", total=size)
                while r.step(step):
                    drain()
                    bar.update(task, completed=r.position)
                bar.update(task, completed=size)
        else:
            while r.step(step):
                drain()
    except ValueError as exc:
        raise BufsizeError(str(exc).replace(pipe.path, pipe.name) if pipe else str(exc), argument="FILE") from None
    drain()
    info = r.info()
    if pipe:
        if info.get("corrupt"):
            _count_unread(pipe, info)
        pipe.close()
        if pipe.error and not info.get("truncated"):
            info["truncated"] = pipe.error
        elif pipe.error:
            info["truncated"] = f"{info['truncated']}; {pipe.error}"
        if info.get("truncated"):
            info["truncated"] = str(info["truncated"]).replace(pipe.path, pipe.name)
    flows = pd.concat(chunks, ignore_index=True) if chunks else _empty()
    if len(flows):
        flows = flows.sort_values("start_s", kind="stable").reset_index(drop=True)
    flows = with_path_rtt(flows)
    meta = {"source": "-" if pipe and pipe.stdin else str(p), "kind": "capture", **info}
    if pipe:
        meta["compressed"] = "gzip" if pipe.gz else None
    name = pipe.name if pipe else p.name
    if info["frames"] and info["unsupported_frames"] == info["frames"]:
        raise BufsizeError(f"{name}: link type {', '.join(map(str, sorted(set(info['linktypes']))))} is not "
                           "supported (Ethernet, Linux cooked SLL/SLL2, raw IP, loopback are)", argument="FILE")
    if info["frames"] == 0:
        why = info["truncated"] or _unused_frames(info)
        raise BufsizeError(f"{name}: the capture holds no usable packets" + (f" ({why})" if why else ""),
                           argument="FILE")
    size = int(info.get("file_size") or info.get("stream_size") or 0)
    if info.get("corrupt") and size and int(info.get("position") or 0) < MIN_USED_SHARE * size:
        raise BufsizeError(f"{name}: {info['truncated']}; too little to size a buffer from (repair the file, "
                           "or cut the readable part out, e.g. with editcap -r)", argument="FILE")
    unused = int(info.get("time_outliers") or 0) + int(info.get("bad_lengths") or 0)
    if unused > (1 - MIN_USED_SHARE) * (unused + int(info["frames"])):
        raise BufsizeError(f"{name}: {_unused_frames(info)}, more than the {int(info['frames']):,} used: too much "
                           "of the capture is nonsense to size a buffer from", argument="FILE")
    meta["reader_warnings"] = reader_warnings(info)
    return FlowRecords(flows, meta)


#: Less than this share of the input usable (a corrupt record early in a capture, frames dated
#: decades apart): the input is refused rather than summarized from the rest.
MIN_USED_SHARE = 0.5

#: The longest a stream (standard input, a gzip file) is read on after a corrupt record to learn
#: how much of it was left unread.
DRAIN_TIMEOUT_S = 60.0


def _count_unread(pipe: _Pipe, info: dict[str, Any]) -> None:
    """A stream has no size: after a corrupt record, read on (without keeping it) until its end or
    until more than what was used has followed, and say in ``truncated`` how much was used.
    ``stream_size`` is set when the share is known or when more than half is known unread (the
    refusal then follows as for a file)."""
    pos = int(info.get("position") or 0)
    pipe.drain(max(1, int(pos / MIN_USED_SHARE)), DRAIN_TIMEOUT_S)
    total = max(pipe.produced, pos)
    what = "of standard input" if pipe.stdin else "decompressed"
    used = 100.0 * pos / total if total else 0.0
    if pipe.ended:
        info["stream_size"] = total
        share = f"{used:.1f} % of the {total:,} bytes {what}"
    elif pos < MIN_USED_SHARE * total:
        info["stream_size"] = total
        share = f"under {used:.1f} % of the stream: {pos:,} bytes came before it and at least {total - pos:,} after"
    else:
        share = (f"at most {used:.1f} % of the stream: {total - pos:,} more bytes followed the corrupt record "
                 f"before counting them stopped after {DRAIN_TIMEOUT_S:g} s")
    info["truncated"] = f"{info['truncated']} ({share})"


def _unused_frames(info: dict[str, Any]) -> str:
    parts = []
    if info.get("time_outliers"):
        parts.append(f"{int(info['time_outliers']):,} frame(s) dated more than 1 s before the first frame or more "
                     "than 1e7 s (~116 days) after it")
    if info.get("bad_lengths"):
        parts.append(f"{int(info['bad_lengths']):,} frame(s) with an original length beyond any packet's (262144 B)")
    return "; ".join(parts) + (" were not used" if parts else "")


def reader_warnings(info: dict[str, Any]) -> list[str]:
    """What the capture reader could not use, as warnings: each changes the numbers."""
    out = []
    if info.get("truncated"):
        out.append(("capture corrupt: " if info.get("corrupt") else "capture truncated: ") + str(info["truncated"]))
    unused = int(info.get("time_outliers") or 0) + int(info.get("bad_lengths") or 0)
    if unused:
        out.append(f"{_unused_frames(info)} (of {int(info['frames']) + unused:,} frames)")
    return out


def with_path_rtt(df: pd.DataFrame) -> pd.DataFrame:
    """Fill ``rtt_path_s``: per (initiator, responder) host pair, the smallest flow RTT seen.

    A flow's own minimum RTT includes whatever queueing it never escaped (a 10-packet transfer
    through a busy queue never sees it empty); flows between the same two hosts share the path,
    so the pair's minimum is the better estimate of the propagation RTT."""
    if not len(df):
        df["rtt_path_s"] = pd.Series(dtype="float64")
        return df
    known = df["src"].astype(str).str.len().gt(0) & df["dst"].astype(str).str.len().gt(0)
    path = df.groupby([df["src"].astype(str), df["dst"].astype(str)])["rtt_min_s"].transform("min")
    df["rtt_path_s"] = path.where(known, df["rtt_min_s"])
    return df


def _empty() -> pd.DataFrame:
    return pd.DataFrame({c: pd.Series(dtype=_dtype(c)) for c in COLUMNS})


def _dtype(c: str) -> str:
    if c in ("src", "dst", "limit", "end_reason"):
        return "object"
    if c in ("syn_seen", "fin_fwd", "fin_rev", "rst_seen", "complete", "timestamps"):
        return "bool"
    if c.endswith("_s") or c.endswith("_frac"):
        return "float64"
    return "int64"


# ---------------------------------------------------------------------------------------- tables
_COUNTS = ("bytes_fwd", "bytes_rev", "payload_fwd", "payload_rev", "unique_fwd", "unique_rev", "packets_fwd",
           "packets_rev")
#: Why a record is left out when it is read (:func:`_complete_columns`), as the profile reports it.
NOT_A_COUNT = "a byte or packet count that is negative, infinite or above 1e15"


def _complete_columns(df: pd.DataFrame, source: str, rebase: bool = True,
                      dropped: dict[str, Any] | None = None) -> pd.DataFrame:
    """Rename aliases, check the required columns, fill the optional ones as unknown. ``rebase``:
    count times from the earliest start (else they already count from the capture's start).
    Records whose counts are no counts (negative, infinite, beyond :data:`MAX_RECORD_BYTES`) are
    left out and counted in ``dropped`` (``{"count": n, "first": text}``, which the profile
    reports with the other implausible records); without ``dropped`` they are refused."""
    names = [ALIASES.get(str(c).strip().lower(), str(c).strip().lower()) for c in df.columns]
    seen: dict[str, str] = {}
    for orig, name in zip(df.columns, names):
        if name in seen:
            raise BufsizeError(f"{source}: columns {seen[name]!r} and {str(orig)!r} both give {name} (keep one)",
                               argument="FILE")
        seen[name] = str(orig)
    df = df.set_axis(names, axis=1)
    if "end_s" not in df.columns and "duration" in df.columns and "start_s" in df.columns:
        df["end_s"] = _seconds(df["start_s"]) + pd.to_numeric(df["duration"], errors="coerce").fillna(0.0)
    if "bytes_fwd" not in df.columns and "bytes" in df.columns:
        df["bytes_fwd"] = df["bytes"]
        df["bytes_rev"] = 0
    missing = [c for c in REQUIRED if c not in df.columns]
    if missing:
        raise BufsizeError(f"{source}: missing column{'s' if len(missing) > 1 else ''} {', '.join(missing)} "
                           f"(a flow-record table needs {', '.join(REQUIRED)}; see docs/traffic.md)",
                           argument="FILE")
    if dropped is not None:
        bad = np.zeros(len(df), dtype=bool)
        for c in _COUNTS:
            if c in df.columns:
                v = pd.to_numeric(df[c], errors="coerce").fillna(0).astype(float).to_numpy()
                bad |= ~np.isfinite(v) | (v < 0) | (v > MAX_RECORD_BYTES)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            row = {c: str(df[c].iloc[i])[:24] for c in _COUNTS if c in df.columns}
            dropped.update(count=int(bad.sum()), first=f"row {i + 1}: " + ", ".join(f"{k} {v}" for k, v in row.items()))
            df = df[~bad].reset_index(drop=True)
    df["start_s"] = _seconds(df["start_s"])
    df["end_s"] = _seconds(df["end_s"])
    if df["start_s"].isna().any() or df["end_s"].isna().any():
        raise BufsizeError(f"{source}: start/end times that are not numbers or timestamps", argument="FILE")
    _check_times(df, source)
    t0 = float(df["start_s"].min()) if len(df) and rebase else 0.0
    df["start_s"] -= t0
    df["end_s"] -= t0
    df["proto"] = df["proto"].map(_proto)
    for c in COLUMNS:
        if c not in df.columns:
            kind = _dtype(c)
            if c in ("payload_fwd", "unique_fwd"):
                df[c] = df["bytes_fwd"]
            elif c in ("payload_rev", "unique_rev"):
                df[c] = df["bytes_rev"]
            elif kind == "float64":
                df[c] = math.nan
            elif kind == "bool":
                df[c] = False
            elif kind == "object":
                df[c] = "unknown" if c in ("limit", "end_reason") else ""
            else:
                df[c] = 0
    for c in _COUNTS:
        v = pd.to_numeric(df[c], errors="coerce").fillna(0)
        bad = ~np.isfinite(v.astype(float)) | (v < 0) | (v > MAX_RECORD_BYTES)
        if bad.any():
            i = int(np.flatnonzero(bad.to_numpy())[0])
            raise BufsizeError(f"{source}: {int(bad.sum())} record(s) with a {c} that is not a byte count from 0 "
                               f"to {MAX_RECORD_BYTES:.0e} (first: row {i + 1}, {str(df[c].iloc[i])[:40]})", argument="FILE")
        df[c] = v.astype("int64")
    for c in ("rtt_min_s", "rtt_mean_s", "rtt_handshake_s", "rtt_leg_init_s", "rtt_leg_resp_s",
              "rtt_leg_init_mean_s", "rtt_leg_resp_mean_s"):
        df[c] = pd.to_numeric(df[c], errors="coerce")
    if "rtt_ms" in df.columns and df["rtt_min_s"].isna().all():
        df["rtt_min_s"] = pd.to_numeric(df["rtt_ms"], errors="coerce") / 1e3
    if df["rtt_mean_s"].isna().all():
        df["rtt_mean_s"] = df["rtt_min_s"]
    if df["rtt_path_s"].isna().all():
        df = with_path_rtt(df)
    return df[list(COLUMNS) + [c for c in df.columns if c not in COLUMNS]].sort_values("start_s").reset_index(drop=True)


#: The longest span of flow records read (one slot per second of it is allocated downstream):
#: 1e7 s, about 116 days.
MAX_SPAN_S = 1e7
#: The largest byte count one record may carry (2^50, about 1 PB: beyond it int64 sums can wrap).
MAX_RECORD_BYTES = float(2**50)


def _check_times(df: pd.DataFrame, source: str) -> None:
    """Finite times, no record ending before it starts, and a span the profile can hold; each
    refused with the first offending row (1-based, as a spreadsheet shows it)."""
    st, en = df["start_s"].to_numpy(dtype=float), df["end_s"].to_numpy(dtype=float)
    for name, v in (("start", st), ("end", en)):
        bad = ~np.isfinite(v)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise BufsizeError(f"{source}: {int(bad.sum())} record(s) with a {name} time that is not finite "
                               f"(first: row {i + 1})", argument="FILE")
    back = en < st
    if back.any():
        i = int(np.flatnonzero(back)[0])
        raise BufsizeError(f"{source}: {int(back.sum())} record(s) end before they start (first: row {i + 1}, "
                           f"start {st[i]:.6g} s, end {en[i]:.6g} s)", argument="FILE")
    if len(st):
        span = float(en.max() - st.min())
        if span > MAX_SPAN_S:
            lo, hi = int(st.argmin()), int(en.argmax())
            raise BufsizeError(f"{source}: the records span {span:.3g} s (row {lo + 1} starts first, row {hi + 1} "
                               f"ends last), more than {MAX_SPAN_S:.0e} s (~116 days): drop the stray rows or split "
                               "the file", argument="FILE")


def _seconds(s: pd.Series) -> pd.Series:
    if pd.api.types.is_numeric_dtype(s):
        return s.astype(float)
    num = pd.to_numeric(s, errors="coerce")
    if num.notna().all():
        return num.astype(float)
    try:
        ts = pd.to_datetime(s, errors="coerce", utc=True, format="mixed")  # each value on its own
        return (ts - pd.Timestamp(0, tz="UTC")).dt.total_seconds()
    except (ValueError, OverflowError):  # a date out of pandas' range (year -1) escapes errors="coerce"
        return s.map(_one_date).astype(float)


def _one_date(x: Any) -> float:
    """Seconds since the epoch of one date (NaN if it is none), at any year."""
    try:
        t = pd.Timestamp(x)
        if t is pd.NaT:
            return math.nan
        if t.tzinfo is not None:
            t = t.tz_convert(None)
        return float((t.to_pydatetime() - __import__("datetime").datetime(1970, 1, 1)).total_seconds())
    except (ValueError, OverflowError, TypeError):
        return math.nan


def _proto(x: Any) -> int:
    if isinstance(x, str):
        v = x.strip().lower()
        if v in ("tcp", "6"):
            return 6
        if v in ("udp", "17"):
            return 17
        if v in ("icmp", "1"):
            return 1
        try:
            n = int(v)
        except ValueError:
            return 0
        return n if 0 <= n <= 255 else 0
    try:
        n = int(x)
    except (TypeError, ValueError, OverflowError):  # NaN, inf: no protocol
        return 0
    return n if 0 <= n <= 255 and n == x else 0


def read_table(path: str | Path, kind: str) -> FlowRecords:
    """CSV or Parquet flow records (the columns of :data:`COLUMNS`, at least :data:`REQUIRED`)."""
    p = Path(path)
    meta: dict[str, Any] = {"source": str(p), "kind": kind}
    try:
        if kind == "parquet":
            import pyarrow.parquet as pq

            t = pq.read_table(p)
            md = (t.schema.metadata or {}).get(b"bufsize.traffic")
            saved = json.loads(md) if md else None
            if isinstance(saved, dict):
                meta.update({k: v for k, v in saved.items() if k not in ("source", "kind")})
                meta["kind"] = kind
            df = t.to_pandas()
        else:
            import warnings

            with warnings.catch_warnings():
                # a row longer than the header: pandas would take its first column as an index
                # (every value shifted by one column) or drop the extra (index_col=False, a warning)
                warnings.simplefilter("error", pd.errors.ParserWarning)
                df = pd.read_csv(p, comment="#", index_col=False)
    except BufsizeError:
        raise
    except RecursionError:
        raise BufsizeError(f"{p.name}: its metadata nests too deeply to be bufsize's", argument="FILE") from None
    except Exception as exc:  # pandas/pyarrow parse errors come in many types
        raise BufsizeError(f"{p.name}: cannot read as {kind} flow records: {str(exc).splitlines()[0]}",
                           argument="FILE") from None
    if not len(df.columns):
        raise BufsizeError(f"{p.name}: no columns", argument="FILE")
    # records bufsize wrote with the capture's span count their times from its start: a flow
    # before it stays before it (the profile leaves it out), rather than shifting every other
    dropped: dict[str, Any] = {}
    df = _complete_columns(df, p.name, rebase="duration_s" not in meta, dropped=dropped)
    if dropped:
        meta["dropped_at_read"] = dropped
    meta.setdefault("duration_s", float(df["end_s"].max()) if len(df) else 0.0)
    return FlowRecords(df, meta)


_ZEEK_STATE_COMPLETE = {"SF"}


def read_zeek(path: str | Path) -> FlowRecords:
    """A Zeek ``conn.log`` (TSV with a ``#fields`` header, or JSON lines)."""
    p = Path(path)
    rows: list[dict[str, Any]] = []
    fields: list[str] | None = None
    with open(p, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line:
                continue
            if line.startswith("#"):
                if line.startswith("#fields"):
                    fields = line.split("\t")[1:]
                continue
            if line.lstrip().startswith("{"):
                try:
                    obj = json.loads(line)
                except ValueError:
                    raise BufsizeError(f"{p.name}: a line is not JSON: {line[:60]!r}", argument="FILE") from None
                except RecursionError:
                    raise BufsizeError(f"{p.name}: a line nests JSON too deeply to be a Zeek record: {line[:60]!r}",
                                       argument="FILE") from None
                if not isinstance(obj, dict):
                    raise BufsizeError(f"{p.name}: a JSON line that is not a Zeek record: {line[:60]!r}",
                                       argument="FILE")
                rows.append(obj)
                continue
            if fields is None:
                raise BufsizeError(f"{p.name}: a Zeek conn.log needs its '#fields' header line", argument="FILE")
            rows.append(dict(zip(fields, line.split("\t"))))
    if not rows:
        raise BufsizeError(f"{p.name}: no connections in the log", argument="FILE")
    df = pd.DataFrame(rows)
    need = ["ts", "proto", "id.orig_h", "id.resp_h"]
    miss = [c for c in need if c not in df.columns]
    if miss:
        raise BufsizeError(f"{p.name}: missing Zeek field{'s' if len(miss) > 1 else ''} {', '.join(miss)}",
                           argument="FILE")

    def num(col: str) -> pd.Series:
        if col not in df.columns:
            return pd.Series(np.zeros(len(df)))
        v = df[col].map(lambda x: None if isinstance(x, (dict, list)) else x)  # JSON nests: not a number
        return pd.to_numeric(v.replace({"-": None, "(empty)": None}), errors="coerce").fillna(0)

    def port(col: str) -> pd.Series:
        v = num(col)
        return v.where((v >= 0) & (v <= 65535), 0).astype(int)

    # counts stay floats here: _complete_columns leaves out the records whose counts are none (inf, 1e30)
    out = pd.DataFrame({
        "proto": df["proto"], "src": df["id.orig_h"].astype(str), "sport": port("id.orig_p"),
        "dst": df["id.resp_h"].astype(str), "dport": port("id.resp_p"),
        "start_s": num("ts"), "end_s": num("ts") + num("duration"),
        "packets_fwd": num("orig_pkts"), "packets_rev": num("resp_pkts"),
        "bytes_fwd": num("orig_ip_bytes"), "bytes_rev": num("resp_ip_bytes"),
        "payload_fwd": num("orig_bytes"), "payload_rev": num("resp_bytes"),
        "unique_fwd": num("orig_bytes"), "unique_rev": num("resp_bytes"),
    })
    if "conn_state" in df.columns:
        out["complete"] = df["conn_state"].isin(list(_ZEEK_STATE_COMPLETE))
        out["end_reason"] = df["conn_state"].astype(str)
    dropped: dict[str, Any] = {}
    out = _complete_columns(out, p.name, dropped=dropped)
    meta: dict[str, Any] = {"source": str(p), "kind": "zeek", "duration_s": float(out["end_s"].max()) if len(out) else 0.0}
    if dropped:
        meta["dropped_at_read"] = dropped
    return FlowRecords(out, meta)


def read(path: str | Path, *, idle_timeout: float = 60.0, bin_s: float = 0.1,
         progress: bool | None = None) -> FlowRecords:
    """Flow records from any supported file (the kind is sniffed from its first bytes)."""
    kind = kind_of(path)
    if kind == "capture":
        return read_capture(path, idle_timeout=idle_timeout, bin_s=bin_s, progress=progress)
    if kind == "zeek":
        return read_zeek(path)
    if kind == "profile":
        raise BufsizeError(f"{Path(path).name} is a saved profile, not flow records", argument="FILE")
    return read_table(path, kind)
