"""The queue trace's columns say their unit in their name, as the rest of the tables do
(``t_s``, ``queue_packets``, ``serialized_bits``), and the readers of the trace (the utilization
series, the reproduction's figures) read those names."""

from __future__ import annotations

import re

import pytest

UNIT = re.compile(r".+_(s|packets|bits|bytes|bps)$")


def unitless(columns) -> list[str]:
    return [c for c in columns if not UNIT.fullmatch(c)]


@pytest.fixture(scope="module")
def traced():
    import bufsize

    return bufsize.simulate(capacity="5Mbps", flows=2, rtt="20ms", buffer=20, duration="3s", warmup="1s",
                            queue_trace="10ms", progress=False)


def test_queue_trace_columns_carry_their_units(traced):
    q = traced.queue_trace
    assert list(q.columns) == ["t_s", "queue_packets", "serialized_bits"] and len(q) > 100
    assert unitless(q.columns) == []
    assert q["queue_packets"].max() <= 20 and q["serialized_bits"].is_monotonic_increasing


def test_a_column_without_its_unit_is_caught():
    assert unitless(["t_s", "packets", "bits"]) == ["packets", "bits"]


def test_the_utilization_series_reads_the_renamed_column(traced):
    u = traced.utilization_series(0.5)
    assert len(u) >= 3 and 0 < float(u["utilization"].mean()) <= 1.0 + 1e-9
