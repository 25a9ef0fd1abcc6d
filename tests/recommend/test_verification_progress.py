"""What a verification says while it runs: a line per decided size that code can read (a str with
the size, verdict, runs and time-left as fields), a progress bar drawn from those lines in a
notebook, and, interrupted, what it had decided and where its runs are kept."""

import io

import pytest
from rich.console import Console

import bufsize
from bufsize.recommendation import recommend
from bufsize.recommendation import verification as V
from bufsize.recommendation.progress import SizeLine, VerifyBar, size_line

TINY = dict(capacity="10Mbps", flows=10, rtt="40ms", target_utilization=0.95)


def test_each_decided_size_reaches_the_callback_as_a_line_with_its_fields(monkeypatch):
    monkeypatch.setenv("BUFSIZE_CACHE", "off")
    lines = []
    rec = bufsize.recommend(**TINY, verify=True, workers=1, progress=lines.append)
    sized = [ln for ln in lines if isinstance(ln, SizeLine)]
    assert all(isinstance(ln, str) for ln in lines) and len(sized) >= 3
    search = [ln for ln in sized if ln.expected_runs]     # the search's sizes (not the FQ-CoDel line)
    assert [ln.runs for ln in search] == sorted(ln.runs for ln in search)
    for ln in sized:
        assert f"{ln.size} {ln.unit}:" in ln and f"-> {ln.verdict}" in ln and f"[{ln.runs} runs" in ln
        assert ln.verdict in ("meets", "fails", "unclear") and ln.seeds >= 2
    answer = int(rec.recommended["buffer_packets"])
    assert any(ln.size == answer and ln.verdict == "meets" for ln in search)
    assert search[-1].fields()["runs"] == search[-1].runs


def test_the_time_left_guide_is_the_typical_count_at_the_mean_time_per_run():
    ln = size_line(170, "pkt", "meets", 6, 0.9911, 0.005, runs=10, cached_runs=2, expected_runs=20, elapsed_s=5.0)
    assert ln.eta_s == pytest.approx(8 * 0.5)
    assert "[10 runs + 2 from the run cache, 5 s; about 4 s left]" in ln
    assert size_line(1, "pkt", "fails", 2, 0.5, 0.1, 4, 0, 0, 1.0).eta_s is None
    assert "finishing" in size_line(1, "pkt", "fails", 2, 0.5, 0.1, 20, 0, 20, 1.0)


def test_the_notebook_bar_follows_the_decided_sizes_and_prints_the_other_lines():
    out = io.StringIO()
    with VerifyBar(Console(file=out, width=160, force_terminal=False, force_jupyter=False)) as bar:
        bar("verifying on the simulator: 2 model sizes, then a bisection")
        bar(size_line(64, "pkt", "meets", 2, 0.999, 0.01, 2, 0, 12, 1.0))
        bar(size_line(25, "pkt", "fails", 2, 0.91, 0.02, 4, 0, 12, 2.0))
    text = out.getvalue()
    assert "verifying on the simulator" in text
    assert "4/12" in text and "25 pkt: fails" in text and "about 4 s left" in text
    assert len(bar.lines) == 3


def test_a_bar_that_got_no_line_draws_nothing():
    out = io.StringIO()
    with VerifyBar(Console(file=out, force_terminal=False)):
        pass
    assert out.getvalue() == ""


def test_an_interrupted_verification_says_what_it_decided_and_where_its_runs_are(empty_run_cache, interrupted_after):
    interrupted_after(4)
    lines = []
    with pytest.raises(KeyboardInterrupt) as exc:
        V.verify_recommendation(recommend(**TINY), executor="serial", say=lines.append)
    decided = [ln for ln in lines if isinstance(ln, SizeLine)]
    msg = str(exc.value)
    assert decided and msg.startswith(f"verification interrupted after deciding {len(decided)} size")
    for ln in decided:
        assert f"{ln.size} pkt {ln.verdict}" in msg
    assert "4 finished runs are kept in the run cache" in msg and str(empty_run_cache) in msg
    assert "resumes from them" in msg


def test_the_command_prints_the_interruption_and_exits_130(monkeypatch, capsys):
    from bufsize import cli
    from bufsize import recommendation

    def interrupted(*_a, **_k):
        raise KeyboardInterrupt("verification interrupted after deciding 1 size (64 pkt meets); its 2 finished "
                                "runs are kept in the run cache (/x): the same verification again resumes from them")

    monkeypatch.setattr(recommendation, "attach_verification", interrupted)
    code = cli.main(["recommend", "--capacity", "10Mbps", "--flows", "10", "--rtt", "40ms", "--verify"])
    err = capsys.readouterr().err
    assert code == 130
    assert "bufsize: verification interrupted after deciding 1 size (64 pkt meets)" in err


def test_the_models_table_comes_first_on_every_surface(monkeypatch, capsys):
    from bufsize import cli

    monkeypatch.setenv("BUFSIZE_CACHE", "off")
    lines = []
    bufsize.recommend(**TINY, verify=True, workers=1, progress=lines.append)
    assert lines[0].startswith("Models (before the simulator's verdicts):")
    assert sum(ln.startswith("Models (") for ln in lines) == 1
    assert cli.main(["recommend", "--capacity", "10Mbps", "--flows", "10", "--rtt", "40ms",
                     "--target-utilization", "0.95", "--verify", "--progress", "--workers", "1"]) == 0
    err = capsys.readouterr().err
    assert err.count("Models (before the simulator's verdicts):") == 1
    assert err.index("Models (") < err.index("verifying on the simulator")
