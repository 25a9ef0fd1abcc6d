"""The verified answer on the links where the models' answer fails or over-provisions, and on the
README's example: an independent re-simulation with other seeds meets the goals at the verified
size and misses one at half of it, and each model row's verdict agrees with a re-simulation at its
size (the largest size judged unsafe misses a goal, the smallest judged safe meets them all).

"Meets" in the re-simulation: its mean is on the right side of every goal, or within the
re-simulation's own noise of it (its one-sided 95 % test does not say "fails") and within half a
utilization point: the search accepts the smallest size whose seeds show the goal, so the true mean
there is close to the goal by design, and three other seeds scatter around it.

About 2–3 minutes in all on two cores (marked slow; part of make test)."""

import math

import pytest

from bufsize.recommendation import verification as V
from bufsize.recommendation import recommend

LINKS = {
    # 1 Gb/s, 300 flows through 200 Mb/s inputs (Γ = 5): with paper-era hosts 004-erf's 253 packets
    # gave ~94.5 %; with the linux profile about 118 packets meet the goal
    "gamma5": dict(capacity="1Gbps", flows=300, rtt="50ms", input_capacity="200Mbps", target_utilization=0.99),
    # 200 Mb/s, 40 flows with spread RTTs: 001's 503 packets are several times what is needed (67)
    "spread": dict(capacity="200Mbps", flows=40, rtt="20ms..80ms", target_utilization=0.98),
    # 500 Mb/s, 30 CUBIC flows: 001's 1 172 packets, where ~1/7 of it is enough
    "cubic": dict(capacity="500Mbps", flows=30, rtt="35ms..45ms", mix="cubic=1", target_utilization=0.99),
    # the README example: an OC3 port, half Reno half CUBIC, at most 3 ms of queueing
    "readme": dict(capacity="155Mbps", rtt="20ms..140ms", flows=400, packet_size="1000B",
                   mix="reno=0.5,cubic=0.5", max_delay="3ms", target_utilization=0.99),
}


def _resimulate(rec, buffers):
    """Mean utilization and loss at each buffer over the re-check seeds (not those of the search)."""
    inp = rec.input
    ver = rec.verified
    runner = V.Runner()
    try:
        bs = sorted(set(buffers))
        scs = [V.build_scenario(inp, b, seed=s, warmup_s=ver.run.warmup_s, duration_s=ver.run.duration_s)
               for b in bs for s in V.RECHECK_SEEDS]
        out = runner.map(scs)
    finally:
        runner.close()
    res = {}
    k = len(V.RECHECK_SEEDS)
    for i, b in enumerate(bs):
        runs = [dict(r["summary"], seed=s) for r, s in zip(out[i * k:(i + 1) * k], V.RECHECK_SEEDS)]
        res[b] = V.judge(V.SizeResult(b, runs), ver.goals, capacity_pps=inp.capacity_pps)
    return res


def _holds(r, goals) -> bool:
    if not r.misses():
        return True
    return r.verdict != "fails" and r.mean("utilization") >= goals.utilization - 0.005


@pytest.mark.slow
@pytest.mark.parametrize("name", list(LINKS))
def test_verified_size_holds_on_other_seeds_and_half_of_it_does_not(name):
    rec = recommend(**LINKS[name], verify=True)
    ver = rec.verified
    assert ver.status in ("verified", "lower-bound"), ver.statement
    b = ver.buffer_packets
    assert not ver.run.too_short
    verdicts = ver.verdicts
    unsafe = [d["buffer_packets"] for d in verdicts.values() if d["verdict"] == "unsafe"
              and d["misses"] != ["delay"] and not d.get("borderline")]
    safe = [d["buffer_packets"] for d in verdicts.values() if d["verdict"] in ("safe", "wasteful")
            and not d.get("borderline")]
    check = [b, b // 2] + ([max(unsafe)] if unsafe else []) + ([min(safe)] if safe else [])
    res = _resimulate(rec, [x for x in check if x >= 1])
    assert _holds(res[b], ver.goals), (
        f"{name}: the verified {b} packets miss {res[b].misses()} on other seeds: "
        f"utilization {res[b].mean('utilization'):.4f}")
    if ver.status == "lower-bound":
        assert "lower bound" in ver.statement
    else:
        assert res[b // 2].misses(), (f"{name}: half of the verified size ({b // 2}) still meets the goals: "
                                      f"utilization {res[b // 2].mean('utilization'):.4f}")
    if unsafe:
        assert res[max(unsafe)].misses(), f"{name}: {max(unsafe)} packets judged unsafe meet the goals on other seeds"
    if safe:
        assert _holds(res[min(safe)], ver.goals), f"{name}: {min(safe)} packets judged safe miss on other seeds"
    # the verdicts' factor-two rule against the verified size
    for mid, d in verdicts.items():
        if d["verdict"] == "wasteful":
            assert d["buffer_packets"] >= 2 * b
        if d["verdict"] == "safe":
            assert d["buffer_packets"] < 2 * b
    assert math.isfinite(ver.need_mean) and ver.need_mean <= b * 1.5
