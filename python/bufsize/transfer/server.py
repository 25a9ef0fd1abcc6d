"""The sending side of ``bufsize transfer``: accepts clients, streams data, echoes probes.

Safety (docs/transfer.md): a versioned handshake with a magic number and bounded lengths, a
deadline on every read and a stall timeout on every write, at most ``max_clients`` transfers at a
time (more are refused at once), every transfer capped in duration and bytes, session results kept
for a bounded time, and UDP datagrams answered only when they carry the token of a live session and
come from that session's peer address. Errors in one connection end that connection only.
"""

from __future__ import annotations

import dataclasses
import os
import secrets
import select
import socket
import threading
import time

from bufsize.transfer import protocol as P
from bufsize.transfer.tcpinfo import buffers, set_buffers, tcp_info

MAX_DURATION_S = 3600.0
MAX_BYTES = 1 << 40
MODES = ("autotune", "fixed", "sobas")


@dataclasses.dataclass
class ServerOptions:
    host: str = "0.0.0.0"
    port: int = 5301
    max_clients: int = 4
    handshake_timeout: float = 5.0
    stall_timeout: float = 10.0
    #: a transfer whose peer takes less than this many bytes in ``stall_timeout`` seconds is ended
    #: ("too slow"), so peers that read a trickle cannot hold every slot for the whole duration
    min_progress_bytes: int = 64 * 1024
    max_duration: float = MAX_DURATION_S
    results_ttl: float = 60.0
    trains: int = 5
    train_packets: int = 40
    train_gap: float = 0.03
    chunk: int = 128 * 1024
    log: bool = True


@dataclasses.dataclass
class Session:
    token: int
    peer_ip: str
    mode: str
    want_trains: bool
    rx_count: int = 0
    udp_addr: tuple | None = None
    trains_sent: bool = False
    intervals: list = dataclasses.field(default_factory=list)
    summary: dict = dataclasses.field(default_factory=dict)
    done_at: float | None = None
    fetched: bool = False


def _validate_hello(body: dict, opts: ServerOptions) -> dict:
    """Check a data hello; returns the parsed request or raises ProtocolError naming the field."""
    mode = body.get("mode")
    if mode not in MODES:
        raise P.ProtocolError("mode: expected autotune, fixed or sobas")
    token = body.get("token")
    if not isinstance(token, str) or len(token) != 16:
        raise P.ProtocolError("token: expected 16 hex digits")
    try:
        tok = int(token, 16)
    except ValueError as exc:
        raise P.ProtocolError("token: expected 16 hex digits") from exc
    duration, nbytes = body.get("duration"), body.get("bytes")
    if nbytes is not None:
        if not isinstance(nbytes, int) or isinstance(nbytes, bool) or not 0 < nbytes <= MAX_BYTES:
            raise P.ProtocolError(f"bytes: expected an integer in 1..{MAX_BYTES}")
    if duration is not None:
        if not isinstance(duration, (int, float)) or isinstance(duration, bool) or not 0 < duration <= opts.max_duration:
            raise P.ProtocolError(f"duration: expected seconds in (0, {opts.max_duration:g}]")
    if (duration is None) == (nbytes is None):
        raise P.ProtocolError("duration/bytes: exactly one is required")
    interval = body.get("interval", 1.0)
    if not isinstance(interval, (int, float)) or isinstance(interval, bool) or not 0.05 <= interval <= 60:
        raise P.ProtocolError("interval: expected seconds in [0.05, 60]")
    size = body.get("size")
    if mode == "fixed":
        if not isinstance(size, int) or isinstance(size, bool) or not 1024 <= size <= 1 << 30:
            raise P.ProtocolError("size: expected bytes in [1024, 1 GiB]")
    return {"mode": mode, "token": tok, "duration": duration, "bytes": nbytes, "interval": float(interval),
            "size": size}


