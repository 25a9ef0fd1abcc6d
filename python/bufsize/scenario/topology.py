"""The dumbbell shorthand of a scenario."""

from __future__ import annotations

from typing import Any

from bufsize import units
from bufsize.scenario._fields import _bytes, _canon, _dist_mean, _distribution, _err, _int, _join, _queue, _rate, _time
from bufsize.scenario import traffic
from bufsize.scenario.tcp import _tcp


def _dumbbell(raw: Any, field: str) -> dict[str, Any]:
    d = _canon("dumbbell", raw, field)
    for key in ("capacity_bps", "flows", "rtt_s", "buffer"):
        if key not in d:
            raise _err(_join(field, key), "missing (a dumbbell needs capacity, flows, rtt and buffer)")
    cap = _rate(d["capacity_bps"], _join(field, "capacity_bps"))
    n = _int(d["flows"], _join(field, "flows"), minimum=1, maximum=2**31 - 1)
    rtt = _distribution(d["rtt_s"], _join(field, "rtt_s"), allow_zero=False)
    rtt_values = [v for part in rtt.values() for v in (part if isinstance(part, list) else [part])]
    if min(rtt_values) < 1e-6:   # the engine's clock counts ns; a round trip under 1 µs is no path
        raise _err(_join(field, "rtt_s"), f"an RTT of {min(rtt_values):.3g} s is below 1 µs")
    tcp = _tcp(d.get("tcp"), _join(field, "tcp"))
    bdp = units.bdp_packets(cap, _dist_mean(rtt), tcp["packet_bytes"])
    buf = _queue(d["buffer"], _join(field, "buffer"), rate_bps=cap, bdp_packets=bdp, n_flows=n)
    access = d.get("access_rate_bps")
    access_rate = None if access is None else _rate(access, _join(field, "access_rate_bps"))
    bn_delay = _time(d.get("bottleneck_delay_s", 0.0), _join(field, "bottleneck_delay_s"), allow_zero=True)
    min_rtt = rtt["fixed"] if "fixed" in rtt else min(rtt.get("uniform") or rtt["list"])
    if min_rtt < 2.0 * bn_delay:
        # named by the delay: the RTTs are what the user wants, the shared links' delay must fit in them
        raise _err(_join(field, "bottleneck_delay_s"), f"{bn_delay:g} s each way does not fit in the smallest "
                                                       f"RTT {min_rtt:g} s (it must be at most half of it)")
    out = {
        "capacity_bps": cap,
        "flows": n,
        "rtt_s": rtt,
        "buffer": buf,
        "access_rate_bps": access_rate,
        "access_queue": _queue(d.get("access_queue"), _join(field, "access_queue"),
                               rate_bps=access_rate if access_rate is not None else 10.0 * cap),
        "bottleneck_delay_s": bn_delay,
        "start_s": _distribution(d.get("start_s", {"uniform": [0.0, 1.0]}), _join(field, "start_s"),
                                 allow_zero=True),
        "tcp": tcp,
    }
    if d.get("bottleneck_burst_bytes") is not None:
        out["bottleneck_burst_bytes"] = _bytes(d["bottleneck_burst_bytes"], _join(field, "bottleneck_burst_bytes"))
    if d.get("mix"):
        out["mix"] = traffic.mix(d["mix"], _join(field, "mix"), n, tcp)
    return out
