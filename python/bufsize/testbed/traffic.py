"""The testbed's traffic generator: kernel TCP sockets driven by one small event loop per side.

``receiver`` (in the receivers' namespace) accepts connections, counts payload bytes per
long-lived flow (sampled every 50 ms, for goodput over any window) and records every user
transfer (size, accept time, first and last byte), answering each finished transfer with one byte.

``sender`` (in the senders' namespace) opens every long-lived flow in parallel before the start
(own source address per flow, ``TCP_CONGESTION`` per socket), starts each one at its start time
and keeps its socket buffer full until the end; closed-loop users connect, send a Pareto-sized
file, wait for the receiver's byte, think an exponential time and repeat. TCP_INFO of every
long-lived flow is sampled at a fixed interval.

The wire protocol: a 16-byte header ``!IIQ`` (kind 0 = long flow / 1 = user transfer, id, size)
then payload. All times are CLOCK_MONOTONIC, which both namespaces share.

Usage (started by the runner): ``python -m bufsize.testbed.traffic {sender,receiver} --run-id ID
--spec SPEC.json --out OUT.json``
"""

from __future__ import annotations

import argparse
import errno
import json
import math
import os
import random
import selectors
import socket
import struct
import sys
import time

HEADER = struct.Struct("!IIQ")
KIND_LONG, KIND_USER = 0, 1
PORT = 5001

# struct tcp_info (linux/tcp.h): offsets of the fields we keep
_TI = {
    "ca_state": ("B", 1), "retransmits": ("B", 2), "backoff": ("B", 4),
    "rto_us": ("I", 8), "snd_mss": ("I", 16), "unacked": ("I", 24), "lost": ("I", 32),
    "retrans": ("I", 36), "rtt_us": ("I", 68), "rttvar_us": ("I", 72), "snd_ssthresh": ("I", 76),
    "snd_cwnd": ("I", 80), "total_retrans": ("I", 100), "bytes_acked": ("Q", 120),
    "min_rtt_us": ("I", 148), "delivery_rate": ("Q", 160), "bytes_retrans": ("Q", 208),
}
TCP_INFO_LEN = 232


def parse_tcp_info(buf: bytes) -> dict[str, int]:
    """The fields of :data:`_TI` from a ``TCP_INFO`` getsockopt result (missing ones: -1)."""
    out = {}
    for name, (fmt, off) in _TI.items():
        size = struct.calcsize(fmt)
        out[name] = struct.unpack_from(fmt, buf, off)[0] if off + size <= len(buf) else -1
    return out


def pareto_size(rng: random.Random, mean: float, shape: float) -> int:
    """A Pareto-distributed size with the given mean (shape > 1): scale = mean (shape-1)/shape."""
    xm = mean * (shape - 1.0) / shape
    u = 1.0 - rng.random()  # (0, 1]
    return max(1, int(round(xm / u ** (1.0 / shape))))


def _write_json(path: str, data) -> None:
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(data, f)
    os.replace(tmp, path)


def _install_stop():
    import signal

    state = {"stop": False}

    def _h(*_):
        state["stop"] = True

    signal.signal(signal.SIGTERM, _h)
    signal.signal(signal.SIGINT, _h)
    return state


# ---------------------------------------------------------------------------------------- receiver

