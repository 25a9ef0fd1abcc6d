"""Synthetic captures whose truth is known exactly (for tests and the speed benchmark).

:func:`tcp_transfer` lays out the packets of one TCP connection as a capture point between the
client and the server sees them: the server's leg (capture -> server -> capture) and the client's
leg are fixed, so every RTT sample is their sum; ``size`` payload bytes go from the client to the
server in MSS segments, one window of ``window`` segments per RTT, each window ACKed (every second
segment) by the server; then FIN both ways. :func:`write_pcap` / :func:`write_pcapng` write frames
with any of the link types the reader supports (Ethernet, VLAN-tagged Ethernet, Linux SLL/SLL2,
raw IP), IPv4 or IPv6, cut to a snap length.
"""

from __future__ import annotations

import ipaddress
import struct
from dataclasses import dataclass
from typing import BinaryIO, Iterable, Iterator

LINK_ETHERNET, LINK_RAW, LINK_SLL, LINK_SLL2 = 1, 101, 113, 276


@dataclass
class Pkt:
    t: float
    src: str
    dst: str
    sport: int
    dport: int
    seq: int = 0
    ack: int = 0
    flags: str = "A"      # any of S A F R P
    payload: int = 0
    window: int = 65535
    ts: tuple[int, int] | None = None
    proto: int = 6
    syn_opts: bool = False


def _tcp_header(p: Pkt) -> bytes:
    opts = b""
    if p.syn_opts:
        opts += struct.pack("!BBH", 2, 4, 1448) + b"\x01" + struct.pack("!BBB", 3, 3, 7)  # MSS, NOP, wscale 7
    if p.ts is not None:
        opts += b"\x01\x01" + struct.pack("!BBII", 8, 10, p.ts[0] & 0xFFFFFFFF, p.ts[1] & 0xFFFFFFFF)
    while len(opts) % 4:
        opts += b"\x00"
    flags = 0
    for ch, bit in (("F", 1), ("S", 2), ("R", 4), ("P", 8), ("A", 16)):
        if ch in p.flags:
            flags |= bit
    off = (20 + len(opts)) // 4
    return struct.pack("!HHIIBBHHH", p.sport, p.dport, p.seq & 0xFFFFFFFF, p.ack & 0xFFFFFFFF, off << 4, flags,
                       p.window, 0, 0) + opts


def frame(p: Pkt, link: int = LINK_ETHERNET, vlan: int | None = None) -> tuple[bytes, int]:
    """(frame bytes with the payload as zeros, original length)."""
    v6 = ":" in p.src
    if p.proto == 6:
        l4 = _tcp_header(p)
    else:
        l4 = struct.pack("!HHHH", p.sport, p.dport, 8 + p.payload, 0)
    body = l4 + bytes(p.payload)
    if v6:
        ip = struct.pack("!IHBB", 6 << 28, len(body), p.proto, 64) + ipaddress.IPv6Address(p.src).packed \
            + ipaddress.IPv6Address(p.dst).packed
        ethertype = 0x86DD
    else:
        ip = struct.pack("!BBHHHBBH", 0x45, 0, 20 + len(body), 0, 0x4000, 64, p.proto, 0) \
            + ipaddress.IPv4Address(p.src).packed + ipaddress.IPv4Address(p.dst).packed
        ethertype = 0x0800
    pkt = ip + body
    if link == LINK_ETHERNET:
        tag = struct.pack("!HH", 0x8100, vlan) if vlan is not None else b""
        l2 = b"\x02\x00\x00\x00\x00\x01" + b"\x02\x00\x00\x00\x00\x02" + tag + struct.pack("!H", ethertype)
    elif link == LINK_SLL:
        l2 = struct.pack("!HHH", 0, 1, 6) + b"\x02\x00\x00\x00\x00\x01\x00\x00" + struct.pack("!H", ethertype)
    elif link == LINK_SLL2:
        l2 = struct.pack("!HHIHBB", ethertype, 0, 2, 1, 0, 6) + b"\x02\x00\x00\x00\x00\x01\x00\x00"
    elif link == LINK_RAW:
        l2 = b""
    else:
        raise ValueError(f"link type {link}")
    data = l2 + pkt
    return data, len(data)


