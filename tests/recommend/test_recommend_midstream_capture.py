"""recommend from a capture that began mid-stream gives the same verified size as from the whole
capture (± one search step), on the committed testbed capture reno3_idle (3 Reno flows at
10/30/60 ms through 10 Mb/s, 0.5 BDP, and two idle connections; truth in its .truth.json)."""

import importlib.util
from pathlib import Path

import pytest

import bufsize
from bufsize.recommendation.verification import RESOLUTION

DATA = Path(__file__).resolve().parents[1] / "data" / "captures"


def _cut():
    spec = importlib.util.spec_from_file_location(
        "capture_trust", Path(__file__).resolve().parents[1] / "traffic" / "test_capture_trust.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.cut


@pytest.mark.slow
def test_midstream_cut_gives_the_same_verified_size(tmp_path):
    full = bufsize.recommend(traffic=DATA / "reno3_idle.pcap", capacity="10Mbps", verify=True, progress=False)
    cut_file = _cut()(DATA / "reno3_idle.pcap", tmp_path / "cut.pcap", 6.0)
    cut = bufsize.recommend(traffic=cut_file, capacity="10Mbps", verify=True, progress=False)
    assert full.input.flows == cut.input.flows == 3                      # the idle connections set aside
    a, b = full.recommended["buffer_packets"], cut.recommended["buffer_packets"]
    assert full.recommended["source"] == cut.recommended["source"] == "verified"
    # one search step: the bisection stops at 20 % (or one packet)
    assert abs(a - b) <= max(1, RESOLUTION * max(a, b)), (a, b)
    # and the answer says the capture began mid-stream; the whole capture has no such warning
    assert any("started mid-stream" in w for w in cut.warnings) and full.warnings == []