def receiver(spec: dict, out: str) -> int:
    t_end = spec["t0"] + spec["duration_s"] + 0.5
    n_long = len(spec["flows"])
    stop = _install_stop()
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("0.0.0.0", spec["port"]))
    ls.listen(1024)
    ls.setblocking(False)
    sel = selectors.DefaultSelector()
    sel.register(ls, selectors.EVENT_READ, None)
    open(out + ".ready", "w").close()

    counts = [0] * n_long
    samples_t: list[float] = []
    samples: list[list[int]] = []
    transfers: list[dict] = []
    buf = bytearray(1 << 18)
    view = memoryview(buf)
    next_sample = time.monotonic()
    sample_every = 0.05

    class Conn:
        __slots__ = ("sock", "hdr", "kind", "id", "size", "got", "t_accept", "t_first", "t_last", "done")

        def __init__(self, s, t):
            self.sock, self.hdr, self.kind, self.id, self.size = s, b"", -1, -1, 0
            self.got, self.t_accept, self.t_first, self.t_last, self.done = 0, t, 0.0, 0.0, False

    while not stop["stop"]:
        now = time.monotonic()
        if now >= t_end:
            break
        if now >= next_sample:
            samples_t.append(now)
            samples.append(list(counts))
            next_sample += sample_every
            if next_sample < now:
                next_sample = now + sample_every
        for key, _ev in sel.select(timeout=max(0.0, min(next_sample, t_end) - time.monotonic())):
            if key.data is None:
                while True:
                    try:
                        s, _ = ls.accept()
                    except BlockingIOError:
                        break
                    s.setblocking(False)
                    sel.register(s, selectors.EVENT_READ, Conn(s, time.monotonic()))
                continue
            c: Conn = key.data
            try:
                n = c.sock.recv_into(view)
            except (BlockingIOError, InterruptedError):
                continue
            except OSError:
                n = 0
            t = time.monotonic()
            if n == 0:
                sel.unregister(c.sock)
                c.sock.close()
                if c.kind == KIND_USER and not c.done:
                    transfers.append({"user": c.id, "size": c.size, "received": c.got, "t_accept": c.t_accept,
                                      "t_first": c.t_first, "t_last": c.t_last, "complete": False})
                continue
            data = view[:n]
            if c.kind < 0:
                need = HEADER.size - len(c.hdr)
                c.hdr += bytes(data[:need])
                data = data[need:]
                if len(c.hdr) < HEADER.size:
                    continue
                c.kind, c.id, c.size = HEADER.unpack(c.hdr)
                if c.kind == KIND_LONG and not 0 <= c.id < n_long:
                    c.kind = 99  # unknown flow: drain and ignore
            m = len(data)
            if m == 0:
                continue
            if c.kind == KIND_LONG:
                counts[c.id] += m
            elif c.kind == KIND_USER:
                if c.got == 0:
                    c.t_first = t
                c.got += m
                c.t_last = t
                if c.got >= c.size and not c.done:
                    c.done = True
                    transfers.append({"user": c.id, "size": c.size, "received": c.got, "t_accept": c.t_accept,
                                      "t_first": c.t_first, "t_last": c.t_last, "complete": True})
                    try:
                        c.sock.send(b"\1")
                    except OSError:
                        pass
    samples_t.append(time.monotonic())
    samples.append(list(counts))
    _write_json(out, {"role": "receiver", "sample_t": samples_t, "samples": samples, "transfers": transfers})
    return 0


# ------------------------------------------------------------------------------------------ sender

def _tcp_socket(src: str, cc: str) -> socket.socket:
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, cc.encode())
    s.bind((src, 0))
    s.setblocking(False)
    return s


def _connect(s: socket.socket, dst: str, port: int) -> None:
    err = s.connect_ex((dst, port))
    if err not in (0, errno.EINPROGRESS):
        raise OSError(err, f"connect: {os.strerror(err)}")


