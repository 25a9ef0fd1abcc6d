"""The receiving side of ``bufsize transfer``: receives, measures, and (``sobas``) sizes the window.

Modes (``--buffer``):
  * ``autotune``  nothing set: Linux receive-buffer autotuning (``tcp_moderate_rcvbuf``).
  * ``fixed:SIZE`` SO_SNDBUF and SO_RCVBUF = SIZE before connecting, on both ends (as ``iperf3 -w``);
    this also turns autotuning off for the socket. A request capped by ``net.core.rmem_max`` /
    ``wmem_max`` is reported in ``warnings``.
  * ``sobas``  the buffers stay at what the kernel allows (autotuning up to ``tcp_rmem``'s maximum,
    J6 step 1) and the controller's limit is applied with ``TCP_WINDOW_CLAMP``, which caps the
    window the receiver advertises without dropping queued data (setting SO_RCVBUF after connect
    would not shrink an open window and would turn autotuning off). Autotuning can raise the clamp
    again when it grows the buffer, so the tool reads the clamp back after every read from the
    socket and re-applies the limit when the kernel moved it (``clamp_reapplied`` counts it).
"""

from __future__ import annotations

import dataclasses
import select
import socket
import struct
import threading
import time
from typing import Any

from bufsize.transfer import protocol as P
from bufsize.transfer.server import new_token
from bufsize.transfer.tcpinfo import buffers, set_buffers, set_window_clamp, tcp_info, tcp_rmem_max, window_clamp

SO_TIMESTAMPNS = 35  # Linux; the control message type has the same number
PROBE_PERIOD_NS = 20_000_000


@dataclasses.dataclass
class ClientOptions:
    host: str
    port: int = 5301
    duration: float | None = 10.0
    nbytes: int | None = None
    mode: str = "autotune"
    size: int | None = None
    interval: float = 1.0
    rtt_source: str = "probes"
    slope_tolerance: float = 0.5
    readjust: bool = False
    connect_timeout: float = 5.0
    stall_timeout: float = 10.0


