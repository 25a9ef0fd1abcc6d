"""Hostile captures (issue 33): each crafted here, small. A corrupt record, a file cut short, a
timestamp resolution the reader cannot take, a block of length 0, fragments, captures without data:
a one-line error (exit 2) or numbers with a warning that every command shows, never a traceback
and never numbers read silently from a part of the file."""

from __future__ import annotations

import io
import struct

import pytest

from bufsize.cli import main
from bufsize.errors import BufsizeError
from bufsize.traffic import load, read, synth


def _packets(n_flows: int = 20, size: int = 20_000):
    pk = []
    for i in range(n_flows):
        pk += synth.tcp_transfer(f"10.0.0.{i + 1}", "10.9.0.1", 30000 + i, 80, t0=i * 0.1, size=size,
                                 leg_client=0.002, leg_server=0.003)
    pk.sort(key=lambda p: p.t)
    return pk


def _pcap(pk) -> bytes:
    b = io.BytesIO()
    synth.write_pcap(b, pk)
    return b.getvalue()


def _record_offsets(data: bytes) -> list[int]:
    """Byte offsets of a little-endian pcap's records."""
    out, off = [], 24
    while off + 16 <= len(data):
        out.append(off)
        off += 16 + struct.unpack_from("<I", data, off + 8)[0]
    return out


def _with_caplen(data: bytes, record: int, caplen: int) -> bytes:
    off = _record_offsets(data)[record - 1]
    return data[:off + 8] + struct.pack("<I", caplen) + data[off + 12:]


def _one_line_error(capsys, args) -> str:
    code = main(args)
    err = capsys.readouterr().err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert code == 2, err
    assert len(lines) == 1 and len(lines[0]) < 600 and "Traceback" not in err, err[:2000]
    return lines[0]


def test_a_corrupt_record_early_is_refused_with_its_number(tmp_path, capsys):
    data = _pcap(_packets())
    n = len(_record_offsets(data))
    f = tmp_path / "c.pcap"
    f.write_bytes(_with_caplen(data, 6, 0xFFFFFFF0))
    line = _one_line_error(capsys, ["traffic", "summarize", str(f)])
    assert f"record 6 at byte {_record_offsets(data)[5]} is corrupt" in line
    assert "captured length is 4294967280" in line and "the 5 packets before it were used" in line
    assert n > 500


def test_a_corrupt_record_late_is_a_warning_every_command_shows(tmp_path, capsys):
    data = _pcap(_packets())
    n = len(_record_offsets(data))
    f = tmp_path / "c.pcap"
    f.write_bytes(_with_caplen(data, n - 10, 0xFFFFFFF0))
    prof = load(f)
    assert any(w.startswith(f"capture corrupt: record {n - 10} at byte") and f"the {n - 11} packets before it"
               in w for w in prof.warnings), prof.warnings
    assert prof.input_used["frames"] == n - 11
    code = main(["simulate", "--traffic", str(f), "--capacity", "10Mbps", "--buffer", "20pkt", "--duration", "1s",
                 "--warmup", "0.2s"])
    err = capsys.readouterr().err
    assert code in (0, None), err
    assert f"warning: capture corrupt: record {n - 10}" in err
    code = main(["recommend", "--traffic", str(f), "--capacity", "10Mbps", "--no-verify"])
    cap = capsys.readouterr()
    assert code in (0, None), cap.err
    assert f"capture corrupt: record {n - 10}" in cap.out + cap.err


def test_a_capture_cut_short_is_a_warning_every_command_shows(tmp_path, capsys):
    data = _pcap(_packets())
    f = tmp_path / "cut.pcap"
    f.write_bytes(data[:-30])
    prof = load(f)
    assert any("capture truncated: the capture ends inside record" in w for w in prof.warnings), prof.warnings
    main(["simulate", "--traffic", str(f), "--capacity", "10Mbps", "--buffer", "20pkt", "--duration", "1s",
          "--warmup", "0.2s"])
    assert "warning: capture truncated: the capture ends inside record" in capsys.readouterr().err
    assert main(["recommend", "--traffic", str(f), "--capacity", "10Mbps", "--no-verify"]) in (0, None)
    cap = capsys.readouterr()
    assert "capture truncated: the capture ends inside record" in " ".join((cap.out + cap.err).split())