def sender(spec: dict, out: str) -> int:
    t0, dur = spec["t0"], spec["duration_s"]
    t_end = t0 + dur
    dst, port = spec["dst"], spec["port"]
    stop = _install_stop()
    sel = selectors.DefaultSelector()
    payload = memoryview(bytes(1 << 18))
    errors: list[str] = []

    # long-lived flows: connect all in parallel now, start each at its time
    flows = []
    for i, f in enumerate(spec["flows"]):
        s = _tcp_socket(f["src"], f["cc"])
        _connect(s, dst, port)
        flows.append({"i": i, "sock": s, "start": t0 + f["start_s"], "started": False, "pending": HEADER.pack(KIND_LONG, i, 0),
                      "sent": 0, "closed": False})
    info_rows: list[list] = []
    info_every = spec["tcpinfo_sample_s"]
    next_info = t0

    # closed-loop users
    users = []
    for j, u in enumerate(spec["users"]):
        rng = random.Random(spec["seed"] * 1_000_003 + j)
        users.append({"j": j, "spec": u, "rng": rng, "state": "think",
                      "at": t0 + rng.expovariate(1.0 / u["think_mean_s"]) if u["think_mean_s"] > 0 else t0,
                      "sock": None, "left": 0, "size": 0, "t_start": 0.0})
    fct_rows: list[dict] = []

    def user_event(u, now):
        spec_u = u["spec"]
        if u["state"] == "think" and now >= u["at"]:
            size = pareto_size(u["rng"], spec_u["mean_size_bytes"], spec_u["pareto_shape"])
            s = _tcp_socket(spec_u["src"], spec_u["cc"])
            u.update(state="connecting", sock=s, size=size, t_start=now,
                     pending=HEADER.pack(KIND_USER, u["j"], size), left=size)
            _connect(s, dst, port)
            sel.register(s, selectors.EVENT_WRITE, ("user", u))

    open(out + ".ready", "w").close()
    while not stop["stop"]:
        now = time.monotonic()
        if now >= t_end:
            break
        for f in flows:
            if not f["started"] and now >= f["start"]:
                f["started"] = True
                sel.register(f["sock"], selectors.EVENT_WRITE, ("long", f))
        for u in users:
            user_event(u, now)
        if now >= next_info and now >= t0:
            for f in flows:
                try:
                    ti = parse_tcp_info(f["sock"].getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, TCP_INFO_LEN))
                except OSError:
                    continue
                info_rows.append([now, f["i"]] + [ti[k] for k in _TI])
            next_info += info_every
            if next_info < now:
                next_info = now + info_every
        wake = [t_end, next_info]
        wake += [f["start"] for f in flows if not f["started"]]
        wake += [u["at"] for u in users if u["state"] == "think"]
        timeout = max(0.0, min(wake) - time.monotonic())
        for key, _ev in sel.select(timeout=timeout):
            kind, obj = key.data
            s = key.fileobj
            if kind == "long":
                try:
                    if obj["pending"]:
                        n = s.send(obj["pending"])
                        obj["pending"] = obj["pending"][n:]
                    else:
                        obj["sent"] += s.send(payload)
                except (BlockingIOError, InterruptedError):
                    pass
                except OSError as exc:
                    errors.append(f"flow {obj['i']}: {exc}")
                    sel.unregister(s)
                    obj["closed"] = True
                continue
            u = obj
            t = time.monotonic()
            try:
                if u["state"] == "connecting":
                    err = s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
                    if err:
                        raise OSError(err, os.strerror(err))
                    u["state"] = "sending"
                if u["state"] == "sending":
                    if u["pending"]:
                        n = s.send(u["pending"])
                        u["pending"] = u["pending"][n:]
                    elif u["left"] > 0:
                        n = s.send(payload[: min(len(payload), u["left"])])
                        u["left"] -= n
                    if not u["pending"] and u["left"] == 0:
                        u["state"] = "waiting"
                        sel.modify(s, selectors.EVENT_READ, ("user", u))
                elif u["state"] == "waiting":
                    if s.recv(1):
                        fct_rows.append({"user": u["j"], "size": u["size"], "t_start": u["t_start"], "t_done": t,
                                         "complete": True})
                    else:
                        raise OSError(errno.ECONNRESET, "closed before the reply")
                    sel.unregister(s)
                    s.close()
                    think = u["spec"]["think_mean_s"]
                    u.update(state="think", sock=None, at=t + (u["rng"].expovariate(1.0 / think) if think > 0 else 0.0))
            except (BlockingIOError, InterruptedError):
                pass
            except OSError as exc:
                errors.append(f"user {u['j']}: {exc}")
                try:
                    sel.unregister(s)
                except (KeyError, ValueError):
                    pass
                s.close()
                u.update(state="think", sock=None, at=t + 1.0)
    t_stop = time.monotonic()
    for u in users:
        if u["state"] != "think" and u["sock"] is not None:
            fct_rows.append({"user": u["j"], "size": u["size"], "t_start": u["t_start"], "t_done": math.nan,
                             "complete": False})
            u["sock"].close()
    for f in flows:
        f["sock"].close()
    _write_json(out, {"role": "sender", "t_stop": t_stop, "tcpinfo_columns": ["t", "flow"] + list(_TI),
                      "tcpinfo": info_rows, "sent": [f["sent"] for f in flows], "user_transfers": fct_rows,
                      "errors": errors[:100]})
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="bufsize.testbed.traffic")
    ap.add_argument("role", choices=("sender", "receiver"))
    ap.add_argument("--run-id", required=True)
    ap.add_argument("--spec", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args(argv)
    with open(a.spec) as f:
        spec = json.load(f)
    return sender(spec, a.out) if a.role == "sender" else receiver(spec, a.out)


if __name__ == "__main__":
    sys.exit(main())
