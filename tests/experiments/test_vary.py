"""--vary parsing: field paths (aliases, dumbbell short names), lists and ranges with units."""

from __future__ import annotations

import pytest

from bufsize.errors import BufsizeError
from bufsize.experiments.vary import parse_values, parse_vary, resolve_path, set_path
from bufsize.scenario import Scenario

from exp_helpers import tiny


def test_sources_fields_can_be_varied():
    raw = {"duration": "5s", "dumbbell": {"capacity": "10Mbps", "flows": 1, "rtt": "50ms", "buffer": "20pkt"},
           "short_flows": [{"load": 0.3, "size": "10pkt", "rtt": "50ms"}], "udp": [{"rate": "1Mbps"}]}
    assert resolve_path(raw, "short_flows[0].load") == ("short_flows", 0, "load")
    assert resolve_path(raw, "udp[0].rate") == ("udp", 0, "rate_bps")
    with pytest.raises(BufsizeError, match="no \\[1\\]"):
        resolve_path(raw, "udp[1].rate")
    with pytest.raises(BufsizeError, match="unknown field 'colour'"):
        resolve_path(raw, "short_flows[0].colour")


@pytest.mark.parametrize("text, path", [
    ("buffer", ("dumbbell", "buffer")),
    ("flows", ("dumbbell", "flows")),
    ("rtt", ("dumbbell", "rtt_s")),
    ("cc", ("dumbbell", "tcp", "cc")),
    ("packet_size", ("dumbbell", "tcp", "packet_bytes")),
    ("dumbbell.buffer", ("dumbbell", "buffer")),
    ("dumbbell.tcp.cc", ("dumbbell", "tcp", "cc")),
    ("duration", ("duration_s",)),
    ("warmup_s", ("warmup_s",)),
    ("measure.queue_trace_interval", ("measure", "queue_trace_interval_s")),
])
def test_resolve_path(text, path):
    assert resolve_path(tiny(), text) == path


def test_resolve_path_in_lists():
    raw = {"links": [{"name": "a", "rate": "1Mbps", "queue": 10}],
           "flows": [{"path": ["a"], "ack_path": ["a"]}], "bottleneck": "a"}
    assert resolve_path(raw, "links[0].queue") == ("links", 0, "queue")
    assert resolve_path(raw, "links[0].rate") == ("links", 0, "rate_bps")
    assert resolve_path(raw, "flows[0].tcp.cc") == ("flows", 0, "tcp", "cc")
    with pytest.raises(BufsizeError, match=r"links\[3\]|1 item"):
        resolve_path(raw, "links[3].queue")
    with pytest.raises(BufsizeError, match="give an index"):
        resolve_path(raw, "links.queue")


@pytest.mark.parametrize("text, match", [
    ("buffr", "unknown field 'buffr'"),
    ("dumbbell.tcp.ccc", "unknown field 'ccc'"),
    ("dumbbell.buffer.x", "is a value"),
    ("dumbbell", "is a table"),
    ("seed", "--seeds"),
    ("a b", "not a field path"),
])
def test_unknown_fields_name_the_field(text, match):
    with pytest.raises(BufsizeError, match=match) as info:
        resolve_path(tiny(), text)
    assert str(info.value).startswith("--vary")


def test_set_path_replaces_an_alias_and_leaves_the_input_alone():
    raw = tiny()
    out = set_path(raw, ("dumbbell", "capacity_bps"), "20Mbps")
    assert "capacity" not in out["dumbbell"] and out["dumbbell"]["capacity_bps"] == "20Mbps"
    assert raw["dumbbell"]["capacity"] == "10Mbps"
    assert Scenario.from_dict(out).to_dict()["dumbbell"]["capacity_bps"] == 20e6


def test_relative_buffer_follows_a_varied_flow_count():
    # "bdp/sqrt(n)" is substituted as written, so it is resolved with each point's n
    raw = tiny(buffer="bdp/sqrt(n)")
    (axis,) = parse_vary(raw, ["flows=1,4,25"])
    lims = [Scenario.from_dict(set_path(raw, axis.path, v)).buffer_limit["limit_packets"] for v in axis.values]
    assert lims == [125, 63, 25]  # 125/sqrt(n), halves rounded up


def test_linear_and_log_ranges_with_units():
    vals, unit = parse_values("b", "0.1bdp..0.5bdp:5")
    assert unit == "bdp" and vals == ["0.1bdp", "0.2bdp", "0.3bdp", "0.4bdp", "0.5bdp"]
    vals, unit = parse_values("r", "10..1000ms:3:log")
    assert unit == "ms" and vals == ["10ms", "100ms", "1000ms"]
    vals, unit = parse_values("n", "1..1000:7:log")  # whole numbers, rounded, repeats dropped
    assert unit == "" and vals == [1, 3, 10, 32, 100, 316, 1000]
    vals, _ = parse_values("n", "1..4:8")
    assert vals == [1, 2, 3, 4]
    vals, unit = parse_values("c", "newreno, cubic")
    assert vals == ["newreno", "cubic"] and unit == ""
    vals, unit = parse_values("d", "20ms,80ms")
    assert vals == ["20ms", "80ms"] and unit == "ms"


@pytest.mark.parametrize("text, match", [
    ("1..2:0", "empty range"),
    ("", "no values"),
    ("1,,2", "empty item"),
    ("1..2:1", "give N >= 2"),
    ("0..10:3:log", "positive ends"),
    ("1ms..2pkt:3", "different units"),
    ("1..2:x", "not a whole number"),
    ("a..b:3", "not a number"),
    ("1,1", "listed twice"),
])
def test_bad_values(text, match):
    with pytest.raises(BufsizeError, match=match):
        parse_values("f", text)


def test_labels_are_numbers_in_the_written_unit():
    (b, d) = parse_vary(tiny(), {"buffer": "0.25bdp..0.75bdp:3", "duration": ["20s", "40s"]})
    assert [b.label(v) for v in b.values] == [0.25, 0.5, 0.75]
    assert [d.label(v) for v in d.values] == [20, 40] and d.unit == "s"
    (c,) = parse_vary(tiny(), ["cc=reno,newreno"])
    assert [c.label(v) for v in c.values] == ["reno", "newreno"]
