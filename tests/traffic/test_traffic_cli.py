"""``bufsize traffic summarize`` and the flow-record inputs: outputs, and bad input as one line + exit 2."""

from __future__ import annotations

import json
import re

import pandas as pd
import pytest

from bufsize.cli import main
from bufsize.traffic import load, read, synth


def _capture(tmp_path, udp=True):
    pk = []
    # 2 long flows over the whole 4 s, 20 short ones
    pk += synth.tcp_transfer("10.0.0.1", "10.9.0.1", 40000, 80, t0=0.0, size=400 * 1448, leg_client=0.002,
                             leg_server=0.018, window=2)
    pk += synth.tcp_transfer("10.0.0.2", "10.9.0.1", 40001, 80, t0=0.01, size=200 * 1448, leg_client=0.002,
                             leg_server=0.048, window=2)
    for i in range(20):
        pk += synth.tcp_transfer(f"10.1.0.{i + 1}", "10.9.0.1", 30000 + i, 80, t0=0.1 + i * 0.15, size=1000 * (i + 1),
                                 leg_client=0.001, leg_server=0.029)
    if udp:
        pk += synth.udp_stream("10.0.0.5", "10.9.0.6", 5000, 6000, t0=0.0, rate_pps=50, count=150, payload=500)
    pk.sort(key=lambda p: p.t)
    path = tmp_path / "mix.pcap"
    with open(path, "wb") as f:
        synth.write_pcap(f, pk)
    return path


