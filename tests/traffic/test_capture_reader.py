"""The capture reader on synthetic captures whose truth is known exactly (bufsize.traffic.synth)."""

from __future__ import annotations

import math

import pytest

from bufsize.errors import BufsizeError
from bufsize.traffic import read, synth


def _two_flows(ipv6: bool = False):
    a, b, c = ("2001:db8::1", "2001:db8::2", "2001:db8::3") if ipv6 else ("10.0.0.1", "10.0.0.2", "10.0.0.3")
    pk = synth.tcp_transfer(a, b, 40000, 80, t0=0.0, size=100_000, leg_client=0.004, leg_server=0.016)
    pk += synth.tcp_transfer(c, b, 40001, 80, t0=0.5, size=3000, leg_client=0.010, leg_server=0.030,
                             server_bytes=1)
    pk.sort(key=lambda p: p.t)
    return pk


def _write(tmp_path, pkts, name="t.pcap", ng=False, **kw):
    path = tmp_path / name
    with open(path, "wb") as f:
        (synth.write_pcapng if ng else synth.write_pcap)(f, pkts, **kw)
    return path


def _check_two(rec):
    df = rec.flows
    tcp = df[df["proto"] == 6].sort_values("start_s").reset_index(drop=True)
    assert len(tcp) == 2
    # transfer sizes exact, directions from the SYN
    assert list(tcp["unique_fwd"]) == [100_000, 3000]
    assert list(tcp["unique_rev"]) == [0, 1]
    assert list(tcp["src"].str.endswith(("1", "3"))) == [True, True]
    assert tcp["complete"].all()
    # RTT = the two legs (data segments 10 us apart inflate samples by at most 0.1 ms)
    for got, want in zip(tcp["rtt_handshake_s"], (0.020, 0.040)):
        assert got == pytest.approx(want, abs=1e-6)
    for got, want in zip(tcp["rtt_min_s"], (0.020, 0.040)):
        assert got == pytest.approx(want, abs=2e-4)
    assert (tcp["retrans_packets_fwd"] == 0).all()


@pytest.mark.parametrize("link,vlan", [(synth.LINK_ETHERNET, None), (synth.LINK_ETHERNET, 42),
                                       (synth.LINK_SLL, None), (synth.LINK_SLL2, None), (synth.LINK_RAW, None)])
def test_link_types_give_the_same_flows(tmp_path, link, vlan):
    rec = read(_write(tmp_path, _two_flows(), link=link, vlan=vlan))
    _check_two(rec)
    assert rec.meta["linktypes"] == [link]


def test_ipv6_and_pcapng_and_nanosecond_pcap(tmp_path):
    _check_two(read(_write(tmp_path, _two_flows(ipv6=True), "v6.pcap")))
    rec = read(_write(tmp_path, _two_flows(), "t.pcapng", ng=True))
    assert rec.meta["format"] == "pcapng"
    _check_two(rec)
    _check_two(read(_write(tmp_path, _two_flows(), "ns.pcap", nanosecond=True)))


def test_snap_length_cuts_payload_but_not_sizes(tmp_path):
    # 74 bytes: Ethernet + IPv4 + the longest TCP header here (the SYN's, 40 bytes with MSS, window
    # scale and timestamps); every payload byte is cut off
    rec = read(_write(tmp_path, _two_flows(), snaplen=74))
    _check_two(rec)
    assert rec.meta["snapped"] > 0


def test_retransmission_counted_and_size_unchanged(tmp_path):
    pk = synth.tcp_transfer("10.0.0.1", "10.0.0.2", 40000, 80, t0=0.0, size=20 * 1448, leg_client=0.005,
                            leg_server=0.005)
    data = [p for p in pk if p.payload > 0 and p.src == "10.0.0.1"]
    dup = synth.Pkt(**{**data[3].__dict__, "t": data[3].t + 0.0001})
    pk.append(dup)
    pk.sort(key=lambda p: p.t)
    rec = read(_write(tmp_path, pk))
    row = rec.flows.iloc[0]
    assert row["retrans_packets_fwd"] == 1
    assert row["retrans_bytes_fwd"] == 1448
    assert row["unique_fwd"] == 20 * 1448
    assert row["payload_fwd"] == 21 * 1448


