"""Captures that could fool the profile: one that begins mid-stream, idle and interactive
connections beside bulk flows, one taken at a host instead of at the port; compressed and piped
captures; and the congestion control every command assumes for measured traffic.

The testbed captures (tests/data/captures, made by make_captures.py, each with its truth file):
``reno3_idle`` (3 Reno flows at 10/30/60 ms, 0.5 BDP, and two idle connections to port 5201,
captured at the port) and ``reno3_idle_sender`` (the same run captured on the senders' host),
``reno3_deep`` (the same flows through 2 BDP, where the queue never drains once they run). A
mid-stream capture is made here by dropping a committed capture's first seconds of records.
"""

from __future__ import annotations

import gzip
import json
import math
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bufsize import profiles, traffic
from bufsize.cli import main
from bufsize.traffic.profile import capture_point_checks, idle_mask
from bufsize.traffic import synth

DATA = Path(__file__).resolve().parents[1] / "data" / "captures"
PORT_CAPTURES = ("reno3_users3", "cubic2_small", "reno4_long", "reno3_idle", "reno3_deep")


def _truth(name: str) -> dict:
    return json.loads((DATA / f"{name}.truth.json").read_text())


def cut(src: Path, dst: Path, drop_s: float) -> Path:
    """``src`` without the records of its first ``drop_s`` seconds (a capture started later)."""
    b = src.read_bytes()
    magic = b[:4]
    end = {b"\xd4\xc3\xb2\xa1": "<", b"\xa1\xb2\xc3\xd4": ">", b"\x4d\x3c\xb2\xa1": "<",
           b"\xa1\xb2\x3c\x4d": ">"}[magic]
    frac = 1e9 if magic in (b"\x4d\x3c\xb2\xa1", b"\xa1\xb2\x3c\x4d") else 1e6
    out, i, t0 = [b[:24]], 24, None
    while i + 16 <= len(b):
        sec, sub, incl, _ = struct.unpack(end + "IIII", b[i:i + 16])
        t = sec + sub / frac
        t0 = t if t0 is None else t0
        if t - t0 >= drop_s:
            out.append(b[i:i + 16 + incl])
        i += 16 + incl
    dst.write_bytes(b"".join(out))
    return dst


def _long_rtts_by_src(prof, rec) -> dict[str, float]:
    tcp = rec.flows[rec.flows["proto"] == 6]
    longs = tcp[(tcp["end_s"] - tcp["start_s"]) >= 0.5 * prof.duration_s]
    return {s: r for s, r, d in zip(longs["src"], longs["rtt_path_s"], longs["dport"]) if d != 5201}


# ------------------------------------------------------------------------------------------ mid-stream
@pytest.mark.parametrize("name", ["reno3_idle", "reno4_long", "cubic2_small"])
def test_midstream_cut_keeps_long_flow_rtts_within_ten_percent(tmp_path, name):
    truth = _truth(name)
    full = traffic.profile(traffic.read(DATA / f"{name}.pcap"), capacity=truth["rate_bps"])
    rec = traffic.read(cut(DATA / f"{name}.pcap", tmp_path / "cut.pcap", 6.0))
    prof = traffic.profile(rec, capacity=truth["rate_bps"])
    assert prof.long_flows == full.long_flows == len(truth["flows"])
    got = _long_rtts_by_src(prof, rec)
    for f in truth["flows"]:
        assert abs(got[f["src"]] - f["rtt_s"]) <= 0.10 * f["rtt_s"], (name, f["src"], got[f["src"]])
    # the link description recommend gets: same flows, RTTs within 10 % of the full capture's
    kw_full, kw_cut = traffic.recommend_inputs(full), traffic.recommend_inputs(prof)
    assert kw_cut["flows"] == kw_full["flows"]
    a = sorted(float(x[:-2]) for x in kw_full["rtt"].split(","))
    b = sorted(float(x[:-2]) for x in kw_cut["rtt"].split(","))
    assert all(abs(y - x) <= 0.10 * x for x, y in zip(a, b)), (a, b)


def test_midstream_capture_is_warned_about_and_a_full_one_is_not(tmp_path):
    full = traffic.profile(traffic.read(DATA / "reno3_idle.pcap"), capacity="10Mbps")
    assert full.long_midstream == 0 and not any("mid-stream" in w for w in full.warnings)
    prof = traffic.profile(traffic.read(cut(DATA / "reno3_idle.pcap", tmp_path / "c.pcap", 6.0)), capacity="10Mbps")
    assert prof.long_midstream == 3
    assert any(w.startswith("the capture started mid-stream: 3 of 3 long-lived flows") for w in prof.warnings)


