"""The testbed's progress line counts in English: "B = 1 packet", "1 flow", "0 users"."""

from __future__ import annotations

from bufsize.commands.testbed import _count


def test_counts_are_singular_for_one():
    assert _count(1, "packet") == "1 packet" and _count(1, "flow") == "1 flow"
    assert _count(0, "user") == "0 users" and _count(52, "packet") == "52 packets"