def test_truncated_last_packet_keeps_what_came_before(tmp_path):
    path = _write(tmp_path, _two_flows())
    data = path.read_bytes()
    cut = tmp_path / "cut.pcap"
    cut.write_bytes(data[:-30])
    rec = read(cut)
    assert rec.meta["truncated"] and "ends inside record" in rec.meta["truncated"]
    full = read(path)
    assert rec.meta["frames"] == full.meta["frames"] - 1
    assert rec.flows["unique_fwd"].sum() == full.flows["unique_fwd"].sum()


def test_not_a_capture_is_one_clear_error(tmp_path):
    p = tmp_path / "x.pcap"
    p.write_bytes(b"hello, this is not a capture at all\n" * 10)
    with pytest.raises(BufsizeError, match="not a pcap or pcapng"):
        read(p)


def test_finished_flows_leave_memory(tmp_path):
    # 300 connections one after the other, 50 ms apart: a closed flow stays for the 1-s linger
    # (emitted at the next sweep, within another 0.5 s), so at most ~30 are held at once however
    # long the capture is
    pk = []
    for i in range(300):
        pk += synth.tcp_transfer(f"10.0.{i // 200}.{i % 200 + 1}", "10.9.0.1", 30000 + i, 80, t0=i * 0.05,
                                 size=2000, leg_client=0.002, leg_server=0.003)
    pk.sort(key=lambda p: p.t)
    rec = read(_write(tmp_path, pk))
    assert len(rec.flows) == 300
    assert rec.meta["max_concurrent_flows"] <= 1.5 / 0.05 + 2
    assert (rec.flows["end_reason"] == "fin").sum() >= 299
    assert (rec.flows["unique_fwd"] == 2000).all()


def test_idle_flows_time_out(tmp_path):
    pk = synth.tcp_transfer("10.0.0.1", "10.0.0.2", 40000, 80, t0=0.0, size=5000, leg_client=0.002,
                            leg_server=0.002, fin=False)
    pk += synth.udp_stream("10.0.0.5", "10.0.0.6", 5000, 6000, t0=0.0, rate_pps=10, count=100)
    pk.sort(key=lambda p: p.t)
    rec = read(_write(tmp_path, pk), idle_timeout=2.0)
    tcp = rec.flows[rec.flows["proto"] == 6].iloc[0]
    assert tcp["end_reason"] == "idle"
    assert not tcp["complete"]
    assert math.isclose(rec.flows[rec.flows["proto"] == 17].iloc[0]["payload_fwd"], 100 * 1000)


@pytest.mark.parametrize("kw,want", [
    (dict(window=10), "congestion"),                          # window well below the advertised one
    (dict(window=10, rwnd=10 * 1448), "receiver_window"),      # the sender fills the advertised window
    (dict(window=4, app_gap=0.1), "application"),             # idles 0.1 s (5 RTTs) after each window
])
def test_what_limited_a_flow(tmp_path, kw, want):
    pk = synth.tcp_transfer("10.0.0.1", "10.0.0.2", 40000, 80, t0=0.0, size=400 * 1448, leg_client=0.005,
                            leg_server=0.015, **kw)
    rec = read(_write(tmp_path, pk))
    assert rec.flows.iloc[0]["limit"] == want


def test_unsupported_link_type_is_named(tmp_path):
    import struct

    p = tmp_path / "wifi.pcapng"
    shb = struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1)
    idb = struct.pack("<HHI", 105, 0, 96)  # 802.11
    epb = struct.pack("<IIIII", 0, 0, 0, 4, 4) + b"abcd"
    p.write_bytes(b"".join(struct.pack("<II", t, 12 + len(b)) + b + struct.pack("<I", 12 + len(b))
                           for t, b in ((0x0A0D0D0A, shb), (1, idb), (6, epb))))
    with pytest.raises(BufsizeError, match="link type 105 is not supported"):
        read(p)


def test_port_reuse_gives_two_flows(tmp_path):
    a = synth.tcp_transfer("10.0.0.1", "10.0.0.2", 40000, 80, t0=0.0, size=5000, leg_client=0.002, leg_server=0.002)
    b = synth.tcp_transfer("10.0.0.1", "10.0.0.2", 40000, 80, t0=a[-1].t + 0.1, size=7000, leg_client=0.002,
                           leg_server=0.002, isn=(9_000_000, 7_000_000))
    rec = read(_write(tmp_path, a + b))
    assert list(rec.flows["unique_fwd"]) == [5000, 7000]
    assert list(rec.flows["end_reason"]) == ["fin", "fin"]
    assert rec.flows["complete"].all()
