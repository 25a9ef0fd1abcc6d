"""Linux socket details: ``struct tcp_info`` (``linux/tcp.h``), window clamp, buffer sizes."""

from __future__ import annotations

import socket
import struct

TCP_INFO = getattr(socket, "TCP_INFO", 11)
TCP_WINDOW_CLAMP = getattr(socket, "TCP_WINDOW_CLAMP", 10)

# The layout of struct tcp_info up to rcv_wnd (kernel 5.x/6.x). Later fields are ignored; a kernel
# that returns fewer bytes gets only the fields that fit.
_FIELDS = (
    [("state", "B"), ("ca_state", "B"), ("retransmits", "B"), ("probes", "B"), ("backoff", "B"),
     ("options", "B"), ("wscale", "B"), ("flags", "B")]
    + [(n, "I") for n in (
        "rto", "ato", "snd_mss", "rcv_mss", "unacked", "sacked", "lost", "retrans", "fackets",
        "last_data_sent", "last_ack_sent", "last_data_recv", "last_ack_recv", "pmtu", "rcv_ssthresh",
        "rtt", "rttvar", "snd_ssthresh", "snd_cwnd", "advmss", "reordering", "rcv_rtt", "rcv_space",
        "total_retrans")]
    + [(n, "Q") for n in ("pacing_rate", "max_pacing_rate", "bytes_acked", "bytes_received")]
    + [(n, "I") for n in ("segs_out", "segs_in", "notsent_bytes", "min_rtt", "data_segs_in", "data_segs_out")]
    + [(n, "Q") for n in ("delivery_rate", "busy_time", "rwnd_limited", "sndbuf_limited")]
    + [(n, "I") for n in ("delivered", "delivered_ce")]
    + [(n, "Q") for n in ("bytes_sent", "bytes_retrans")]
    + [(n, "I") for n in ("dsack_dups", "reord_seen", "rcv_ooopack", "snd_wnd", "rcv_wnd")]
)
_LAYOUT = []
_off = 0
for _name, _code in _FIELDS:
    _LAYOUT.append((_name, _code, _off))
    _off += struct.calcsize("=" + _code)
TCP_INFO_SIZE = _off  # 236 bytes


def tcp_info(sock: socket.socket) -> dict[str, int]:
    """The socket's ``tcp_info`` as a dict (times in microseconds, as the kernel gives them)."""
    raw = sock.getsockopt(socket.IPPROTO_TCP, TCP_INFO, 256)
    out = {}
    for name, code, off in _LAYOUT:
        size = struct.calcsize("=" + code)
        if off + size > len(raw):
            break
        out[name] = struct.unpack_from("=" + code, raw, off)[0]
    return out


def window_clamp(sock: socket.socket) -> int:
    return sock.getsockopt(socket.IPPROTO_TCP, TCP_WINDOW_CLAMP)


def set_window_clamp(sock: socket.socket, nbytes: int) -> None:
    sock.setsockopt(socket.IPPROTO_TCP, TCP_WINDOW_CLAMP, int(nbytes))


def buffers(sock: socket.socket) -> dict[str, int]:
    """SO_SNDBUF / SO_RCVBUF as the kernel reports them (twice the usable size on Linux)."""
    return {"sndbuf": sock.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF),
            "rcvbuf": sock.getsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF)}


def set_buffers(sock: socket.socket, size: int) -> list[str]:
    """Request SO_SNDBUF and SO_RCVBUF = ``size`` (as iperf3's ``-w`` does, before connect/listen).

    Linux stores twice the request (half is bookkeeping overhead) and caps the request at
    ``net.core.{w,r}mem_max``; a request that was capped is returned as a warning.
    """
    warnings = []
    for opt, name, sysctl in ((socket.SO_SNDBUF, "sndbuf", "wmem_max"), (socket.SO_RCVBUF, "rcvbuf", "rmem_max")):
        sock.setsockopt(socket.SOL_SOCKET, opt, int(size))
        got = sock.getsockopt(socket.SOL_SOCKET, opt)
        if got < 2 * size:
            warnings.append(f"{name}: requested {size} B, granted {got // 2} B (capped by net.core.{sysctl}"
                            f" = {read_sysctl('net/core/' + sysctl)})")
    return warnings


def read_sysctl(path: str) -> str:
    try:
        with open("/proc/sys/" + path) as f:
            return f.read().strip()
    except OSError:
        return "?"


def tcp_rmem_max() -> int:
    """The largest receive buffer autotuning may reach (``net.ipv4.tcp_rmem``'s third value)."""
    try:
        return int(read_sysctl("net/ipv4/tcp_rmem").split()[2])
    except (ValueError, IndexError):
        return 6 * 1024 * 1024