class _Probes(threading.Thread):
    """UDP side of a sobas transfer: periodic probes, their echoes, and the packet trains."""

    def __init__(self, sock: socket.socket, token: int, ctl, lock: threading.Lock, use_rtt: bool):
        super().__init__(daemon=True)
        self.sock, self.token, self.ctl, self.lock, self.use_rtt = sock, token, ctl, lock, use_rtt
        self.stop = threading.Event()
        self.sent = self.echoed = self.fwd_lost = 0
        self.rtt_s: float | None = None
        self.trains: dict[int, list] = {}
        self.trains_done: set[int] = set()
        self.ignored = 0
        self.train_packets = self.kernel_stamped = 0

    def _finish_trains(self, now_ns: int, force: bool) -> None:
        for k, tr in list(self.trains.items()):
            got, count, seen, stamps = tr[2], tr[3], tr[4], tr[5]
            if k in self.trains_done or not (force or got >= count or now_ns - seen > 200_000_000):
                continue
            self.trains_done.add(k)
            gaps = sorted(b - a for a, b in zip(sorted(stamps), sorted(stamps)[1:]))
            if len(gaps) >= 1:
                # L / median inter-arrival gap: the first packets of a train may pass a shaper's
                # burst allowance (htb's 15 kB in the testbed) back to back; the median gap is the
                # narrow link's spacing as long as most of the train is spaced by it
                med = gaps[len(gaps) // 2] if len(gaps) % 2 else (gaps[len(gaps) // 2 - 1] + gaps[len(gaps) // 2]) // 2
                if med > 0:
                    with self.lock:
                        self.ctl.on_train(now_ns, len(gaps) * (P.TRAIN_SIZE + 28), len(gaps) * med)

    def _datagram(self) -> None:
        try:
            data, anc, _flags, _addr = self.sock.recvmsg(2048, 64)
        except OSError:
            return
        now = time.monotonic_ns()
        if len(data) == P.PROBE_SIZE and data[:4] == P.ECHO_MAGIC:
            _, tok, seq, t_send, rx = P.ECHO.unpack_from(data)
            if tok != self.token or t_send > now:
                self.ignored += 1
                return
            self.echoed += 1
            rtt = (now - t_send) / 1e9
            self.rtt_s = rtt
            lost = max(0, min(rx, self.sent) - self.echoed)  # echoes lost on the forward path so far
            with self.lock:
                for _ in range(min(lost - self.fwd_lost, 1000)):
                    self.ctl.on_probe(now, True, None)
                self.fwd_lost = max(self.fwd_lost, lost)
                self.ctl.on_probe(now, False, rtt if self.use_rtt else None)
        elif len(data) == P.TRAIN_SIZE and data[:4] == P.TRAIN_MAGIC:
            _, tok, k, _i, count = P.TRAIN.unpack_from(data)
            if tok != self.token or k > 64 or k in self.trains_done:
                self.ignored += 1
                return
            ts = now
            for level, typ, cdata in anc:  # kernel receive timestamp (CLOCK_REALTIME), if given
                if level == socket.SOL_SOCKET and typ == SO_TIMESTAMPNS and len(cdata) >= 16:
                    sec, nsec = struct.unpack("=qq", cdata[:16])
                    ts = sec * 1_000_000_000 + nsec
                    self.kernel_stamped += 1
            self.train_packets += 1
            # [first, last] arrival (kernel clock), packets received, packets sent, last seen
            # (monotonic), arrival times
            tr = self.trains.setdefault(k, [ts, ts, 0, max(1, min(count, 1000)), now, []])
            tr[1] = max(tr[1], ts)
            tr[0] = min(tr[0], ts)
            tr[2] += 1
            tr[4] = now
            if len(tr[5]) < 1000:
                tr[5].append(ts)
            self._finish_trains(now, False)
        else:
            self.ignored += 1

    def run(self) -> None:
        seq = 0
        next_send = time.monotonic_ns()
        while not self.stop.is_set():
            now = time.monotonic_ns()
            if now >= next_send:
                try:
                    self.sock.send(P.pad(P.PROBE.pack(P.PROBE_MAGIC, self.token, seq, now), P.PROBE_SIZE))
                    self.sent += 1
                except OSError:
                    pass
                seq = (seq + 1) & 0xFFFFFFFF
                next_send += PROBE_PERIOD_NS * max(1, (now - next_send) // PROBE_PERIOD_NS + 1)
            wait = max(0.0, (next_send - time.monotonic_ns()) / 1e9)
            r, _, _ = select.select([self.sock], [], [], wait)
            if r:
                for _ in range(64):
                    self._datagram()
                    if not select.select([self.sock], [], [], 0)[0]:
                        break
            self._finish_trains(time.monotonic_ns(), False)


def _connect(o: ClientOptions, warnings: list) -> socket.socket:
    infos = socket.getaddrinfo(o.host, o.port, type=socket.SOCK_STREAM)
    if not infos:
        raise OSError(f"cannot resolve {o.host}")
    fam, typ, proto, _, addr = infos[0]
    s = socket.socket(fam, typ, proto)
    if o.mode == "fixed" and o.size is not None:
        warnings += set_buffers(s, o.size)
    s.settimeout(o.connect_timeout)
    s.connect(addr)
    return s


def run_client(o: ClientOptions, on_interval=None) -> dict:
    """Run one transfer; returns the report (the JSON schema of docs/transfer.md).

    ``on_interval(record)`` is called after each interval. Ctrl-C (KeyboardInterrupt) ends the
    transfer early; the report so far is returned with ``end.interrupted = true``.
    """
    warnings: list[str] = []
    token = new_token()
    tok = int(token, 16)
    t_start_wall = time.time()
    sock = _connect(o, warnings)
    peer = sock.getpeername()
    hello = {"mode": o.mode, "token": token, "interval": o.interval, "size": o.size}
    if o.nbytes is not None:
        hello["bytes"] = o.nbytes
    else:
        hello["duration"] = o.duration
    sock.sendall(P.pack_message(P.KIND_DATA, hello))
    status, reply = P.read_message(sock, time.monotonic() + o.connect_timeout + 5, P.MAX_REPLY)
    if status != 0:
        sock.close()
        raise P.ProtocolError(f"server refused: {reply.get('error', '?')}")
    warnings += [f"server {w}" for w in reply.get("warnings", []) if isinstance(w, str)]
    start = {"version": 1, "timestamp": t_start_wall, "connecting_to": {"host": o.host, "port": o.port},
             "connected": {"local": list(sock.getsockname()[:2]), "remote": list(peer[:2])},
             "test_start": {"mode": o.mode, "size": o.size, "duration": o.duration, "bytes": o.nbytes,
                            "interval": o.interval, "rtt_source": o.rtt_source},
             "sock": {"requested": o.size, "client": buffers(sock), "server": reply.get("buffers"),
                      "window_clamp": window_clamp(sock), "tcp_rmem_max": tcp_rmem_max()}}

    ctl = probes = udp = None
    lock = threading.Lock()
    if o.mode == "sobas":
        from bufsize._engine import Sobas

        mss = tcp_info(sock).get("advmss") or 1448
        ctl = Sobas(int(mss), tcp_rmem_max(), slope_tolerance=o.slope_tolerance, readjust=o.readjust)
        udp = socket.socket(sock.family, socket.SOCK_DGRAM)
        udp.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
        udp.connect((peer[0], int(reply.get("udp_port", o.port))))  # only the server's datagrams arrive
        probes = _Probes(udp, tok, ctl, lock, use_rtt=o.rtt_source == "probes")
        probes.start()

    buf = bytearray(256 * 1024)
    view = memoryview(buf)
    total = 0
    intervals: list[dict] = []
    interrupted = False
    end_reason = "server closed"
    applied = None
    reapplied = 0
    t0 = time.monotonic()
    t0_ns = time.monotonic_ns()
    iv_start, iv_bytes = t0, 0
    hard_end = t0 + (o.duration if o.duration is not None else 3600.0) + o.stall_timeout
    last_data = t0
    last_tcp_rtt = 0
    rmem_max = tcp_rmem_max()

    def close_interval(now: float) -> None:
        nonlocal iv_start, iv_bytes, applied, reapplied
        info = tcp_info(sock)
        clamp = window_clamp(sock)
        if applied is not None and clamp != applied:  # autotuning moved it since the last read
            set_window_clamp(sock, applied)
            reapplied += 1
            clamp = window_clamp(sock)
        rec: dict[str, Any] = {
               "start": round(iv_start - t0, 6), "end": round(now - t0, 6), "seconds": round(now - iv_start, 6),
               "bytes": iv_bytes, "bits_per_second": 8 * iv_bytes / max(now - iv_start, 1e-9),
               "rcv_rtt_ms": info.get("rcv_rtt", 0) / 1000.0, "rcvbuf": buffers(sock)["rcvbuf"],
               "rcv_space": info.get("rcv_space"), "window_clamp": clamp, "retransmits": None}
        if ctl is not None and probes is not None:
            with lock:
                rec.update(sobas_limit=ctl.limit, sobas_phase=ctl.phase, probe_rtt_ms=(probes.rtt_s or 0) * 1e3,
                           srtt_ms=(ctl.srtt or 0) * 1e3)
        intervals.append(rec)
        if on_interval is not None:
            on_interval(rec)
        iv_start, iv_bytes = now, 0

    try:
        sock.settimeout(0.2)
        while True:
            now = time.monotonic()
            if now >= hard_end:
                end_reason = "client deadline"
                break
            try:
                n = sock.recv_into(view)
            except TimeoutError:
                n = -1
            now = time.monotonic()
            if n == 0:
                break
            if n > 0:
                total += n
                iv_bytes += n
                last_data = now
            elif now - last_data > o.stall_timeout:
                end_reason = "stalled"
                break
            if ctl is not None:
                now_ns = time.monotonic_ns()
                with lock:
                    if n > 0:
                        ctl.on_bytes(now_ns, n)
                    else:
                        ctl.tick(now_ns)
                    if o.rtt_source == "tcp-info" and now_ns - last_tcp_rtt >= PROBE_PERIOD_NS:
                        r = tcp_info(sock).get("rcv_rtt", 0)
                        if r > 0:
                            ctl.on_rtt(now_ns, r / 1e6)
                        last_tcp_rtt = now_ns
                    lim = ctl.limit
                if lim != applied and (applied is not None or lim < rmem_max):
                    set_window_clamp(sock, lim)
                    applied = lim
                elif applied is not None and window_clamp(sock) != applied:
                    # receive autotuning raises the clamp whenever it grows the buffer
                    # (tcp_rcv_space_adjust): put the limit back at once
                    set_window_clamp(sock, applied)
                    reapplied += 1
            while now - iv_start >= o.interval:
                close_interval(iv_start + o.interval if now - iv_start < 2 * o.interval else now)
    except KeyboardInterrupt:
        interrupted = True
        end_reason = "interrupted"
    except OSError as exc:
        end_reason = f"connection error: {exc}"
    t_end = time.monotonic()
    if iv_bytes or t_end - iv_start > 0.05:
        try:
            close_interval(t_end)
        except OSError:
            pass
    if probes is not None:
        probes.stop.set()
        probes.join(timeout=1.0)
        probes._finish_trains(time.monotonic_ns(), True)
    try:
        sock.close()
    except OSError:
        pass
    if udp is not None:
        udp.close()

    server = None
    if not interrupted:
        server = _fetch_results(o, token)
        if server is None:
            warnings.append("server results (retransmissions) not available")
    if server is not None:
        # server intervals start at its first send, ours at the reply: aligned by index (the
        # offset is about one RTT)
        siv = server.get("intervals", [])
        for i, rec in enumerate(intervals):
            if i < len(siv) and isinstance(siv[i], dict):
                rec["retransmits"] = siv[i].get("retransmits")
                rec["snd_cwnd"] = siv[i].get("snd_cwnd")
                rec["rtt_ms"] = siv[i].get("rtt_ms")
    secs = t_end - t0
    end = {"sum_received": {"start": 0.0, "end": round(secs, 6), "seconds": round(secs, 6), "bytes": total,
                            "bits_per_second": 8 * total / max(secs, 1e-9)},
           "retransmits": (server or {}).get("summary", {}).get("retransmits"),
           "server": (server or {}).get("summary"), "reason": end_reason, "interrupted": interrupted}
    if ctl is not None and probes is not None:
        end["sobas"] = {"final_limit": ctl.limit, "phase": ctl.phase, "capacity_estimate_Bps": ctl.capacity_estimate,
                        "initial_limit": ctl.initial_limit, "decisions": ctl.decisions(),
                        "probes": {"sent": probes.sent, "echoed": probes.echoed, "forward_lost": probes.fwd_lost,
                                   "ignored": probes.ignored},
                        "trains_measured": len(probes.trains_done), "train_packets": probes.train_packets,
                        "train_packets_kernel_timestamped": probes.kernel_stamped, "clamp_reapplied": reapplied}
        for d in end["sobas"]["decisions"]:
            d["t"] = (d.pop("t_ns") - t0_ns) / 1e9
    return {"start": start, "intervals": intervals, "end": end, "warnings": warnings}


def _fetch_results(o: ClientOptions, token: str) -> dict | None:
    """Ask the server for its side (TCP_INFO of the sender: retransmissions, cwnd, RTT)."""
    deadline = time.monotonic() + 6.0
    while time.monotonic() < deadline:
        try:
            with socket.create_connection((o.host, o.port), timeout=o.connect_timeout) as s:
                s.sendall(P.pack_message(P.KIND_RESULTS, {"token": token}))
                status, body = P.read_message(s, time.monotonic() + 5.0, P.MAX_REPLY * 64)
            if status == 0:
                return body
        except (OSError, P.ProtocolError):
            pass
        time.sleep(0.2)  # the server may still be closing the data connection
    return None
