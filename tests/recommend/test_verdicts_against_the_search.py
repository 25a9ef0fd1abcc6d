"""A model's verdict never contradicts the search: a size below the verified answer (the smallest
size the runs showed to meet the goals) is "unsafe" or "unclear", never "safe", unless that size was
itself simulated and its runs showed every goal. Checked on 20 random verified links, and on the
verdict rule fed the case it exists for."""

import random

import pytest

from bufsize.recommendation import recommend
from bufsize.recommendation import verification as V


def contradictions(ver) -> list[str]:
    """Model rows called safe below the verified size without runs of their own that meet the goals."""
    if ver.buffer_packets is None:
        return []
    out = []
    for mid, d in ver.verdicts.items():
        if d["verdict"] != "safe" or d["buffer_packets"] >= ver.buffer_packets:
            continue
        r = ver.sizes.get(d["buffer_packets"])
        if r is None or r.verdict != "meets":
            out.append(f"{mid} at {d['buffer_packets']} < {ver.buffer_packets}")
    return out


def _links(n=20, seed=7):
    rnd = random.Random(seed)
    for _ in range(n):
        lo = rnd.choice([10, 20, 40])
        yield dict(capacity=f"{rnd.choice([20, 50, 100])}Mbps", flows=rnd.randint(3, 40),
                   rtt=f"{lo}ms..{lo * rnd.choice([1, 2, 3])}ms",
                   target_utilization=rnd.choice([0.95, 0.98, 0.99]),
                   mix=rnd.choice([None, "cubic=1", "reno=0.5,cubic=0.5"]))


@pytest.mark.slow
def test_no_safe_verdict_below_the_verified_size_on_random_links():
    runner = V.Runner(workers=2)
    found = []
    try:
        for kw in _links():
            rec = recommend(**kw)
            ver = V.verify_recommendation(rec, runner=runner, max_measure_s=8.0)
            found += [f"{kw}: {c}" for c in contradictions(ver)]
    finally:
        runner.close()
    assert found == []


def _size(b, utils):
    return V.SizeResult(b, [{"seed": i, "utilization": u, "loss_rate": 0.0} for i, u in enumerate(utils)])


def test_a_size_below_the_answer_that_was_only_unclear_is_not_safe():
    g = V.Goals(0.98)
    sizes = {b: V.judge(_size(b, us), g, capacity_pps=1e4) for b, us in
             ((125, [0.985, 0.975, 0.99]), (137, [0.99, 0.978, 0.986]), (154, [0.99, 0.991, 0.992]))}
    assert sizes[137].verdict == "unclear" and not sizes[137].misses()
    v = V._verdicts({"004-erf": 137.4, "004-sqrt-n": 131.8, "at": 154}, sizes, 154, "verified", g, 1e4, [])
    assert v["004-erf"]["verdict"] == "unclear" and v["004-erf"]["simulated"]
    assert v["004-sqrt-n"]["verdict"] == "unclear" and not v["004-sqrt-n"]["simulated"]
    assert v["at"]["verdict"] == "safe"
    # the check above, fed the contradiction it looks for
    fake = V.Verified("verified", 154, g, "", verdicts={"x": {"verdict": "safe", "buffer_packets": 137}}, sizes=sizes)
    assert contradictions(fake) == ["x at 137 < 154"]