def test_deep_buffer_cut_keeps_its_standing_queue_and_says_so(tmp_path):
    """Through 2 BDP the queue never drains once the flows run: a capture that starts then cannot
    separate the path from the queue (every sample has it). The full capture's handshakes give
    the configured RTTs; the cut's RTTs are longer, never shorter, and the profile warns."""
    truth = _truth("reno3_deep")
    full_rec = traffic.read(DATA / "reno3_deep.pcap")
    full = traffic.profile(full_rec, capacity=truth["rate_bps"])
    for f in truth["flows"]:
        got = _long_rtts_by_src(full, full_rec)[f["src"]]
        assert abs(got - f["rtt_s"]) <= max(0.05 * f["rtt_s"], 1e-3), (f["src"], got)
    rec = traffic.read(cut(DATA / "reno3_deep.pcap", tmp_path / "c.pcap", 6.0))
    prof = traffic.profile(rec, capacity=truth["rate_bps"])
    got = _long_rtts_by_src(prof, rec)
    assert all(got[f["src"]] > f["rtt_s"] for f in truth["flows"])
    assert any("a queue that never drained" in w for w in prof.warnings)
    # the queue's varying share above the smallest sample is reported beside the RTTs
    assert len(prof.long_queue_s) == 3 and all(q > 0.005 for q in prof.long_queue_s)


def test_midstream_flows_are_not_judged_receiver_window_limited(tmp_path):
    """Without the SYNs the window scale is unknown: an advertised window cannot be compared with
    the flight (the cut of reno3_deep read 'receiver_window' for all three flows before)."""
    rec = traffic.read(cut(DATA / "reno3_deep.pcap", tmp_path / "c.pcap", 6.0))
    tcp = rec.flows[rec.flows["proto"] == 6]
    assert (tcp["limit"] != "receiver_window").all()
    assert (tcp["limit"] == "congestion").all()


# ------------------------------------------------------------------------------------------ idle
def test_idle_connections_are_set_aside_and_counted():
    truth = _truth("reno3_idle")
    prof = traffic.profile(traffic.read(DATA / "reno3_idle.pcap"), capacity=truth["rate_bps"])
    assert prof.long_flows == len(truth["flows"]) == 3
    assert prof.idle_flows == len(truth["idle_connections"]) == 2
    assert any(n.startswith("2 idle or interactive connections set aside") for n in prof.notes)
    assert len(prof.long_rtts_s) == 3
    kw = traffic.recommend_inputs(prof)
    assert kw["flows"] == 3


def test_idle_rule_boundary():
    mss = 1448.0
    lived = np.array([True, True, True, False])
    # 19 segments: idle; 20 segments: a (small) bulk flow; a flow that did not live long is neither
    carried = np.array([19 * mss, 20 * mss, 1e5, 10.0])
    assert list(idle_mask(lived, carried, mss)) == [True, False, False, False]
    # under 1 % of the busiest long-lived flow: idle even with many segments
    carried = np.array([0.009e9, 0.011e9, 1e9, 0.0])
    assert list(idle_mask(lived, carried, mss)) == [True, False, False, False]


# ------------------------------------------------------------------------------------------ host captures
def test_sender_side_capture_is_named_as_such():
    prof = traffic.profile(traffic.read(DATA / "reno3_idle_sender.pcap"), capacity="10Mbps")
    assert prof.capture_point == "sender host"
    assert any(w.startswith("captured at the senders' host, not at the port") for w in prof.warnings)
    # it still sees the right flows
    assert prof.long_flows == 3 and prof.idle_flows == 2


@pytest.mark.parametrize("name", PORT_CAPTURES)
def test_port_captures_are_not_called_host_captures(name):
    truth = _truth(name)
    prof = traffic.profile(traffic.read(DATA / f"{name}.pcap"), capacity=truth["rate_bps"])
    assert prof.capture_point == "" and not prof.warnings, prof.warnings