def _run(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_summarize_prints_profile_and_writes_outputs(tmp_path, capsys):
    cap = _capture(tmp_path)
    flows = tmp_path / "flows.parquet"
    plot = tmp_path / "p.png"
    prof = tmp_path / "prof.json"
    code, out, err = _run(capsys, "traffic", "summarize", str(cap), "--capacity", "10Mbps", "--save-flows", str(flows),
                          "--plot", str(plot), "--save-profile", str(prof))
    assert code == 0, err
    assert re.search(r"long-lived TCP flows +2 ", out)
    assert re.search(r"short TCP flows +20 ", out)
    assert "not inferred from the input" in out and "congestion control" in out
    df = pd.read_parquet(flows)
    assert len(df) == 23 and set(df["proto"]) == {6, 17}
    assert plot.stat().st_size > 1000
    p = load(prof)
    assert p.long_flows == 2 and p.short_flows == 20
    assert sorted(round(x, 3) for x in p.long_rtts_s) == [0.02, 0.05]
    # the Parquet records are themselves an input and give the same profile
    p2 = load(flows)
    assert (p2.long_flows, p2.short_flows) == (2, 20)
    assert p2.size_cdf["values"] == p.size_cdf["values"]


def test_summarize_json(tmp_path, capsys):
    code, out, _ = _run(capsys, "traffic", "summarize", str(_capture(tmp_path)), "--json")
    assert code == 0
    d = json.loads(out)
    assert d["udp_flows"] == 1 and d["tcp_flows"] == 22
    assert d["capture"]["frames"] > 0
    assert 0 < d["udp_share"] < 0.2
    assert d["size_cdf"]["cdf"][-1] == pytest.approx(1.0)


def test_truncated_capture_is_used_and_reported(tmp_path, capsys):
    cap = _capture(tmp_path)
    cut = tmp_path / "cut.pcap"
    cut.write_bytes(cap.read_bytes()[:-20])
    code, out, _ = _run(capsys, "traffic", "summarize", str(cut))
    assert code == 0
    assert "warning: capture truncated: the capture ends inside record" in out


@pytest.mark.parametrize("content,expect", [
    (b"\x00\x01\x02 binary junk" * 50, "not a pcap/pcapng capture"),
    (b"\xd4\xc3\xb2\xa1garbage", "not a usable capture"),
])
def test_bad_files_are_one_line_and_exit_2(tmp_path, capsys, content, expect):
    p = tmp_path / "bad.bin"
    p.write_bytes(content)
    code, out, err = _run(capsys, "traffic", "summarize", str(p))
    assert code == 2
    assert expect in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("cmd", [
    ["simulate", "--traffic", "FILE", "--capacity", "10Mbps", "--buffer", "20pkt"],
    ["recommend", "--traffic", "FILE", "--capacity", "10Mbps", "--no-verify"],
])
@pytest.mark.parametrize("kind", ["not_a_capture", "no_tcp", "missing_columns"])
def test_traffic_inputs_refused_the_same_by_simulate_and_recommend(tmp_path, capsys, cmd, kind):
    if kind == "not_a_capture":
        p = tmp_path / "bad.bin"
        p.write_bytes(b"\x00\x01\x02 binary junk" * 50)
    elif kind == "no_tcp":
        p = tmp_path / "udp.pcap"
        with open(p, "wb") as f:
            synth.write_pcap(f, synth.udp_stream("10.0.0.5", "10.9.0.6", 5000, 6000, t0=0.0, rate_pps=50, count=20))
    else:
        p = tmp_path / "flows.csv"
        p.write_text("start,proto,bytes_fwd\n0,tcp,100\n")
    code, _, err = _run(capsys, *[str(p) if a == "FILE" else a for a in cmd])
    assert code == 2, err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert {"not_a_capture": "not a pcap/pcapng capture", "no_tcp": "no TCP flows",
            "missing_columns": "missing columns end_s, bytes_rev"}[kind] in err


def test_capture_without_tcp_is_refused(tmp_path, capsys):
    p = tmp_path / "udp.pcap"
    with open(p, "wb") as f:
        synth.write_pcap(f, synth.udp_stream("10.0.0.5", "10.9.0.6", 5000, 6000, t0=0.0, rate_pps=50, count=20))
    code, _, err = _run(capsys, "traffic", "summarize", str(p))
    assert code == 2 and "no TCP flows" in err and len(err.strip().splitlines()) == 1


def test_flow_records_with_missing_columns(tmp_path, capsys):
    p = tmp_path / "flows.csv"
    p.write_text("start,proto,bytes_fwd\n0,tcp,100\n")
    code, _, err = _run(capsys, "traffic", "summarize", str(p))
    assert code == 2
    assert "missing columns end_s, bytes_rev" in err and len(err.strip().splitlines()) == 1


def test_csv_flow_records_with_aliases(tmp_path):
    p = tmp_path / "flows.csv"
    p.write_text("start,duration,protocol,bytes_out,bytes_in,rtt_ms\n"
                 "0,10,tcp,5000000,100000,40\n0.5,9.5,tcp,4000000,90000,80\n"
                 + "".join(f"{1 + i * 0.5},0.2,tcp,{20000 + i},500,30\n" for i in range(10)))
    rec = read(p)
    assert len(rec.flows) == 12
    from bufsize.traffic import profile

    prof = profile(rec, capacity="10Mbps")
    assert prof.long_flows == 2 and prof.short_flows == 10
    assert sorted(prof.long_rtts_s) == [0.04, 0.08]
    assert "what limited each flow" in " ".join(prof.not_inferred)


def test_zeek_conn_log(tmp_path):
    p = tmp_path / "conn.log"
    fields = ["ts", "uid", "id.orig_h", "id.orig_p", "id.resp_h", "id.resp_p", "proto", "service", "duration",
              "orig_bytes", "resp_bytes", "conn_state", "orig_pkts", "orig_ip_bytes", "resp_pkts", "resp_ip_bytes"]
    rows = [["1700000000.0", "C1", "10.0.0.1", "40000", "10.9.0.1", "80", "tcp", "-", "20.0", "1000", "9000000",
             "SF", "300", "16000", "6500", "9300000"],
            ["1700000001.0", "C2", "10.0.0.2", "40001", "10.9.0.1", "80", "tcp", "http", "0.3", "300", "40000",
             "SF", "10", "800", "30", "41500"],
            ["1700000002.0", "C3", "10.0.0.3", "5000", "10.9.0.9", "53", "udp", "dns", "0.01", "40", "120",
             "SF", "1", "68", "1", "148"]]
    p.write_text("#separator \\x09\n#fields\t" + "\t".join(fields) + "\n" + "\n".join("\t".join(r) for r in rows) + "\n")
    rec = read(p)
    assert rec.meta["kind"] == "zeek"
    assert list(rec.flows["proto"]) == [6, 6, 17]
    assert rec.flows["bytes_rev"].iloc[0] == 9300000
    from bufsize.traffic import profile

    prof = profile(rec)
    assert prof.direction == "rev"
    assert any("RTTs" in n for n in prof.not_inferred)


def test_simulate_traffic_says_what_it_took_and_assumed(tmp_path, capsys):
    cap = _capture(tmp_path)
    code, out, err = _run(capsys, "simulate", "--traffic", str(cap), "--capacity", "10Mbps", "--buffer", "20pkt",
                          "--duration", "5s", "--warmup", "1s", "--json")
    assert code == 0, err
    assert "from mix.pcap: 2 long-lived flows (RTT 20-50 ms), 20 short flows" in err
    assert "assumed CUBIC" in err and "UDP modelled as a Poisson" in err
    s = json.loads(out)
    assert 0 < s["utilization"] <= 1


@pytest.mark.parametrize("args,flag", [
    (["--scale-to", "1Gbps", "--capacity", "10Mbps", "--flows", "2", "--rtt", "20ms", "--buffer", "5pkt"], "--scale-to"),
    (["--traffic", "CAP", "--flows", "3", "--buffer", "5pkt"], "--flows"),
    (["--traffic", "CAP", "--capacity", "10Mbps"], "--buffer"),
])
def test_simulate_traffic_misuse_is_one_line(tmp_path, capsys, args, flag):
    cap = _capture(tmp_path)
    code, _, err = _run(capsys, "simulate", *[str(cap) if a == "CAP" else a for a in args])
    assert code == 2
    assert flag in err and len(err.strip().splitlines()) == 1


def test_zeek_json_lines(tmp_path):
    p = tmp_path / "conn.json"
    rows = [{"ts": 1700000000.0 + i, "uid": f"C{i}", "id.orig_h": "10.0.0.1", "id.orig_p": 40000 + i,
             "id.resp_h": "10.9.0.1", "id.resp_p": 443, "proto": "tcp", "duration": 0.5, "orig_bytes": 500,
             "resp_bytes": 20000 * (i + 1), "conn_state": "SF", "orig_pkts": 10, "orig_ip_bytes": 900,
             "resp_pkts": 20, "resp_ip_bytes": 20000 * (i + 1) + 800} for i in range(5)]
    p.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    rec = read(p)
    assert rec.meta["kind"] == "zeek" and len(rec.flows) == 5
    assert list(rec.flows["unique_rev"]) == [20000 * (i + 1) for i in range(5)]
    assert rec.flows["complete"].all()


def test_recommend_traffic_describes_the_link_from_the_capture(capsys):
    from pathlib import Path

    cap = Path(__file__).resolve().parents[1] / "data" / "captures" / "reno4_long.pcap"
    code, out, err = _run(capsys, "recommend", "--traffic", str(cap), "--capacity", "10Mbps", "--no-verify", "--json")
    assert code == 0, err
    assert "from reno4_long.pcap: 4 long-lived flows (RTT 20-80 ms)" in err
    d = json.loads(out)
    inp = d["input"]
    assert inp["flows"] == 4 and inp["capacity_bps"] == 10e6 and inp["packet_bytes"] == 1514
    code, out, err = _run(capsys, "recommend", "--traffic", str(cap), "--capacity", "10Mbps", "--scale-to", "100Mbps",
                          "--no-verify", "--json")
    assert code == 0, err
    assert json.loads(out)["input"]["flows"] == 40


@pytest.mark.parametrize("args,flag", [
    (["--traffic", "CAP", "--capacity", "10Mbps", "--flows", "3"], "--flows"),
    (["--capacity", "10Mbps", "--flows", "3", "--rtt", "20ms", "--scale-to", "1Gbps"], "--scale-to"),
])
def test_recommend_traffic_misuse_is_one_line(capsys, args, flag):
    from pathlib import Path

    cap = Path(__file__).resolve().parents[1] / "data" / "captures" / "reno4_long.pcap"
    code, _, err = _run(capsys, "recommend", *[str(cap) if a == "CAP" else a for a in args], "--no-verify")
    assert code == 2
    assert flag in err and len(err.strip().splitlines()) == 1


def test_a_capture_without_short_flows_says_none_rather_than_question_marks(capsys):
    from pathlib import Path

    from bufsize.cli import main

    cap = Path(__file__).resolve().parents[1] / "data" / "captures" / "reno4_long.pcap"
    assert main(["traffic", "summarize", str(cap), "--capacity", "10Mbps"]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if "short-flow size" in x)
    assert "none (no short TCP flows)" in line and "?" not in line
