"""The open-loop replay of fq_replay.py: ns-3 3.37's FqCoDelQueueDisc and the engine's fq_codel,
fed the same arrivals, make the same decisions packet by packet until the first drop where RFC
8289's control law and ns-3's (Linux's) Newton estimate of 1/sqrt(count) part ways.

Runs only where Debian's libns3-dev and g++ are installed (bench/ns3/install.sh).
"""

from __future__ import annotations

import math
import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import fq_replay  # noqa: E402

needs_ns3 = pytest.mark.skipif(not (Path("/usr/include/ns3").is_dir() and shutil.which("g++")),
                               reason="ns-3 3.37 (libns3-dev) and g++ not installed")


@pytest.fixture(scope="module")
def replay():
    fq_replay.build()
    # On ns-3's 1024-ns CoDel clock, so that its time truncation is exact and cannot decide.
    trace = fq_replay.synthetic_trace(1, 3.0, fq_replay.UNIT_NS)
    kw = {"rate": fq_replay.GRID_RATE, "codel": fq_replay.GRID_CODEL_NS}
    return trace, fq_replay.ns3(trace, **kw), fq_replay.engine(trace, **kw)


@needs_ns3
def test_both_sides_agree_packet_by_packet_until_the_control_law_parts_them(replay):
    trace, ns3, eng = replay
    k = fq_replay.first_divergence(ns3, eng)
    # Some 2000 packets of four flows, new and old lists, queues emptying and refilling, and
    # the first two drops of a dropping state: identical (kind, packet, time).
    assert k > 1000
    assert sum(1 for e in ns3[:k] if e[0] == "X") >= 2
    # There ns-3 drops and the engine sends: the third drop of that flow's dropping state.
    assert ns3[k][0] == "X" and eng[k][0] == "D"
    flow = trace[ns3[k][1]][1]
    d_ns3 = fq_replay.drops_of(trace, ns3, flow)
    d_eng = fq_replay.drops_of(trace, eng, flow)
    assert d_ns3[:2] == d_eng[:2]
    assert d_ns3[2] == ns3[k][2]
    interval = fq_replay.GRID_CODEL_NS[1]
    slot = 120 * fq_replay.UNIT_NS * 4  # the flow's next turn comes within 4 packet times
    # RFC 8289: next drop = last deadline + interval / sqrt(count), count = 2. The deadline of
    # the second drop is at most a slot before it.
    gap_eng = d_eng[2] - d_eng[1]
    gap_ns3 = d_ns3[2] - d_ns3[1]
    assert interval / math.sqrt(2) - slot <= gap_eng <= interval / math.sqrt(2) + slot
    # ns-3 (as Linux): one Newton step from 1/sqrt(1) = 1 gives 1/sqrt(2) ~ 1/2.
    assert interval / 2 - slot <= gap_ns3 <= interval / 2 + slot


@needs_ns3
def test_overflow_drops_the_same_batches_from_the_fattest_queue_as_ns3():
    # A 40-packet hard limit and CoDel out of the way (a target of about a second): every drop is
    # an overflow, and both sides drop the same packets at the same times over the whole trace,
    # half the fattest queue's bytes (at most 64 packets) at a time. A batch of one (RFC 8290's
    # reading, the engine before) parts from ns-3 at its first overflow.
    trace = fq_replay.synthetic_trace(1, 3.0, fq_replay.UNIT_NS)
    off = (976_562 * fq_replay.UNIT_NS, 9_765_625 * fq_replay.UNIT_NS)
    kw = {"rate": fq_replay.GRID_RATE, "codel": off, "limit": 40}
    ns3 = fq_replay.ns3(trace, **kw)
    eng = fq_replay.engine(trace, **kw)
    drops = [e for e in ns3 if e[0] == "X"]
    assert len(drops) > 50
    assert len({e[2] for e in drops}) < len(drops)      # some overflows dropped several at once
    assert fq_replay.first_divergence(ns3, eng) == -1
    one = fq_replay.engine(trace, **kw, drop_batch=1)
    k = fq_replay.first_divergence(ns3, one)
    assert k >= 0 and k <= ns3.index(drops[0]) + 1