def test_rates_above_the_stated_capacity_are_flagged():
    rec = traffic.read(DATA / "reno4_long.pcap")
    assert not traffic.profile(rec, capacity="10Mbps").warnings
    prof = traffic.profile(rec, capacity="5Mbps")
    assert prof.capture_point == "host"
    assert any("more than the stated capacity (5 Mb/s)" in w for w in prof.warnings)


def test_saved_profile_given_a_smaller_capacity_is_rechecked(tmp_path):
    p = tmp_path / "p.json"
    p.write_text(traffic.profile(traffic.read(DATA / "reno4_long.pcap"), capacity="10Mbps").to_json())
    assert not traffic.load(p).warnings
    assert any("more than the stated capacity" in w for w in traffic.load(p, capacity="5Mbps").warnings)


def _local_capture(tmp_path, leg: float) -> Path:
    pk = synth.tcp_transfer("10.0.0.1", "10.0.0.2", 40000, 5201, t0=0.0, size=2000 * 1448, leg_client=leg,
                            leg_server=leg, window=20)
    path = tmp_path / f"local{leg}.pcap"
    with open(path, "wb") as f:
        synth.write_pcap(f, pk)
    return path


def test_sub_millisecond_rtts_are_a_host_capture(tmp_path):
    prof = traffic.profile(traffic.read(_local_capture(tmp_path, 0.0002)))
    assert prof.capture_point == "host"
    assert any(w.startswith("RTTs under a millisecond") for w in prof.warnings)
    # 2 ms: a path across a network, not flagged
    prof = traffic.profile(traffic.read(_local_capture(tmp_path, 0.001)))
    assert not any("under a millisecond" in w for w in prof.warnings)


def test_offloaded_segments_are_a_host_capture():
    flows = pd.DataFrame({"mss": [64000.0, 1448.0], "rtt_path_s": [0.02, 0.02], "src": ["a", "b"],
                          "dst": ["c", "c"]})
    point, why = capture_point_checks(flows, flows, "fwd", 1448.0, None, 0.0, 0.0)
    assert point == "host" and "64000 B" in why[0]
    flows["mss"] = [8960.0, 1448.0]  # a jumbo frame's payload still fits a wire
    assert capture_point_checks(flows, flows, "fwd", 1448.0, None, 0.0, 0.0) == ("", [])


def test_recommend_inputs_carry_the_warnings_first(tmp_path):
    kw, prof, notes = traffic.recommend_from_file(DATA / "reno3_idle_sender.pcap", capacity="10Mbps")
    assert notes[0].startswith("warning: captured at the senders' host")
    assert kw["flows"] == 3


# ------------------------------------------------------------------------------------------ gzip, stdin
def test_gzip_capture_reads_like_the_plain_one(tmp_path):
    plain = traffic.read(DATA / "reno4_long.pcap")
    gz = tmp_path / "r.pcap.gz"
    gz.write_bytes(gzip.compress((DATA / "reno4_long.pcap").read_bytes()))
    rec = traffic.read(gz)
    assert rec.meta["compressed"] == "gzip" and not rec.meta["truncated"]
    pd.testing.assert_frame_equal(rec.flows, plain.flows)


