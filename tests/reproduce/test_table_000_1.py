"""000-TableI: the table's setup columns, the checks' logic, and a tiny-scale run of all eight rows."""

from __future__ import annotations

import json
import math

import pandas as pd
import pytest

from bufsize.cli import main
from bufsize.reproduce import _p000_closed, table_000_1 as t

#: FIGURES.md "### 000-TableI" as printed: Nin, U, Γ, Cout, Cin, BDP (packets).
FIGURES_MD = [
    (2, 5, 0.1, "2.5 Mb/s", "25 Mb/s", 6),
    (20, 5, 0.1, "2.5 Mb/s", "25 Mb/s", 6),
    (2, 100, 0.1, "50 Mb/s", "500 Mb/s", 125),
    (20, 100, 0.1, "50 Mb/s", "500 Mb/s", 125),
    (1000, 25, 10, "10 Mb/s", "1 Mb/s", 25),
    (20, 25, 10, "10 Mb/s", "1 Mb/s", 25),
    (1000, 500, 10, "100 Mb/s", "10 Mb/s", 250),
    (20, 500, 10, "100 Mb/s", "10 Mb/s", 250),
]


def _mbps(text: str) -> float:
    return float(text.split()[0]) * 1e6


def test_rows_and_bdp_both_ways_match_the_table():
    assert len(t.ROWS) == len(FIGURES_MD) == 8
    for row, (nin, users, gamma, cout, cin, bdp) in zip(t.ROWS, FIGURES_MD):
        assert row == (nin, users, gamma, _mbps(cout), _mbps(cin), bdp)
        assert row[3] / row[4] == pytest.approx(gamma)
        b30, b60 = t.bdp_packets(row[3], t.TO_TABLE_S), t.bdp_packets(row[3], 0.060)
        # the printed column is C × 30 ms in 1500-byte packets (2.5 Mb/s: 6.25, printed 6)
        assert round(b30) == bdp and abs(b30 - bdp) < 0.5
        assert b60 == pytest.approx(2 * b30)
    assert t.bdp_packets(50e6, t.TO_TABLE_S) == pytest.approx(125.0)
    assert t.bdp_packets(100e6, 0.060) == pytest.approx(500.0)


def test_setup_buffers_and_offered_load():
    s = t.setup(t.ROWS[6])                              # (1000, 500, 10): one input per user
    assert (s["inputs"], s["paper_inputs"], s["users"]) == (500, 1000, 500)
    assert t.setup(t.ROWS[0])["inputs"] == 2            # (2, 5): 5 users share 2 inputs
    # the (1000, 25, 10) row is Figs. 15-16's Γ = 10 setup, the (20, 100, 0.1) row Figs. 13-14's
    assert t.setup(t.ROWS[4]) == _p000_closed.SETUPS["high"]
    assert t.setup(t.ROWS[3]) == _p000_closed.SETUPS["low"]
    b = t.buffers(t.ROWS[6], 15)
    assert b[0] == 2 and b[-1] == 2000 and len(b) == 15 and list(b) == sorted(set(b))
    assert t.buffers(t.ROWS[0], 8) == (2, 3, 5, 8, 13, 20, 32, 50)
    nominal, bound = t.offered_load(t.ROWS[4])
    assert nominal == pytest.approx(25 * 640e3 / 10e6)                 # 1.6
    assert bound == pytest.approx(25 * 640e3 / (1 + 0.64) / 10e6)      # 0.976: 1 Mb/s inputs
    assert t.expected_form(0.1) == "pl" and t.expected_form(10.0) == "ex"


