"""Fuzzing the traffic readers from Python (Hypothesis): flow-record tables (CSV) and Zeek logs
with hostile values (infinite, NaN, negative, beyond int64, text, dates), and damaged captures
through the whole path (Rust reader, binding, profile). The property: a profile within physical
bounds or a one-line :class:`BufsizeError`; never another exception, a Python warning or a
negative or infinite figure.

By default each target runs a few dozen derandomized examples (a few seconds, in ``make test``);
``BUFSIZE_FUZZ_READERS=N`` runs N random examples each (``make fuzz``), and
``BUFSIZE_FUZZ_READERS_REPORT=FILE`` appends the counts to FILE.
"""

from __future__ import annotations

import io
import math
import os
import warnings
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bufsize.errors import BufsizeError
from bufsize.traffic import load, synth

_N = int(os.environ.get("BUFSIZE_FUZZ_READERS", "0"))
SETTINGS = settings(max_examples=_N or 30, derandomize=not _N, deadline=None, database=None,
                    suppress_health_check=list(HealthCheck))
_COUNTS: dict[str, list[int]] = {}


def _outcome(target: str, ok: bool) -> None:
    c = _COUNTS.setdefault(target, [0, 0])
    c[0 if ok else 1] += 1


def _check(path: Path, target: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            p = load(path)
        except BufsizeError as exc:
            msg = str(exc)
            assert "\n" not in msg and len(msg) < 1000, msg[:2000]
            _outcome(target, False)
            return
    _outcome(target, True)
    for name in ("mean_rate_bps", "peak_rate_bps", "long_load_bps", "short_load_bps", "udp_rate_bps",
                 "arrival_rate_per_s", "active_flows_mean", "duration_s"):
        v = getattr(p, name)
        assert math.isfinite(v) and v >= 0, (name, v)
    assert all(math.isfinite(x) and x >= 0 for x in p.load_series["rate_bps"])
    assert 0 <= p.input_used["flows_used"] <= p.input_used["flows_read"]
    assert p.flows_total == p.input_used["flows_used"]
    for cdf in (p.rtt_cdf, p.size_cdf):
        assert all(math.isfinite(x) for x in cdf["values"]) and all(0 < q <= 1 for q in cdf["cdf"])


_HOSTILE_TEXT = ["", "-", "abc", "inf", "-inf", "nan", "1e309", "-1e309", "1e30", str(2**63), str(2**64),
                 "-9223372036854775809", "0x10", "1,5", "2024-01-01T00:00:00", "1970-01-01", "3.5e-320", " 7 ",
                 "tcp", "udp", "17", "6", "\"5\""]


def _value():
    return st.one_of(
        st.integers(min_value=-(2**70), max_value=2**70).map(str),
        st.floats(allow_nan=True, allow_infinity=True).map(repr),
        st.floats(min_value=0, max_value=1e6).map(lambda x: f"{x:.6g}"),
        st.integers(min_value=0, max_value=10**7).map(str),
        st.sampled_from(_HOSTILE_TEXT),
    )


_COLUMNS = ["start_s", "end_s", "proto", "bytes_fwd", "bytes_rev", "duration", "rtt_ms", "packets_fwd", "src",
            "dst", "sport", "mss", "bytes"]
_ALIASES = ["start", "last"]  # another spelling of a column that may be there already


@st.composite
def _table(draw):
    cols = draw(st.lists(st.sampled_from(_COLUMNS), min_size=3, max_size=8, unique=True))
    if draw(st.sampled_from([True, True, True, False])):  # mostly a table that has what it needs
        cols = list(dict.fromkeys(["start_s", "end_s", "proto", "bytes_fwd", "bytes_rev"] + cols))
    if draw(st.integers(0, 9)) == 0:
        cols.append(draw(st.sampled_from([c for c in _ALIASES if c not in cols])))
    rows = draw(st.lists(st.lists(_value(), min_size=len(cols), max_size=len(cols)), min_size=0, max_size=3))
    # sensible rows, some with one or two hostile fields, so that the profile is reached too
    good = draw(st.sampled_from([0, 3, 8, 20]))
    sensible = {"start_s": "{i}", "end_s": "{j}", "proto": "tcp", "bytes_fwd": "100", "bytes_rev": "{b}",
                "duration": "30", "rtt_ms": "20", "packets_fwd": "10", "src": "10.0.0.1", "dst": "10.0.0.2",
                "sport": "{i}", "mss": "1448", "start": "{i}", "last": "{j}", "bytes": "{b}"}
    for i in range(good):
        row = [sensible[c].format(i=i, j=i + 30, b=100_000 + i) for c in cols]
        for _ in range(draw(st.sampled_from([0, 0, 0, 1, 2]))):
            row[draw(st.integers(0, len(cols) - 1))] = draw(_value())
        rows.append(row)
    order = draw(st.permutations(range(len(rows))))
    return ",".join(cols) + "\n" + "".join(",".join(rows[k]) + "\n" for k in order)


@SETTINGS
@given(text=_table())
def test_fuzz_flow_record_tables(tmp_path_factory, text):
    f = tmp_path_factory.mktemp("csv") / "r.csv"
    f.write_text(text)
    _check(f, "flow-record tables (CSV)")


_ZEEK_FIELDS = ["ts", "uid", "id.orig_h", "id.orig_p", "id.resp_h", "id.resp_p", "proto", "duration",
                "orig_bytes", "resp_bytes", "conn_state", "orig_pkts", "orig_ip_bytes", "resp_pkts", "resp_ip_bytes"]


@st.composite
def _zeek(draw):
    rows = []
    for i in range(draw(st.integers(0, 15))):
        rows.append([f"{1.7e9 + i}", f"C{i}", "10.0.0.1", str(30000 + i), "10.0.0.2", "80", "tcp", "30", "100",
                     str(100_000 + i), "SF", "10", "600", "80", str(104_000 + i)])
    for k in range(draw(st.integers(0, 4))):
        row = [f"{1.7e9 + 3 + k}", f"H{k}", "10.0.0.3", "40000", "10.0.0.4", "80", "tcp", "20", "200", "50000",
               "S0", "5", "400", "40", "52000"]
        for _ in range(draw(st.integers(1, 3))):
            i = draw(st.sampled_from([0, 3, 5, 6, 7, 8, 9, 11, 12, 13, 14]))
            row[i] = draw(st.sampled_from(["tcp", "udp", "icmp", "-", "x"])) if i == 6 else draw(_value())
        rows.append(row)
    order = draw(st.permutations(range(len(rows))))
    return ("#separator \\x09\n#fields\t" + "\t".join(_ZEEK_FIELDS) + "\n"
            + "".join("\t".join(rows[k]) + "\n" for k in order))


@SETTINGS
@given(text=_zeek())
def test_fuzz_zeek_logs(tmp_path_factory, text):
    f = tmp_path_factory.mktemp("zeek") / "conn.log"
    f.write_text(text)
    _check(f, "Zeek conn.log (TSV)")


def _base_capture() -> bytes:
    pk = []
    for i in range(4):
        pk += synth.tcp_transfer(f"10.0.0.{i + 1}", "10.9.0.1", 30000 + i, 80, t0=i * 0.2, size=30_000,
                                 leg_client=0.002, leg_server=0.008)
    pk += synth.udp_stream("10.0.0.9", "10.9.0.2", 5000, 6000, t0=0.0, rate_pps=20, count=20)
    pk.sort(key=lambda p: p.t)
    b = io.BytesIO()
    synth.write_pcap(b, pk)
    return b.getvalue()


_BASE = _base_capture()


@st.composite
def _damaged(draw):
    data = bytearray(_BASE)
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.integers(0, 3))
        at = draw(st.integers(0, len(data) - 1))
        if kind == 0:
            data[at] ^= draw(st.integers(1, 255))
        elif kind == 1:
            word = draw(st.sampled_from([0, 1, 12, 0x7FFFFFFF, 0xFFFFFFF0, 0xFFFFFFFF, 262_145]))
            at &= ~3
            data[at:at + 4] = word.to_bytes(4, "little")
        elif kind == 2:
            del data[at:]
            if not data:
                data = bytearray(_BASE[:1])
        else:
            data[at:at] = draw(st.binary(min_size=1, max_size=32))
    return bytes(data)


@SETTINGS
@given(data=_damaged())
def test_fuzz_damaged_captures_through_the_profile(tmp_path_factory, data):
    f = tmp_path_factory.mktemp("cap") / "c.pcap"
    f.write_bytes(data)
    _check(f, "damaged captures (reader + profile)")


@pytest.fixture(scope="module", autouse=True)
def _report():
    yield
    out = os.environ.get("BUFSIZE_FUZZ_READERS_REPORT")
    if out and _COUNTS:
        import datetime

        when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M")
        with open(out, "a") as fh:
            for target, (ok, refused) in _COUNTS.items():
                fh.write(f"- {target}: {ok + refused} examples, {ok} profiled, {refused} refused in one line, "
                         f"no other outcome (Hypothesis, run of {when} UTC)\n")