def test_cut_short_gzip_keeps_what_came_and_says_so(tmp_path):
    data = gzip.compress((DATA / "reno4_long.pcap").read_bytes())
    gz = tmp_path / "r.pcap.gz"
    gz.write_bytes(data[: len(data) // 2])
    rec = traffic.read(gz)
    assert "gzip stream is damaged or cut short" in rec.meta["truncated"]
    assert rec.meta["frames"] > 1000


def test_gzip_file_that_is_not_a_capture_is_one_line(tmp_path, capsys):
    gz = tmp_path / "x.csv.gz"
    gz.write_bytes(gzip.compress(b"start_s,end_s\n1,2\n"))
    assert main(["traffic", "summarize", str(gz)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "gzip-compressed but holds no pcap/pcapng capture" in err


def _cli(args: list[str], data: bytes) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "bufsize", *args], input=data, capture_output=True, timeout=120)


@pytest.mark.parametrize("compress", [False, True])
def test_capture_on_standard_input(compress):
    data = (DATA / "reno4_long.pcap").read_bytes()
    r = _cli(["traffic", "summarize", "-", "--capacity", "10Mbps", "--json"], gzip.compress(data) if compress else data)
    assert r.returncode == 0, r.stderr.decode()
    d = json.loads(r.stdout)
    assert d["long_flows"] == 4 and d["source"] == "-"
    assert [round(x, 3) for x in d["long_rtts_s"]] == [0.02, 0.04, 0.06, 0.08]


@pytest.mark.parametrize("data,msg", [(b"", "standard input is empty"),
                                      (b"hello, not a capture\n" * 50, "standard input is not a pcap or pcapng")])
def test_bad_standard_input_is_one_line(data, msg):
    r = _cli(["traffic", "summarize", "-"], data)
    err = r.stderr.decode()
    assert r.returncode == 2 and msg in err and err.count("\n") == 1, err


# ------------------------------------------------------------------------------------------ congestion control
def test_one_assumed_congestion_control_everywhere():
    prof = traffic.profile(traffic.read(DATA / "reno4_long.pcap"), capacity="10Mbps")
    for stack in ("linux", "ns2"):
        with profiles.using(stack):
            cc = traffic.assumed_cc()
            assert cc == profiles.get().tcp["cc"]
            kw, notes = traffic.recommend_inputs_notes(prof)
            assert kw["mix"] == f"{cc}=1"
            sc, _ = traffic.to_scenario(prof, buffer="10pkt")
            assert sc.to_dict()["dumbbell"]["tcp"]["cc"] == cc
            assert any("assumed" in n and "congestion control" in n for n in notes + prof.not_inferred)


def test_cc_given_to_summarize_is_kept_by_every_command(tmp_path, capsys):
    saved = tmp_path / "p.json"
    assert main(["traffic", "summarize", str(DATA / "reno4_long.pcap"), "--cc", "reno",
                 "--save-profile", str(saved)]) == 0
    assert "reno, as given" in capsys.readouterr().out
    prof = traffic.load(saved)
    assert prof.congestion_control == "reno=1"
    assert traffic.recommend_inputs(prof)["mix"] == "reno=1"
    sc, notes = traffic.to_scenario(prof, buffer="10pkt")
    assert sc.to_dict()["dumbbell"]["tcp"]["cc"] == "newreno"
    # given again now, it wins over the profile's
    assert traffic.recommend_inputs(prof, mix="cubic=1")["mix"] == "cubic=1"


def test_simulate_traffic_takes_a_mix(capsys):
    code = main(["simulate", "--traffic", str(DATA / "reno4_long.pcap"), "--buffer", "10pkt", "--capacity", "10Mbps",
                 "--mix", "reno=0.5,cubic=0.5", "--show-scenario"])
    out, err = capsys.readouterr()
    assert code == 0, err
    mix = json.loads(out)["dumbbell"]["mix"]
    assert sorted((c["tcp"]["cc"], c["flows"]) for c in mix) == [("cubic", 2), ("newreno", 2)]
    assert "the mix reno=0.5,cubic=0.5, as given" in err


@pytest.mark.parametrize("args,msg", [(["--cc", "reno", "--mix", "reno=1"], "--mix: give one congestion control"),
                                      (["--mix", "reno=x"], "--mix: reno=x: the share is not a number")])
def test_bad_cc_is_one_line(capsys, args, msg):
    assert main(["traffic", "summarize", str(DATA / "reno4_long.pcap"), *args]) == 2
    err = capsys.readouterr().err
    assert msg in err and err.count("\n") == 1


def test_loopback_capture_is_a_host_capture_on_every_count():
    """iperf3 to itself, captured on lo: microsecond RTTs and 64-kB offloaded segments."""
    prof = traffic.profile(traffic.read(DATA / "loopback_iperf3.pcap"))
    assert prof.capture_point == "host"
    assert any(w.startswith("RTTs under a millisecond") for w in prof.warnings)
    assert any(w.startswith("TCP segments of up to 65483 B") for w in prof.warnings)
    kw, _, notes = traffic.recommend_from_file(DATA / "loopback_iperf3.pcap", capacity="50Mbps")
    assert notes[0].startswith("warning: RTTs under a millisecond")


@pytest.mark.parametrize("args,msg", [(["--cc", "foo"], "--cc: unknown congestion control 'foo'"),
                                      (["--mix", "reno=0.5,foo=0.5"], "--mix: unknown congestion control 'foo'")])
def test_unknown_congestion_control_is_refused_before_it_is_recorded(capsys, args, msg):
    assert main(["traffic", "summarize", str(DATA / "reno4_long.pcap"), *args]) == 2
    err = capsys.readouterr().err
    assert msg in err and err.count("\n") == 1