def _table(over=None):
    """A results table: PL wins on Γ = 0.1, EX on Γ = 10, (20, 25) the lightest and the B̂ outlier."""
    rows = []
    for nin, users, gamma, cout, cin, bdp in t.ROWS:
        low = gamma < 1
        light = (nin, users) == (20, 25)
        rows.append({"nin": nin, "users": users, "gamma": gamma, "expected_form": "pl" if low else "ex",
                     "form": "pl" if low else "ex", "r2_pl": 0.99 if low else 0.9, "r2_ex": 0.9 if low else 0.99,
                     "loss_smallest_b": 0.01 if light else 0.05, "queue_fill_largest_b": 0.05 if light else 0.5,
                     "utilization_largest_b": 0.9, "largest_b_packets": 100, "smallest_b_packets": 2,
                     "bhat_L": math.inf if light else (math.nan if low else 0.0), "bhat_S": 0.0,
                     "b_ex": 0.001, "f": 0.4, "bdp_60ms_packets": 2 * bdp, "offered_load": 1.5,
                     "offered_load_input_bound": 1.2, "fit_buffers": 6, "fit_b_first": 5, "fit_b_last": 50,
                     "fit_b_min": 5, "cutoff_packets": 50, "loss_fit_first": 0.04, "loss_fit_last": 0.01,
                     "low_load_exception": light})
    tab = pd.DataFrame(rows)
    for (nin, users, col), v in (over or {}).items():
        tab.loc[(tab.nin == nin) & (tab.users == users), col] = v
    return tab


def test_checks_pass_on_the_papers_outcome():
    checks, notes = t.checks_and_notes(_table())
    assert len(checks) == 10 and all(c.passed for c in checks)
    assert not [n for n in notes if n.startswith("Miss")]


def test_checks_miss_with_a_note():
    tab = _table({(20, 25, "form"): "pl", (20, 25, "r2_pl"): 0.999, (1000, 25, "bhat_L"): math.inf,
                    (1000, 500, "queue_fill_largest_b"): 0.01})
    checks, notes = t.checks_and_notes(tab)
    failed = [c.claim for c in checks if not c.passed]
    assert len(failed) == 3
    assert failed[0].startswith("row (Nin 20, U 25, Γ 10) follows the exponential")
    assert "low-load row" in failed[1] and "only Γ = 10 row" in failed[2]
    misses = [n for n in notes if n.startswith("Miss")]
    assert len(misses) == 3
    assert "R² PL 0.9990 vs EX 0.9900" in misses[0]
    assert "(1000, 25), (20, 25)" in misses[2]
    # a form check counts only the expected form winning
    checks, _ = t.checks_and_notes(_table({(2, 5, "form"): "ex"}))
    assert [c.passed for c in checks].count(False) == 1


@pytest.fixture
def tiny(monkeypatch):
    monkeypatch.setattr(_p000_closed, "_CACHE", {})
    monkeypatch.setitem(t.SCALE, "quick", {"points": 5, "seeds": (1,), "duration": 30.0, "warmup": 10.0})


def test_tiny_run_writes_eight_rows_and_is_deterministic(tiny, tmp_path):
    out = tmp_path / "a"
    assert main(["reproduce", "table_000_1", "--quick", "--out", str(out)]) == 0
    d = out / "table_000_1"
    for name in ("figure.png", "figure.svg", "data.csv", "checks.json", "inputs.json", "sweep.csv", "runs.csv"):
        assert (d / name).stat().st_size > 0, name
    data = pd.read_csv(d / "data.csv")
    assert len(data) == 8
    assert list(zip(data.nin, data.users)) == [(r[0], r[1]) for r in t.ROWS]
    assert list(data.bdp_printed_packets) == [r[5] for r in FIGURES_MD]
    assert (data.bdp_60ms_packets == 2 * data.bdp_30ms_packets).all()
    assert set(data.form) <= {"pl", "ex", "none"}
    assert data.low_load_exception.sum() == 1
    assert (data.utilization_largest_b > 0).all() and (data.utilization_largest_b <= 1.0 + 1e-9).all()
    checks = json.loads((d / "checks.json").read_text())
    assert len(checks) == 10
    assert sum("follows the" in c["claim"] for c in checks) == 8
    assert "low-load" in checks[8]["claim"] and "B̂ = 0" in checks[9]["claim"]
    inputs = json.loads((d / "inputs.json").read_text())
    assert len(inputs["rows"]) == 8 and inputs["sweep"]["duration_s"] == 30.0
    assert len(pd.read_csv(d / "runs.csv")) == sum(len(r["buffers_packets"]) for r in inputs["rows"])
    _p000_closed._CACHE.clear()
    out2 = tmp_path / "b"
    assert main(["reproduce", "table_000_1", "--quick", "--out", str(out2)]) == 0
    for name in ("data.csv", "checks.json", "sweep.csv"):
        assert (out2 / "table_000_1" / name).read_bytes() == (d / name).read_bytes(), name
