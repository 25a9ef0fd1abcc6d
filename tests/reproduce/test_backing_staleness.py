"""Numbers kept in the code to back miss notes are tied to the engine they hold for."""

from __future__ import annotations


def test_kept_backing_numbers_match_the_engine_they_were_recorded_for():
    from bufsize.reproduce import _p001_cross, _p004_mix
    from bufsize.reproduce._sim import engine_fingerprint

    now = engine_fingerprint()
    for name, source in (("_p001_cross.BACKING", _p001_cross.BACKING_SOURCE),
                         ("_p004_mix.OTHER_CC_QUICK", _p004_mix.OTHER_CC_SOURCE)):
        assert source["engine_fingerprint"] == now, (
            f"the engine's results changed (fingerprint {now}, {name} recorded for {source['engine_fingerprint']}): "
            f"re-measure {name} and the literal numbers of the notes that quote it, then update its source record")


def test_fingerprint_is_deterministic_and_sensitive_to_the_scenario(monkeypatch):
    from bufsize.reproduce import _sim

    a = _sim.engine_fingerprint()
    assert a == _sim.engine_fingerprint()
    real = _sim._one

    def nudged(scenario, tables):
        out = real(scenario, tables)
        out["summary"] = dict(out["summary"], drops=out["summary"]["drops"] + 1)
        return out

    monkeypatch.setattr(_sim, "_one", nudged)
    assert _sim.engine_fingerprint() != a
