"""Values no port has are one-line errors (exit 2), not tracebacks from deep inside a model."""

from __future__ import annotations

import pytest

import bufsize
from bufsize.cli import main
from bufsize.errors import BufsizeError

LINK = ["recommend", "--no-verify", "--capacity", "1Gbps", "--rtt", "20ms"]


@pytest.mark.parametrize("extra, says", [
    (["--flows", "10", "--max-loss", "1e-200"], "--max-loss: a loss goal of 1e-200 is below"),   # OverflowError
    (["--flows", "1e300"], "--flows: 1e+300 long-lived flows is more than"),                    # ZeroDivisionError
])
def test_absurd_values_are_one_line_and_exit_2(capsys, extra, says):
    assert main(LINK + extra) == 2
    err = [ln for ln in capsys.readouterr().err.splitlines() if "error" in ln]
    assert len(err) == 1 and says in err[0]


def test_the_bounds_themselves_are_accepted(capsys):
    assert main(LINK + ["--flows", "1000000000", "--max-loss", "1e-9"]) in (0, None)


def test_a_mix_share_that_is_not_a_number_is_a_bufsize_error():
    with pytest.raises(BufsizeError, match="share of 'cubic' must be a number, got 'x'"):
        bufsize.recommend(capacity="1Gbps", rtt="20ms", flows=10, mix={"cubic": "x"})


@pytest.mark.parametrize("flag, value, needle", [
    ("--capacity", "1e300bps", "outside the ports sized here"),
    ("--capacity", "1bps", "outside the ports sized here"),
    ("--rtt", "1e300s", "outside 1 µs to 60 s"),
    ("--rtt", "0.1ns", "outside 1 µs to 60 s"),
    ("--packet-size", "1e300B", "larger than any packet"),
])
def test_physically_impossible_links_are_refused_not_sized(capsys, flag, value, needle):
    from bufsize.cli import main

    args = {"--capacity": "1Gbps", "--rtt": "20ms", "--flows": "10"}
    args[flag] = value
    assert main(["recommend", *sum(([k, v] for k, v in args.items()), []), "--no-verify"]) == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err.startswith("bufsize: error: " + flag) and needle in err and len(err) < 200


def test_an_error_never_prints_a_300_digit_number(capsys):
    from bufsize.cli import main

    assert main(["simulate", "--capacity", "1Gbps", "--rtt", "20ms", "--flows", "10", "--buffer", "1e300pkt"]) == 2
    err = capsys.readouterr().err.strip()
    assert "1e+300" in err and len(err) < 120


def test_a_verification_that_cannot_fit_is_refused_before_any_run(capsys, monkeypatch):
    import time

    from bufsize.recommendation import verification

    def no_run(*a, **k):
        raise AssertionError("a verification run started")

    monkeypatch.setattr(verification.Runner, "map", no_run)
    monkeypatch.setenv("BUFSIZE_MEMORY_LIMIT", "50MB")
    t = time.monotonic()
    code = main(["recommend", "--capacity", "10Mbps", "--rtt", "20ms", "--flows", "10", "--verify"])
    err = [ln for ln in capsys.readouterr().err.splitlines() if "error" in ln]
    assert code == 2 and len(err) == 1, err
    assert err[0].startswith("bufsize: error: this verification is") and "runs (a typical search)" in err[0]
    assert "more than the 48 MiB of $BUFSIZE_MEMORY_LIMIT" in err[0]
    assert time.monotonic() - t < 2.0


def test_a_verification_that_cannot_finish_in_a_day_is_refused_before_any_run(capsys, monkeypatch):
    # runs estimated at 10 000 s each (a stand-in for a link too big to simulate in time): the
    # typical search is over the 24 h limit
    from bufsize import cost
    from bufsize.recommendation import verification

    def no_run(*a, **k):
        raise AssertionError("a verification run started")

    monkeypatch.setattr(verification.Runner, "map", no_run)
    monkeypatch.setattr(cost, "pooled_seconds", lambda est: (1e4, 1e4))
    code = main(["recommend", "--capacity", "10Mbps", "--rtt", "20ms", "--flows", "10", "--verify", "--workers", "2"])
    err = [ln for ln in capsys.readouterr().err.splitlines() if "error" in ln]
    assert code == 2 and len(err) == 1, err
    assert err[0].startswith("bufsize: error: this verification is") and "more than the 24 h allowed" in err[0]
    assert "--workers or --scheduler" in err[0]


def test_a_link_the_engine_cannot_simulate_is_refused_in_recommend_s_terms(capsys):
    # 400 Gb/s with 10 flows: one flow would send more segments in the verification's run than the
    # engine's 32-bit sequence numbers hold; the error is the verification's, not an internal field
    code = main(["recommend", "--capacity", "400Gbps", "--rtt", "20ms", "--flows", "10", "--verify"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2
    assert err[-1].startswith("bufsize: error: --verify: the simulator cannot verify this link: ") and \
        "32-bit sequence space" in err[-1] and "--no-verify" in err[-1], err
    assert "duration_s" not in err[-1] and "shorten the run" not in err[-1]
