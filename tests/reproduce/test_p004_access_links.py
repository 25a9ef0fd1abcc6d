"""Paper 004's simulation items send their traffic through finite access links (004 §4: its simulations
had 'access links before the bottleneck link [that] space out the packets of each burst'), not the
unspaced bursts of no access link; the earlier setting survives only as labelled sensitivity runs."""

from __future__ import annotations

import importlib

import pytest

from bufsize.reproduce import _p004
from bufsize.reproduce._core import Context

ITEMS = ("fig_004_10", "fig_004_11", "fig_004_12", "fig_004_13", "fig_004_14")


class _Captured(Exception):
    pass


def _scenarios(item: str, monkeypatch) -> list[dict]:
    """The scenarios an item's quick run would simulate, in its order (captured, not run)."""
    from bufsize.reproduce import _sim

    seen: list[dict] = []

    def capture(scenarios, ctx, **kw):
        seen.extend(s.to_dict() if hasattr(s, "to_dict") else dict(s) for s in scenarios)
        raise _Captured

    monkeypatch.setattr(_sim, "run_scenarios", capture)
    mod = importlib.import_module(f"bufsize.reproduce.{item}")
    with pytest.raises(_Captured):
        mod.run(Context(mode="quick"))
    return seen


def access_rates(d: dict) -> list[float | None]:
    """The access rate in front of the bottleneck for each traffic class of an engine scenario dict: the
    dumbbell's per-flow access link, and for each short-flow class the first link of its path when that is
    not the bottleneck (None: the packets reach the bottleneck unspaced)."""
    out: list[float | None] = []
    if d.get("dumbbell") is not None:
        out.append(d["dumbbell"]["access_rate_bps"])
    rates = {lk["name"]: lk["rate_bps"] for lk in d.get("links", [])}
    for sf in d.get("short_flows", []):
        path = sf.get("path") or [d["bottleneck"]]
        out.append(rates.get(path[0]) if path[0] != d["bottleneck"] else None)
    return out


def test_access_rates_reads_a_missing_access_link_as_none():
    bare = {"bottleneck": "bn", "links": [{"name": "bn", "rate_bps": 4e7}],
            "short_flows": [{"path": ["bn"]}], "dumbbell": {"access_rate_bps": None}}
    assert access_rates(bare) == [None, None]
    spaced = {"bottleneck": "bn", "links": [{"name": "bn", "rate_bps": 4e7}, {"name": "acc", "rate_bps": 1e9}],
              "short_flows": [{"path": ["acc", "bn"]}], "dumbbell": {"access_rate_bps": 1e9}}
    assert access_rates(spaced) == [1e9, 1e9]


@pytest.mark.parametrize("item", ITEMS)
def test_main_runs_send_every_class_through_the_chosen_access_rate(item, monkeypatch):
    scenarios = _scenarios(item, monkeypatch)
    assert scenarios
    chosen = [all(r == _p004.ACCESS_BPS for r in access_rates(d)) for d in scenarios]
    # the main grid comes first; the earlier setting (no access link, or the engine's 10 x C) only in the
    # sensitivity runs after it
    assert chosen[0]
    first_other = chosen.index(False) if False in chosen else len(chosen)
    assert all(not c for c in chosen[first_other:])
    assert sum(chosen) > len(chosen) / 2


def test_the_chosen_rate_is_faster_than_every_simulated_bottleneck():
    # §4: "we assumed access links that are faster than the bottleneck link" (40-400 Mb/s in Figs 10-14)
    assert _p004.ACCESS_BPS > 400e6
    assert any("faster than the bottleneck link" in s for s in _p004.ACCESS_SENTENCES)


def test_the_mixs_short_flows_start_as_section_4_says_and_the_long_flows_as_ns2():
    # 004 §4: "In slow-start, each flow first sends out two packets, then four, eight, sixteen"
    from bufsize.reproduce import _p004_mix as m

    d = m.scenario(100, 50, duration=10.0, warmup=2.0, access_bps=1e9).to_dict()
    assert d["short_flows"][0]["tcp"]["initial_window"] == 2
    assert d["dumbbell"]["tcp"]["initial_window"] == 1