def tcp_transfer(client: str, server: str, cport: int, sport: int, *, t0: float, size: int, leg_client: float,
                 leg_server: float, mss: int = 1448, window: int = 10, timestamps: bool = True,
                 server_bytes: int = 0, isn: tuple[int, int] = (1000, 50000), fin: bool = True,
                 rwnd: int | None = None, app_gap: float = 0.0) -> list[Pkt]:
    """The packets of one connection, in capture order (see the module docstring).

    ``rwnd``: the server's advertised window in bytes (window scale 7); ``app_gap``: the client
    idles this long after each window is acknowledged (an application-limited sender)."""
    out: list[Pkt] = []
    rtt = leg_client + leg_server
    ts_c = ts_s = 0

    def tsv(side: str, t: float) -> int:
        return int(t * 1000) + (7_000_000 if side == "c" else 9_000_000)

    last_c_tsval = [0]
    last_s_tsval = [0]

    def add(t: float, frm: str, **kw) -> None:
        if frm == "c":
            src, dst, sp, dp = client, server, cport, sport
            ts = (tsv("c", t), last_s_tsval[0]) if timestamps else None
            if ts:
                last_c_tsval[0] = ts[0]
        else:
            src, dst, sp, dp = server, client, sport, cport
            ts = (tsv("s", t), last_c_tsval[0]) if timestamps else None
            if ts:
                last_s_tsval[0] = ts[0]
        out.append(Pkt(t, src, dst, sp, dp, ts=ts, **kw))

    del ts_c, ts_s
    ci, si = isn
    t = t0
    add(t, "c", seq=ci, flags="S", syn_opts=True)
    t += leg_server
    add(t, "s", seq=si, ack=ci + 1, flags="SA", syn_opts=True)
    t += leg_client
    add(t, "c", seq=ci + 1, ack=si + 1, flags="A")
    seq, left = ci + 1, size
    sseq = si + 1
    gap = 1e-5
    while left > 0:
        n = min(window, -(-left // mss))
        segs = []
        for i in range(n):
            ln = min(mss, left)
            add(t + i * gap, "c", seq=seq, ack=sseq, flags="PA" if ln < mss else "A", payload=ln)
            seq += ln
            left -= ln
            segs.append(seq)
        # server ACKs every second segment (and the last) one server leg later
        win_field = (rwnd >> 7) if rwnd else 65535
        for i, end in enumerate(segs):
            if i % 2 == 1 or i == len(segs) - 1:
                add(t + i * gap + leg_server, "s", seq=sseq, ack=end, flags="A", window=win_field)
        t += rtt + app_gap
    if server_bytes:
        add(t, "s", seq=sseq, ack=seq, flags="PA", payload=server_bytes)
        sseq += server_bytes
        t += leg_client
        add(t, "c", seq=seq, ack=sseq, flags="A")
        t += leg_server
    if fin:
        add(t, "c", seq=seq, ack=sseq, flags="FA")
        t += leg_server
        add(t, "s", seq=sseq, ack=seq + 1, flags="FA")
        t += leg_client
        add(t, "c", seq=seq + 1, ack=sseq + 1, flags="A")
    return out


def udp_stream(src: str, dst: str, sport: int, dport: int, *, t0: float, rate_pps: float, count: int,
               payload: int = 1000) -> list[Pkt]:
    return [Pkt(t0 + i / rate_pps, src, dst, sport, dport, proto=17, payload=payload, flags="") for i in range(count)]


def _records(pkts: Iterable[Pkt], link: int, vlan: int | None, snaplen: int) -> Iterator[tuple[float, bytes, int]]:
    for p in pkts:
        data, orig = frame(p, link, vlan)
        yield p.t, data[:snaplen], orig


def write_pcap(f: BinaryIO, pkts: Iterable[Pkt], *, link: int = LINK_ETHERNET, vlan: int | None = None,
               snaplen: int = 96, nanosecond: bool = False, base: float = 1_700_000_000.0) -> None:
    magic = 0xA1B23C4D if nanosecond else 0xA1B2C3D4
    f.write(struct.pack("<IHHiIII", magic, 2, 4, 0, 0, snaplen, link))
    scale = 1_000_000_000 if nanosecond else 1_000_000
    for t, data, orig in _records(pkts, link, vlan, snaplen):
        ticks = round((base + t) * scale)
        f.write(struct.pack("<IIII", ticks // scale, ticks % scale, len(data), orig))
        f.write(data)


def write_pcapng(f: BinaryIO, pkts: Iterable[Pkt], *, link: int = LINK_ETHERNET, vlan: int | None = None,
                 snaplen: int = 96, base: float = 1_700_000_000.0) -> None:
    shb_body = struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1)
    f.write(struct.pack("<II", 0x0A0D0D0A, 12 + len(shb_body)) + shb_body + struct.pack("<I", 12 + len(shb_body)))
    # interface with if_tsresol = 9 (nanoseconds)
    opts = struct.pack("<HHB3x", 9, 1, 9) + struct.pack("<HH", 0, 0)
    idb_body = struct.pack("<HHI", link, 0, snaplen) + opts
    f.write(struct.pack("<II", 1, 12 + len(idb_body)) + idb_body + struct.pack("<I", 12 + len(idb_body)))
    for t, data, orig in _records(pkts, link, vlan, snaplen):
        ticks = round((base + t) * 1e9)
        pad = (-len(data)) % 4
        body = struct.pack("<IIIII", 0, ticks >> 32, ticks & 0xFFFFFFFF, len(data), orig) + data + bytes(pad)
        f.write(struct.pack("<II", 6, 12 + len(body)) + body + struct.pack("<I", 12 + len(body)))
