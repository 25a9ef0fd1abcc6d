"""Results display readably: a one-line repr at the prompt (not a 3 000-character dataclass dump)
and an HTML table in Jupyter that carries the numbers of the result itself."""

from __future__ import annotations

import html
import re

import pytest

import bufsize
from bufsize.recommendation.display import recommendation_frame


@pytest.fixture(scope="module")
def rec():
    return bufsize.recommend(capacity="155Mbps", rtt="20ms..140ms", flows=400, max_loss=0.01, verify=False)


def test_recommendation_repr_is_one_short_line(rec):
    text = repr(rec)
    assert "\n" not in text and len(text) < 300
    assert "155 Mb/s" in text and "400 flows" in text and rec.recommended["id"] in text
    assert rec.recommended["source"] == "models" and "not verified" in text


def test_recommendation_html_has_every_model_and_marks_the_chosen_one(rec):
    page = rec._repr_html_()
    assert page.count("<tr") == len(rec.models) + 1          # a header and one row per model
    for m in rec.models:
        assert f">{html.escape(m.id)}<" in page
    bold = re.findall(r"<tr style='font-weight:bold[^']*'><td[^>]*>([^<]+)<", page)
    chosen = [m.id for m in rec.models if m.id == rec.models_pick["id"]]
    assert bold == chosen
    for reason in rec.models_pick["reasons"]:
        assert html.escape(reason) in page
    assert "<script" not in page


def test_recommendation_frame_has_one_row_per_model(rec):
    df = recommendation_frame(rec)
    assert list(df["model"]) == [m.id for m in rec.models]
    row = df[df["models_pick"]].iloc[0]
    assert row["buffer_packets"] == pytest.approx(rec.model(row["model"]).buffer_packets)
    assert df["applies"].dtype == bool


def test_simresult_displays_its_own_numbers():
    res = bufsize.simulate(capacity="2Mbps", flows=2, rtt="40ms", buffer=10, duration="2s", warmup="0.5s",
                           progress=False)
    text = repr(res)
    assert "\n" not in text and f"{res.summary['utilization']:.4f}" in text and "buffer 10 pkt" in text
    page = res._repr_html_()
    assert f"{res.summary['utilization'] * 100:.2f} %" in page
    assert "flows (2)" in page and "links (" in page


def test_fit_result_prints_its_report():
    import numpy as np
    import pandas as pd

    from bufsize.experiments.fit import report

    B = np.repeat([5, 10, 20, 40, 80], 3).astype(float)
    t = pd.DataFrame({"buffer_packets": B, "loss_rate": 0.2 * B ** -0.5, "queue_delay_mean_s": 0.4 * B / 1250,
                      "capacity_pps": 1250.0, "rtt_mean_s": 0.1})
    fit = bufsize.fit_sweep(t)
    assert str(fit) == report(fit) and "b = 0.5" in str(fit)
    assert fit._repr_html_() == f"<pre>{html.escape(report(fit))}</pre>"


def test_a_verified_recommendation_shows_its_statement_and_verdicts():
    import copy
    from types import SimpleNamespace

    r = copy.copy(bufsize.recommend(capacity="155Mbps", rtt="20ms..140ms", flows=400, verify=False))
    r.verified = SimpleNamespace(buffer_packets=120, statement="120 packets meet the goals on the simulator",
                                 status="verified", best=None, at_size=None, at_buffer=None,
                                 verdicts={r.models[0].id: {"verdict": "wasteful"}})
    page = r._repr_html_()
    assert "120 packets meet the goals on the simulator" in page and ">on the simulator<" in page
    # the answer every display leads with is the verified size, the models' pick named apart
    assert "Answer: 120 packets" in page and "verified on the simulator" in repr(r)
    assert r.recommended["buffer_packets"] == 120 and r.recommended["source"] == "verified"
    assert ">wasteful<" in page and page.count("<tr") == len(r.models) + 1
    assert repr(r).split(": ", 1)[1].startswith("120 packets")
