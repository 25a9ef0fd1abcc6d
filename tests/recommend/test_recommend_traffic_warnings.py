"""recommend from a capture carries what may make its answer wrong for the port (a capture taken
at a host, one begun mid-stream) with the answer itself, in the text, the JSON and Python, and
reads a capture from standard input."""

import json
from pathlib import Path

import bufsize
from bufsize.cli import main

CAPTURES = Path(__file__).resolve().parents[1] / "data" / "captures"


def test_a_sender_side_capture_is_named_with_the_answer(capsys):
    assert main(["recommend", "--traffic", str(CAPTURES / "reno3_idle_sender.pcap"), "--capacity", "10Mbps",
                 "--no-verify"]) == 0
    out = capsys.readouterr().out
    answer = out[out.index("Answer:"):out.index("Models")]
    assert "warning: captured at the senders' host, not at the port" in " ".join(answer.split())
    assert main(["recommend", "--traffic", str(CAPTURES / "reno3_idle_sender.pcap"), "--capacity", "10Mbps",
                 "--no-verify", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert any("senders' host" in w for w in d["warnings"])


def test_a_capture_at_the_port_has_no_warning_and_python_takes_traffic():
    rec = bufsize.recommend(traffic=CAPTURES / "reno3_idle.pcap", capacity="10Mbps", verify=False)
    assert rec.warnings == [] and rec.input.flows == 3          # the two idle connections set aside
    assert rec.input.mix == {"cubic2": 1.0}                      # the stack profile's control, said in the notes
    assert any("assumed CUBIC" in n for n in rec.traffic_notes)


def test_capture_from_standard_input(capsys, monkeypatch):
    import io
    import sys

    data = (CAPTURES / "reno3_idle.pcap").read_bytes()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    assert main(["recommend", "--traffic", "-", "--capacity", "10Mbps", "--no-verify", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["input"]["flows"] == 3
