"""One answer on every surface: where the simulator ran, the CLI's text, ``--json``'s
``recommended``, ``bufsize.recommend()`` with its default arguments and its repr all give the
verified size; the models' pick is shown under its own name. And ``--buffer`` judges the buffer a
user already has beside that answer."""

import json
import re

import pytest

import bufsize
from bufsize.cli import main

LINKS = {
    "100M-30": ["--capacity", "100Mbps", "--rtt", "10ms..60ms", "--flows", "30"],
    "oc3-400": ["--capacity", "155Mbps", "--rtt", "20ms..140ms", "--flows", "400"],
    "demo": [],     # the built-in example port
}


def _kwargs(args):
    return {a[2:].replace("-", "_"): v for a, v in zip(args[::2], args[1::2])}


def _cli(capsys, *args):
    rc = main(["recommend", *args])
    out, err = capsys.readouterr()
    assert rc == 0, err
    return out


def answer_in_text(text: str) -> int:
    m = re.search(r"^Answer: ([\d,]+) packets", text, re.M)
    assert m, text[:400]
    return int(m.group(1).replace(",", ""))


@pytest.mark.slow
@pytest.mark.parametrize("link", list(LINKS))
def test_text_json_python_and_repr_give_the_same_size(capsys, link):
    args = LINKS[link]
    text = _cli(capsys, *args)
    d = json.loads(_cli(capsys, *args, "--json"))
    rec = bufsize.recommend(**_kwargs(args))
    sizes = {"text": answer_in_text(text), "json": d["recommended"]["buffer_packets"],
             "python": rec.recommended["buffer_packets"], "buffer_packets": rec.buffer_packets,
             "repr": float(re.search(r": ([\d,.]+) packets", repr(rec)).group(1).replace(",", ""))}
    assert d["recommended"]["source"] == "verified" and rec.recommended["source"] == "verified"
    assert len({float(v) for v in sizes.values()}) == 1, sizes
    # the models' pick keeps its own name, and is not what a script reading `recommended` gets
    assert d["models_pick"]["buffer_packets"] == pytest.approx(rec.models_pick["buffer_packets"])
    assert "Models' pick:" in text


def test_python_default_verifies_by_the_cli_rule():
    rec = bufsize.recommend(capacity="10Mbps", rtt="40ms", flows=8, target_utilization=0.95)
    assert rec.verified is not None and rec.recommended["source"] == "verified"
    assert rec.recommended["buffer_packets"] == rec.verified.buffer_packets
    models_only = bufsize.recommend(capacity="10Mbps", rtt="40ms", flows=8, target_utilization=0.95, verify=False)
    assert models_only.recommended["source"] == "models"
    assert models_only.recommended["buffer_packets"] == models_only.models_pick["buffer_packets"]


def test_buffer_you_have_is_judged_beside_the_answer(capsys):
    text = _cli(capsys, *LINKS["100M-30"], "--buffer", "2MB")
    flat = " ".join(text.split())
    assert "Your buffer, 2MB (1,333 packets, 2 MB per port, 160 ms when full)" in flat
    answer = answer_in_text(text)
    m = re.search(rf"2MB against the verified {answer:,} packets: \+([\d.]+) ms of mean queueing \(p99 \+([\d.]+) ms\) "
                  r"for [+−-][\d.e-]+ points of utilization", flat)
    assert m, flat
    assert float(m.group(1)) > 50 and float(m.group(2)) >= float(m.group(1))   # a deep buffer: a standing queue
    assert "× the memory (2 MB instead of" in flat


def test_a_buffer_smaller_than_the_answer_says_what_it_misses():
    rec = bufsize.recommend(capacity="100Mbps", rtt="10ms..60ms", flows=30, buffer="5pkt")
    have = rec.verified.at_buffer
    assert have["buffer_packets"] == 5 and have["misses"] == ["utilization"]
    from bufsize.recommendation.display import buffer_comparison

    assert "misses utilization" in buffer_comparison(rec)
    assert rec.to_dict()["verified"]["at_buffer"]["buffer_packets"] == 5


@pytest.mark.parametrize("args, needle", [
    (["--buffer", "2MB", "--no-verify"], "--buffer"),
    (["--buffer", "0pkt"], "--buffer"),
    (["--buffer", "10GB"], "--buffer"),           # far beyond any run's reach: refused, not simulated
    (["--buffer", "fast"], "--buffer"),
])
def test_bad_buffer_is_one_line_and_exit_2(capsys, args, needle):
    rc = main(["recommend", *LINKS["100M-30"], *args])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and needle in err[-1] and "Traceback" not in "".join(err)


def test_progress_lines_reach_a_python_callback(capsys):
    lines = []
    rec = bufsize.recommend(capacity="10Mbps", rtt="40ms", flows=8, target_utilization=0.95, progress=lines.append)
    sized = [t for t in lines if " pkt: " in t]
    assert rec.verified is not None and lines[0].startswith("Models (before the simulator's verdicts):")
    assert lines[1].startswith("verifying on the simulator")
    assert sized and all(re.search(r"-> (meets|fails|unclear)  \[\d+ runs", t) for t in sized)
    capsys.readouterr()
    bufsize.recommend(capacity="10Mbps", rtt="40ms", flows=8, target_utilization=0.95, progress=True)
    assert "verifying on the simulator" in capsys.readouterr().err
    bufsize.recommend(capacity="10Mbps", rtt="40ms", flows=8, target_utilization=0.95, progress=False)
    assert "verifying" not in capsys.readouterr().err


def test_the_report_fits_100_columns_and_leads_with_the_answer(capsys):
    for args in (LINKS["100M-30"] + ["--buffer", "2MB"], LINKS["oc3-400"] + ["--no-verify", "--explain"]):
        text = _cli(capsys, *args)
        wide = [line for line in text.splitlines() if len(line) > 100]
        assert wide == [], wide
        lines = [x for x in text.splitlines() if x.strip()]
        assert lines[0].startswith("Link:") and lines[1 if not lines[1].startswith("  ") else 2].startswith("Answer:")


def test_the_plot_spans_the_simulated_sizes_and_names_far_models_in_the_legend():
    rec = bufsize.recommend(capacity="100Mbps", rtt="10ms..60ms", flows=30, progress=False)
    fig = rec.plot()
    lo, hi = fig.axes[0].get_xlim()
    sizes = sorted(rec.verified.sizes)
    assert lo <= sizes[0] and hi >= sizes[-1] and hi <= 2 * sizes[-1]
    labels = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    far = [m for m in rec.models if m.buffer_packets and m.buffer_packets > hi]
    assert far and all(any(t.startswith(m.id) and "off the axis" in t for t in labels) for m in far)


def test_the_report_says_when_the_models_read_reno_but_the_runs_simulate_cubic(capsys):
    text = " ".join(_cli(capsys, *LINKS["100M-30"], "--no-verify").split())
    assert "the models read the flows as Reno" in text and "linux profile's cubic" in text
    text = " ".join(_cli(capsys, *LINKS["100M-30"], "--no-verify", "--cc", "cubic").split())
    assert "the models read the flows as Reno" not in text