class Server:
    """``Server(opts).serve(stop)`` runs until ``stop`` (a threading.Event) is set."""

    def __init__(self, opts: ServerOptions):
        self.opts = opts
        fam = socket.AF_INET6 if ":" in opts.host else socket.AF_INET
        self.tcp = socket.socket(fam, socket.SOCK_STREAM)
        self.tcp.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.tcp.bind((opts.host, opts.port))
        self.tcp.listen(16)
        self.port = self.tcp.getsockname()[1]
        self.udp = socket.socket(fam, socket.SOCK_DGRAM)
        self.udp.bind((opts.host, self.port))
        self.sessions: dict[int, Session] = {}
        self.lock = threading.Lock()
        self.active = 0
        self.threads: list[threading.Thread] = []
        self.counters = {"accepted": 0, "refused_busy": 0, "protocol_errors": 0, "udp_ignored": 0, "transfers": 0}

    def log(self, msg: str) -> None:
        if self.opts.log:
            print(f"bufsize transfer server: {msg}", flush=True)

    # ---- UDP: probe echoes and packet trains ----
    def _udp_datagram(self) -> None:
        try:
            data, addr = self.udp.recvfrom(2048)
        except OSError:
            return
        if len(data) != P.PROBE_SIZE or data[:4] != P.PROBE_MAGIC:
            self.counters["udp_ignored"] += 1
            return
        _, tok, seq, t_send = P.PROBE.unpack_from(data)
        with self.lock:
            s = self.sessions.get(tok)
            if s is None or s.done_at is not None or addr[0] != s.peer_ip:
                self.counters["udp_ignored"] += 1
                return
            s.rx_count += 1
            s.udp_addr = addr
            rx = s.rx_count
            start_trains = s.want_trains and not s.trains_sent
            s.trains_sent = s.trains_sent or start_trains
        try:
            self.udp.sendto(P.pad(P.ECHO.pack(P.ECHO_MAGIC, tok, seq, t_send, rx & 0xFFFFFFFF), P.PROBE_SIZE), addr)
        except OSError:
            pass
        if start_trains:
            t = threading.Thread(target=self._send_trains, args=(tok, addr), daemon=True)
            t.start()

    def _send_trains(self, tok: int, addr: tuple) -> None:
        o = self.opts
        for k in range(o.trains):
            pkts = [P.pad(P.TRAIN.pack(P.TRAIN_MAGIC, tok, k, i, o.train_packets), P.TRAIN_SIZE)
                    for i in range(o.train_packets)]
            for p in pkts:  # back to back
                try:
                    self.udp.sendto(p, addr)
                except OSError:
                    return
            time.sleep(o.train_gap)

    # ---- TCP ----
    def _refuse(self, conn: socket.socket, msg: str) -> None:
        try:
            conn.settimeout(1.0)
            conn.sendall(P.pack_message(1, {"error": msg}))
        except OSError:
            pass

    def _handle(self, conn: socket.socket, addr: tuple) -> None:
        try:
            self._handle_inner(conn, addr)
        except P.ProtocolError as exc:
            self.counters["protocol_errors"] += 1
            self.log(f"{addr[0]}: dropped ({exc})")
            self._refuse(conn, str(exc))
        except OSError as exc:
            self.log(f"{addr[0]}: connection ended ({exc})")
        except Exception as exc:  # noqa: BLE001 - one bad connection must not stop the server
            self.log(f"{addr[0]}: internal error {type(exc).__name__}: {exc}")
        finally:
            try:
                conn.close()
            except OSError:
                pass
            with self.lock:
                self.active -= 1

    def _handle_inner(self, conn: socket.socket, addr: tuple) -> None:
        o = self.opts
        kind, body = P.read_message(conn, time.monotonic() + o.handshake_timeout, P.MAX_HELLO)
        if kind == P.KIND_RESULTS:
            tok = body.get("token")
            try:
                tok = int(tok, 16) if isinstance(tok, str) and len(tok) == 16 else None
            except ValueError:
                tok = None
            with self.lock:
                s = self.sessions.get(tok) if tok is not None else None
                ok = s is not None and s.peer_ip == addr[0] and s.done_at is not None
                res = {"intervals": s.intervals, "summary": s.summary} if ok else None
                if ok:
                    s.fetched = True
            if res is None:
                raise P.ProtocolError("token: no finished session with this token from this address")
            conn.settimeout(o.stall_timeout)
            conn.sendall(P.pack_message(0, res))
            return
        if kind != P.KIND_DATA:
            raise P.ProtocolError(f"kind: unknown message kind {kind}")
        req = _validate_hello(body, o)
        warnings = []
        if req["mode"] == "fixed":
            warnings = set_buffers(conn, req["size"])
        sess = Session(token=req["token"], peer_ip=addr[0], mode=req["mode"], want_trains=req["mode"] == "sobas")
        with self.lock:
            if req["token"] in self.sessions:
                raise P.ProtocolError("token: already in use")
            self.sessions[req["token"]] = sess
        try:
            info = tcp_info(conn)
            conn.settimeout(o.stall_timeout)
            conn.sendall(P.pack_message(0, {"udp_port": self.port, "mss": info.get("snd_mss", 0),
                                            "buffers": buffers(conn), "warnings": warnings}))
            self.counters["transfers"] += 1
            self.log(f"{addr[0]}: {req['mode']} transfer started")
            self._stream(conn, req, sess)
        finally:
            with self.lock:
                if sess.done_at is None:
                    sess.done_at = time.monotonic()

    def _stream(self, conn: socket.socket, req: dict, sess: Session) -> None:
        o = self.opts
        payload = memoryview(os.urandom(o.chunk))
        sent = 0
        t0 = time.monotonic()
        end_t = t0 + (req["duration"] if req["duration"] is not None else o.max_duration)
        limit = req["bytes"] if req["bytes"] is not None else MAX_BYTES
        interval = req["interval"]
        next_iv = t0 + interval
        last = {"t": t0, "retr": 0, "sent": 0}
        reason = "done"

        def sample(now: float) -> None:
            i = tcp_info(conn)
            sess.intervals.append({
                "start": round(last["t"] - t0, 6), "end": round(now - t0, 6),
                "bytes": sent - last["sent"], "retransmits": i.get("total_retrans", 0) - last["retr"],
                "snd_cwnd": i.get("snd_cwnd", 0), "rtt_ms": i.get("rtt", 0) / 1000.0,
                "snd_wnd": i.get("snd_wnd"), "sndbuf": conn.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF)})
            last.update(t=now, retr=i.get("total_retrans", 0), sent=sent)
            if len(sess.intervals) > 100_000:
                del sess.intervals[0]

        mark_t, mark_sent = t0, 0     # the last time the peer had taken min_progress_bytes more
        try:
            while sent < limit:
                now = time.monotonic()
                if now >= end_t:
                    break
                if sent - mark_sent >= o.min_progress_bytes:
                    mark_t, mark_sent = now, sent
                elif now - mark_t > o.stall_timeout:
                    reason = (f"too slow (the peer took {sent - mark_sent} bytes in {now - mark_t:.0f} s, less than "
                              f"{o.min_progress_bytes} in {o.stall_timeout:g} s)")
                    break
                if now >= next_iv:
                    sample(now)
                    next_iv += interval * max(1, int((now - next_iv) / interval) + 1)
                n = conn.send(payload[: min(o.chunk, limit - sent)])
                sent += n
        except TimeoutError:
            reason = "stalled"
        except OSError as exc:
            reason = f"peer closed ({exc.strerror or exc})"
        now = time.monotonic()
        info = {}
        try:
            sample(now)
            info = tcp_info(conn)
            conn.shutdown(socket.SHUT_WR)
            # wait (bounded) for the client to close, discarding anything it sends; a peer that
            # stalled or read too slowly is not waited for (its slot is freed now)
            deadline = now + (5.0 if reason == "done" else 0.2)
            while time.monotonic() < deadline:
                conn.settimeout(max(0.01, deadline - time.monotonic()))
                if not conn.recv(4096):
                    break
        except (OSError, TimeoutError):
            pass
        with self.lock:
            sess.summary = {"bytes_sent": sent, "seconds": now - t0, "end": reason,
                            "retransmits": info.get("total_retrans", sum(i["retransmits"] for i in sess.intervals)),
                            "snd_mss": info.get("snd_mss")}
            sess.done_at = time.monotonic()
        self.log(f"{sess.peer_ip}: transfer ended ({reason}), {sent} bytes in {now - t0:.1f} s")

    def _expire(self) -> None:
        now = time.monotonic()
        with self.lock:
            for tok in [t for t, s in self.sessions.items()
                        if s.done_at is not None and now - s.done_at > self.opts.results_ttl]:
                del self.sessions[tok]

    def serve(self, stop: threading.Event) -> None:
        self.log(f"listening on {self.opts.host} port {self.port} (TCP data, UDP probes)")
        try:
            while not stop.is_set():
                r, _, _ = select.select([self.tcp, self.udp], [], [], 0.2)
                if self.udp in r:
                    for _ in range(64):  # bounded burst, then look at TCP again
                        self._udp_datagram()
                        if not select.select([self.udp], [], [], 0)[0]:
                            break
                if self.tcp in r:
                    try:
                        conn, addr = self.tcp.accept()
                    except OSError:
                        continue
                    with self.lock:
                        busy = self.active >= self.opts.max_clients
                        if not busy:
                            self.active += 1
                    if busy:
                        self.counters["refused_busy"] += 1
                        self._refuse(conn, f"server busy ({self.opts.max_clients} transfers running)")
                        conn.close()
                        continue
                    self.counters["accepted"] += 1
                    t = threading.Thread(target=self._handle, args=(conn, addr), daemon=True)
                    t.start()
                    self.threads = [x for x in self.threads if x.is_alive()] + [t]
                self._expire()
        finally:
            self.close()

    def close(self) -> None:
        for s in (self.tcp, self.udp):
            try:
                s.close()
            except OSError:
                pass


def new_token() -> str:
    return f"{secrets.randbits(64):016x}"