def _pcapng(pk, tsresol: int, scale: float) -> bytes:
    """A pcapng whose interface declares `if_tsresol` = tsresol and whose timestamps count
    `scale` units per second."""
    out = io.BytesIO()
    shb = struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1)
    out.write(struct.pack("<II", 0x0A0D0D0A, 12 + len(shb)) + shb + struct.pack("<I", 12 + len(shb)))
    opts = struct.pack("<HHB3x", 9, 1, tsresol) + struct.pack("<HH", 0, 0)
    idb = struct.pack("<HHI", synth.LINK_ETHERNET, 0, 96) + opts
    out.write(struct.pack("<II", 1, 12 + len(idb)) + idb + struct.pack("<I", 12 + len(idb)))
    for p in pk:
        data, orig = synth.frame(p)
        data = data[:96]
        ticks = round((1_700_000_000 + p.t) * scale)
        body = struct.pack("<IIIII", 0, ticks >> 32, ticks & 0xFFFFFFFF, len(data), orig) + data
        body += bytes(-len(body) % 4)
        out.write(struct.pack("<II", 6, 12 + len(body)) + body + struct.pack("<I", 12 + len(body)))
    return out.getvalue()


@pytest.mark.parametrize("code, scale", [(0x80 | 20, 2.0 ** 20), (0x80 | 10, 2.0 ** 10), (3, 1e3), (9, 1e9)])
def test_pcapng_timestamp_resolutions_binary_and_decimal(tmp_path, code, scale):
    pk = _packets(3)
    f = tmp_path / "r.pcapng"
    f.write_bytes(_pcapng(pk, code, scale))
    rec = read(f)
    want = pk[-1].t - pk[0].t
    assert rec.meta["duration_s"] == pytest.approx(want, abs=2.0 / scale)


@pytest.mark.parametrize("code", [20, 0x7F, 0x80 | 64, 0xFF])
def test_pcapng_resolution_no_timestamp_can_count_is_refused(tmp_path, capsys, code):
    f = tmp_path / "r.pcapng"
    f.write_bytes(_pcapng(_packets(2), code, 1e6))
    line = _one_line_error(capsys, ["traffic", "summarize", str(f)])
    assert f"if_tsresol {code:#04x}" in line and "finer than 64-bit timestamps can count" in line


@pytest.mark.parametrize("length", [0, 4, 11, 13])
def test_pcapng_block_of_impossible_length_is_one_short_line(tmp_path, capsys, length):
    good = _pcapng(_packets(3), 9, 1e9)
    # a first block of length `length` after the section and interface headers (nothing precedes
    # it: an error), and the same after 20 packets (a warning: the rest was not read)
    shb_idb = 28 + 32
    bad = struct.pack("<II", 6, length) + b"\xab" * 4096
    f = tmp_path / "b.pcapng"
    f.write_bytes(good[:shb_idb] + bad + good[shb_idb:] * 200)
    line = _one_line_error(capsys, ["traffic", "summarize", str(f)])
    assert f"block 3 at byte {shb_idb} is corrupt (its total length is {length} bytes" in line
    with pytest.raises(BufsizeError):
        read(f)


def _fragment(p: synth.Pkt, mf: bool, offset8: int, ident: int = 0) -> tuple[bytes, int]:
    """``p``'s Ethernet frame as an IPv4 fragment: identification, more-fragments flag, offset."""
    data, orig = synth.frame(p)
    ip = bytearray(data)
    ip[14 + 4:14 + 8] = struct.pack("!HH", ident, (0x2000 if mf else 0) | offset8)
    return bytes(ip), orig


