"""compare is costed before anything runs: the twin's simulation (memory, time) and its testbed
runs (each its duration in real time plus set-up). A comparison that cannot finish within
--max-time (max_time=) or whose simulation cannot fit in memory is refused in one line with the
estimate, exit 2; the flags that allow it let it through. Nothing here reaches the testbed: the
step that would run it is replaced by one that fails the test."""

from __future__ import annotations

import time

import pytest

import bufsize
from bufsize.cli import main
from bufsize.errors import BufsizeError

#: 30 runs of an hour each (the testbed's longest run): more than the default 24 h
LONG = ["--capacity", "10Mbps", "--flows", "2", "--rtt", "20ms", "--duration", "1h", "--repeats", "30"]
LONG_KW = dict(capacity="10Mbps", flows=2, rtt="20ms", duration="1h", repeats=30)


class Reached(BufsizeError):
    pass


@pytest.fixture
def no_testbed(monkeypatch):
    """As root, with the runs replaced by an error that says the checks were passed."""
    import os

    import bufsize.commands.compare as C

    def reached(*a, **k):
        raise Reached("the checks let it through")

    monkeypatch.setattr(C, "run_prepared", reached)
    monkeypatch.setattr(os, "geteuid", lambda: 0)


def _one_line(capsys, args) -> str:
    t = time.monotonic()
    code = main(args)
    err = capsys.readouterr().err
    assert time.monotonic() - t < 2.0
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err, err
    return err


def test_a_comparison_longer_than_max_time_is_refused_with_its_estimate(no_testbed, capsys):
    err = _one_line(capsys, ["compare", *LONG])
    assert err.startswith("bufsize: error: this comparison is a simulation (≈")
    assert "and 30 testbed runs of ≈ 1 h each (up to 90 with retried attempts): ≈ 30 h in all" in err
    assert "more than the 24 h allowed" in err and "--max-time" in err
    # a billion repeats: counted, not run
    err = _one_line(capsys, ["compare", "--capacity", "10Mbps", "--repeats", "1000000000"])
    assert "1,000,000,000 testbed runs" in err and "years in all" in err


def test_a_longer_max_time_lets_it_through(no_testbed, capsys):
    for limit in ("40h", "none"):
        err = _one_line(capsys, ["compare", *LONG, "--max-time", limit])
        assert "the checks let it through" in err


def test_a_simulation_that_cannot_fit_is_refused_unless_allowed(no_testbed, capsys, monkeypatch):
    monkeypatch.setenv("BUFSIZE_MEMORY_LIMIT", "50MB")
    err = _one_line(capsys, ["compare", "--capacity", "10Mbps", "--duration", "10s", "--warmup", "2s"])
    assert "this run needs" in err and "more than the 48 MiB of $BUFSIZE_MEMORY_LIMIT" in err
    assert "--allow-over-memory" in err
    err = _one_line(capsys, ["compare", "--capacity", "10Mbps", "--duration", "10s", "--warmup", "2s", "--allow-over-memory"])
    assert "the checks let it through" in err


def test_python_compare_refuses_the_same_in_its_own_words(no_testbed):
    t = time.monotonic()
    with pytest.raises(BufsizeError, match="^this comparison is a simulation") as info:
        bufsize.compare(**LONG_KW)
    assert time.monotonic() - t < 2.0
    msg = str(info.value)
    assert "give a longer max_time" in msg and "--" not in msg and "\n" not in msg
    with pytest.raises(Reached):
        bufsize.compare(**LONG_KW, max_time=None)
    with pytest.raises(Reached):
        bufsize.compare(**LONG_KW, max_time="31h")