def _write(frames) -> bytes:
    out = io.BytesIO()
    out.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, synth.LINK_ETHERNET))
    for t, data, orig in sorted(frames, key=lambda x: x[0]):
        us = round((1_700_000_000 + t) * 1e6)
        out.write(struct.pack("<IIII", us // 1_000_000, us % 1_000_000, len(data), orig) + data)
    return out.getvalue()


def test_first_ipv4_fragment_counts_later_ones_are_in_the_load_series_only(tmp_path):
    # a TCP transfer (client -> server: the measured direction), UDP datagrams 10.0.0.5 -> .6 (the
    # initiator) and replies .6 -> .5, each in two fragments; three later fragments from .5 whose
    # first fragment is not in the capture
    tcp = synth.tcp_transfer("10.0.0.1", "10.0.0.2", 40000, 80, t0=0.003, size=20_000, leg_client=0.002,
                             leg_server=0.003)
    out = synth.udp_stream("10.0.0.5", "10.0.0.6", 5000, 6000, t0=0.005, rate_pps=100, count=90, payload=1400)
    back = synth.udp_stream("10.0.0.6", "10.0.0.5", 6000, 5000, t0=0.007, rate_pps=50, count=20, payload=1400)
    frames = [(p.t, *synth.frame(p)) for p in tcp]
    later = []
    for i, p in enumerate(out + back):
        frames.append((p.t, *_fragment(p, True, 0, ident=100 + i)))       # has the UDP header
        later.append((p.t + 1e-4, *_fragment(p, False, 185, ident=100 + i)))  # no transport header
    orphans = [(1.5 + 0.01 * i, *_fragment(out[0], False, 185, ident=9000 + i)) for i in range(3)]
    frames += later + orphans
    f = tmp_path / "frag.pcap"
    f.write_bytes(_write(frames))
    rec = read(f)
    assert rec.meta["fragments"] == len(later) + 3 and rec.meta["fragments_unmatched"] == 3
    frag_bytes = sum(o for _, _, o in later + orphans)
    assert rec.meta["fragment_bytes"] == frag_bytes
    u = rec.flows[rec.flows["proto"] == 17]
    assert len(u) == 1 and int(u.iloc[0]["packets_fwd"]) == 90 and int(u.iloc[0]["packets_rev"]) == 20
    # every frame's bytes are in the load series, each later fragment in its datagram's direction
    # (the orphans as from the initiator)
    fwd = sum(o for _, _, o in later[:90] + orphans)
    rev = sum(o for _, _, o in later[90:])
    flow_fwd = int(rec.flows["bytes_fwd"].sum()) + 14 * int(rec.flows["packets_fwd"].sum())
    flow_rev = int(rec.flows["bytes_rev"].sum()) + 14 * int(rec.flows["packets_rev"].sum())
    assert sum(rec.meta["bin_bytes_fwd"]) == flow_fwd + fwd
    assert sum(rec.meta["bin_bytes_rev"]) == flow_rev + rev
    assert sum(rec.meta["bin_bytes_fwd"]) + sum(rec.meta["bin_bytes_rev"]) == rec.meta["frame_bytes"]
    prof = load(f)
    dur = rec.meta["duration_s"]
    assert prof.mean_rate_bps == pytest.approx((flow_fwd + fwd) * 8 / dur, rel=1e-9)
    # the first second (from the first frame, 3 ms) holds the transfer and every datagram going out;
    # only the orphans come later: its rate is the highest
    assert prof.peak_rate_bps == pytest.approx((flow_fwd + fwd - sum(o for _, _, o in orphans)) * 8, rel=1e-9)
    assert any(f"{len(later) + 3:,} later IP fragments ({frag_bytes:,} bytes) counted in the load series without "
               "a flow" in n and "3 of them without their first fragment" in n for n in prof.notes), prof.notes


def test_a_capture_of_handshakes_only_says_it_has_no_data(tmp_path, capsys):
    f = tmp_path / "empty.pcap"
    f.write_bytes(_pcap(_packets(3, size=0)))
    for args in (["traffic", "summarize", str(f)],
                 ["recommend", "--traffic", str(f), "--capacity", "10Mbps", "--no-verify"]):
        with _no_warnings():
            line = _one_line_error(capsys, args)
        assert "carried no data" in line


class _no_warnings:
    """Fails on any Python warning raised inside (numpy's RuntimeWarning once ended this path)."""

    def __enter__(self):
        import warnings

        self._cm = warnings.catch_warnings()
        self._cm.__enter__()
        warnings.simplefilter("error")

    def __exit__(self, *exc):
        return self._cm.__exit__(*exc)


def test_frames_dated_decades_apart_are_excluded_or_refused(tmp_path, capsys):
    data = bytearray(_pcap(_packets()))
    offs = _record_offsets(bytes(data))
    # one record dated 2 ** 31 - 1 s (2038): left out, counted, the rest used
    struct.pack_into("<I", data, offs[100], 0x7FFFFFFF)
    f = tmp_path / "t.pcap"
    f.write_bytes(bytes(data))
    rec = read(f)
    assert rec.meta["time_outliers"] == 1 and rec.meta["duration_s"] < 10
    prof = load(f)
    assert any("1 frame(s) dated more than" in w for w in prof.warnings), prof.warnings
    # the first record dated 1970: every other is 53 years after it, and the capture is refused
    struct.pack_into("<I", data, offs[0], 1)
    f.write_bytes(bytes(data))
    line = _one_line_error(capsys, ["traffic", "summarize", str(f)])
    assert "dated more than" in line and "too much of the capture is nonsense" in line


def test_a_frame_longer_than_any_packet_is_excluded(tmp_path):
    data = bytearray(_pcap(_packets()))
    offs = _record_offsets(bytes(data))
    struct.pack_into("<I", data, offs[50] + 12, 0xFFFFFFFF)  # original length 4 GiB
    f = tmp_path / "l.pcap"
    f.write_bytes(bytes(data))
    rec = read(f)
    assert rec.meta["bad_lengths"] == 1
    assert rec.meta["frame_bytes"] < 10_000_000
    assert any("original length beyond any packet's" in w for w in load(f).warnings)


def test_a_fifo_is_refused_at_once_not_waited_on(tmp_path, capsys):
    import os
    import time

    fifo = tmp_path / "cap.fifo"
    os.mkfifo(fifo)
    t = time.monotonic()
    for args in (["traffic", "summarize", str(fifo)],
                 ["simulate", "--traffic", str(fifo), "--capacity", "10Mbps", "--buffer", "20pkt"]):
        line = _one_line_error(capsys, args)
        assert "is a FIFO (named pipe)" in line and "standard input" in line
    assert time.monotonic() - t < 5


@pytest.mark.parametrize("flag, name", [("--save-flows", "f.parquet"), ("--save-flows", "f.csv"),
                                        ("--save-profile", "p.json"), ("--plot", "p.png")])
def test_a_full_disk_under_an_output_is_one_line_and_leaves_nothing(tmp_path, capsys, monkeypatch, flag, name):
    import errno
    import os

    import pandas as pd
    import pyarrow.parquet as pq

    f = tmp_path / "c.pcap"
    f.write_bytes(_pcap(_packets()))
    out = tmp_path / "out"
    out.mkdir()

    def full(*a, **k):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(pq, "write_table", full)
    monkeypatch.setattr(pd.DataFrame, "to_csv", full)
    monkeypatch.setattr("bufsize._atomic.os.replace", full)
    monkeypatch.setattr("matplotlib.figure.Figure.savefig", full)
    line = _one_line_error(capsys, ["traffic", "summarize", str(f), flag, str(out / name)])
    assert line.startswith(f"bufsize: error: {flag}: cannot write") and "No space left on device" in line
    assert list(out.iterdir()) == []


def test_a_stray_packet_after_the_last_whole_second_does_not_become_the_capacity(tmp_path, capsys):
    # 10 s of 1 Mb/s (UDP, 100 x 1250-B frames a second) beside a short TCP transfer, then one
    # packet 0.1 ms into the 11th second: scaled to a rate, that second once read 116 Mb/s and
    # became the assumed capacity
    tcp = synth.tcp_transfer("10.0.0.1", "10.0.0.2", 40000, 80, t0=0.0, size=20_000, leg_client=0.002,
                             leg_server=0.003)
    udp = synth.udp_stream("10.0.0.5", "10.0.0.6", 5000, 6000, t0=0.0005, rate_pps=100, count=1000, payload=1208)
    stray = synth.udp_stream("10.0.0.5", "10.0.0.6", 5000, 6000, t0=10.0001, rate_pps=1, count=1, payload=1208)
    frames = [(p.t, *synth.frame(p)) for p in tcp + udp + stray]
    assert {o for _, _, o in frames[len(tcp):]} == {1250}
    f = tmp_path / "stray.pcap"
    f.write_bytes(_write(frames))
    prof = load(f)
    client = {"10.0.0.1", "10.0.0.5"}  # the measured direction: from the initiators
    per_s = [0] * 11
    for p, (t, _, o) in zip(tcp + udp + stray, frames):
        if p.src in client:
            per_s[int(t)] += o
    assert prof.peak_rate_bps == pytest.approx(max(per_s[:10]) * 8, rel=1e-9)
    assert prof.peak_rate_bps < 1.2e6
    # a capture of one packet has no rate at all: refused
    f.write_bytes(_write(frames[:1]))
    line = _one_line_error(capsys, ["traffic", "summarize", str(f)])
    assert "rates and arrivals need at least 0.01 s of traffic" in line, line
