"""Scenarios for the packet-level simulator, built in Python or read from TOML/JSON.

A scenario is plain data: the engine (``crates/sim``, ``src/scenario.rs``) owns the schema and
takes SI numbers only (bit/s, seconds, bytes, packets). This module is the friendly side of that
schema:

- every field can be written with a unit string from :mod:`bufsize.units` (``"155Mbps"``,
  ``"80ms"``, ``"1000B"``, ``"52pkt"``), either under its SI name (``rate_bps = "155Mbps"``) or under
  a short alias without the unit suffix (``rate = "155Mbps"``, ``delay = "0.5ms"``,
  ``packet_size = "1500B"``, ``min_rto = "200ms"``, ``duration = "60s"``);
- queues/buffers accept ``"52pkt"`` (or a bare number of packets), ``"64KiB"`` (a byte limit),
  ``"10ms"`` (a byte limit of 10 ms at the link's rate), ``"unlimited"``, and, in a dumbbell,
  buffers relative to the bandwidth-delay product: ``"0.5bdp"``, ``"bdp/sqrt(n)"``,
  ``"2bdp/sqrt(n)"`` (n = number of flows; BDP = capacity x mean RTT, in packets of
  ``packet_bytes``; the result is rounded to the nearest whole packet, halves up);
- a queue given as a table may name a queue discipline instead of the drop-tail FIFO:
  ``{limit_packets = 1000, discipline = {name = "codel", target = "5ms", interval = "100ms"}}`` or
  just ``discipline = "fq_codel"`` (``red``, ``codel``, ``pie``, ``fq_codel``; their parameters in
  docs/simulate.md); a discipline always keeps a hard limit: without one the scenario gets the
  discipline's default (1000 packets, 10240 for fq_codel, as Linux);
- mistakes raise :class:`bufsize.errors.ScenarioError` naming the field, e.g.
  ``flows[3].tcp.cc: unknown congestion control 'foo' (known: newreno)``.

:meth:`Scenario.to_dict` / :meth:`Scenario.to_json` give the engine's SI form. The engine checks
the scenario again when it loads it; its errors also become :class:`ScenarioError`.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Iterable, Mapping

from bufsize import units
from bufsize import profiles as _profiles
from bufsize.errors import BufsizeError, ScenarioError
from bufsize.scenario._fields import (
    _ALIASES,
    CONGESTION_CONTROLS,
    MEASURE_DEFAULTS,
    TCP_DEFAULTS,
    TOP_DEFAULTS,
    _bool,
    _bytes,
    _canon,
    _err,
    _int,
    _join,
    _queue,
    _rate,
    _time,
    congestion_controls,
)
from bufsize.scenario import _bounds, traffic
from bufsize.scenario.tcp import _tcp
from bufsize.scenario.topology import _dumbbell

__all__ = ["Scenario", "congestion_controls", "CONGESTION_CONTROLS", "TCP_DEFAULTS", "MEASURE_DEFAULTS", "TOP_DEFAULTS"]

_FLOW_KINDS = ("bulk",)


def _measure(raw: Any, field: str, duration_s: float) -> dict[str, Any]:
    d = _canon("measure", raw if raw is not None else {}, field)
    out = dict(MEASURE_DEFAULTS)
    out["cwnd_trace_flows"] = list(MEASURE_DEFAULTS["cwnd_trace_flows"])

    def interval(key: str) -> float:
        f = _join(field, key)
        return _bounds.interval(_time(d[key], f), f, duration_s=duration_s, default=MEASURE_DEFAULTS[key])

    for key in ("queue_trace_interval_s", "phase_trace_interval_s"):
        if key in d:
            out[key] = None if d[key] is None else interval(key)
    for key in ("cwnd_trace_interval_s", "cwnd_sum_interval_s"):
        if key in d:
            out[key] = interval(key)
    if "cwnd_trace_flows" in d:
        v = d["cwnd_trace_flows"]
        if not isinstance(v, (list, tuple)):
            raise _err(_join(field, "cwnd_trace_flows"), "expected a list of flow indices")
        out["cwnd_trace_flows"] = [_int(x, f"{field}.cwnd_trace_flows[{i}]") for i, x in enumerate(v)]
    if "queue_histogram" in d:
        out["queue_histogram"] = _bool(d["queue_histogram"], _join(field, "queue_histogram"))
    return out


def _warm_buffer(raw: Any, out: Mapping[str, Any]) -> dict[str, Any]:
    """``warm_buffer``: the bottleneck's drop-tail limit (``packets``) until ``until`` (within the
    warm-up), the scenario's own from then on; a drop-tail bottleneck limited in packets only."""
    d = _canon("warm_buffer", raw, "warm_buffer")
    for key in ("packets", "until_s"):
        if key not in d:
            raise _err(_join("warm_buffer", key), "missing")
    packets = _int(d["packets"], "warm_buffer.packets")
    if packets < 1:
        raise _err("warm_buffer.packets", f"must be at least 1, got {packets}")
    until = _time(d["until_s"], "warm_buffer.until_s")
    if until > out["warmup_s"]:
        raise _err("warm_buffer.until_s", f"must lie within the warm-up (at most {out['warmup_s']:g} s), "
                                          f"got {until:g} s")
    if out["bottleneck"] == "bn" and "dumbbell" in out:
        q = out["dumbbell"]["buffer"]
    else:
        q = next((lk["queue"] for lk in out.get("links", []) if lk["name"] == out["bottleneck"]), {})
    if not isinstance(q, Mapping) or q.get("discipline") is not None or q.get("limit_bytes") is not None \
            or q.get("limit_packets") is None:
        raise _err("warm_buffer", "needs a bottleneck that is a drop-tail FIFO limited in packets")
    return {"packets": packets, "until_s": until}


def _normalise(raw: Any) -> dict[str, Any]:
    """Loose input (unit strings, aliases) -> the engine's SI schema, checked field by field.

    Every TCP table starts from the scenario's ``profile`` (:mod:`bufsize.profiles`; when the
    scenario names none, the one in force: :func:`bufsize.profiles.using`, else ``"linux"``)."""
    d = _canon("top", raw, "")
    try:
        profile = _profiles.name(d.get("profile"), "profile")
    except BufsizeError as exc:
        raise _err("profile", exc.detail) from None
    with _profiles.using(profile):   # every TCP table below starts from the scenario's profile
        out = _normalise_in(d)
    return {"profile": profile, **out}


def _normalise_in(d: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    out["seed"] = _int(d.get("seed", TOP_DEFAULTS["seed"]), "seed")
    out["duration_s"] = _time(d.get("duration_s", TOP_DEFAULTS["duration_s"]), "duration_s")
    out["warmup_s"] = _time(d.get("warmup_s", TOP_DEFAULTS["warmup_s"]), "warmup_s", allow_zero=True)
    if out["duration_s"] > 1e6:
        raise _err("duration_s", f"must be at most 1e6 seconds, got {out['duration_s']:g}")
    if out["warmup_s"] >= out["duration_s"]:
        raise _err("warmup_s", f"warm-up {out['warmup_s']:g} s leaves no measurement window before "
                               f"duration_s = {out['duration_s']:g} s")

    links_raw = d.get("links", [])
    flows_raw = d.get("flows", [])
    if not isinstance(links_raw, (list, tuple)):
        raise _err("links", "expected a list of links")
    if not isinstance(flows_raw, (list, tuple)):
        raise _err("flows", "expected a list of flows")

    # The dumbbell (if any) is expanded by the engine into links named bn, bnr, acc{i}, racc{i};
    # explicit links and flows come after it and may use those names (cross traffic on bn).
    names: dict[str, str] = {}
    n_flows = 0
    dumbbell = d.get("dumbbell")
    if dumbbell is not None:
        out["dumbbell"] = _dumbbell(dumbbell, "dumbbell")
        n_flows = out["dumbbell"]["flows"]
        names["bn"] = names["bnr"] = "the dumbbell"

    def _known(name: str) -> bool:
        if name in names:
            return True
        m = re.fullmatch(r"r?acc(0|[1-9][0-9]*)", name)
        return dumbbell is not None and m is not None and int(m[1]) < n_flows

    links: list[dict[str, Any]] = []
    for i, lr in enumerate(links_raw):
        f = f"links[{i}]"
        ld = _canon("link", lr, f)
        for key in ("name", "rate_bps"):
            if key not in ld:
                raise _err(_join(f, key), "missing")
        name = ld["name"]
        if not isinstance(name, str) or not name.strip():
            raise _err(_join(f, "name"), "expected a non-empty name")
        if _known(name):
            raise _err(_join(f, "name"), f"{name!r} is already the name of a link of {names.get(name, 'the dumbbell')}")
        names[name] = f
        rate = _rate(ld["rate_bps"], _join(f, "rate_bps"))
        links.append({
            "name": name,
            "rate_bps": rate,
            "delay_s": _time(ld.get("delay_s", 0.0), _join(f, "delay_s"), allow_zero=True),
            "queue": _queue(ld.get("queue"), _join(f, "queue"), rate_bps=rate),
        })
        if ld.get("burst_bytes") is not None:
            links[-1]["burst_bytes"] = _bytes(ld["burst_bytes"], _join(f, "burst_bytes"))

    flows: list[dict[str, Any]] = []
    for i, fr in enumerate(flows_raw):
        f = f"flows[{i}]"
        fd = _canon("flow", fr, f)
        flow: dict[str, Any] = {}
        for key in ("path", "ack_path"):
            if key not in fd:
                raise _err(_join(f, key), "missing (a list of link names)")
            p = fd[key]
            if isinstance(p, str) or not isinstance(p, (list, tuple)) or not p:
                raise _err(_join(f, key), "expected a non-empty list of link names")
            if len(p) > 200:
                raise _err(_join(f, key), "at most 200 hops")
            for j, hop in enumerate(p):
                if not isinstance(hop, str) or not _known(hop):
                    raise _err(f"{f}.{key}[{j}]", f"no link named {hop!r}")
            flow[key] = list(p)
        flow["start_s"] = _time(fd.get("start_s", 0.0), _join(f, "start_s"), allow_zero=True)
        kind = fd.get("kind", "bulk")
        if kind not in _FLOW_KINDS:
            raise _err(_join(f, "kind"), f"unknown flow kind {kind!r} (known: {', '.join(_FLOW_KINDS)})")
        flow["kind"] = kind
        if "bytes" in fd and fd["bytes"] is not None:
            flow["bytes"] = int(_bounds.transfer_bytes(_bytes(fd["bytes"], _join(f, "bytes")), _join(f, "bytes")))
        flow["tcp"] = _tcp(fd.get("tcp"), _join(f, "tcp"))
        if fd.get("sobas") not in (None, False):
            flow["sobas"] = traffic.sobas(fd["sobas"], _join(f, "sobas"))
        flows.append(flow)
    n_flows += len(flows)
    for key, parse in (("short_flows", traffic.short_flows), ("users", traffic.users), ("udp", traffic.udp)):
        raw = d.get(key, [])
        if not isinstance(raw, (list, tuple)):
            raise _err(key, "expected a list of sources")
        out[key] = [parse(x, f"{key}[{i}]") for i, x in enumerate(raw)]
    mice = d.get("mice", [])
    if not isinstance(mice, (list, tuple)):
        raise _err("mice", "expected a list of sources")
    # TCP mice are closed-loop users with their own defaults: appended to users[]
    out["users"] += [traffic.mice(x, f"mice[{i}]") for i, x in enumerate(mice)]
    n_flows += sum(u["count"] for u in out["users"])
    if n_flows == 0 and not out["short_flows"] and not out["udp"]:
        raise _err("flows", "the scenario has no traffic (give flows, a dumbbell, short_flows, users, mice or udp)")
    out["links"] = links
    out["flows"] = flows

    bn = d.get("bottleneck")
    if bn is None:
        if dumbbell is None:
            raise _err("bottleneck", "missing (the name of the link whose measurements are reported)")
        bn = "bn"
    if not isinstance(bn, str) or not _known(bn):
        raise _err("bottleneck", f"no link named {bn!r}")
    out["bottleneck"] = bn
    out["measure"] = _measure(d.get("measure"), "measure", out["duration_s"])
    for i, idx in enumerate(out["measure"]["cwnd_trace_flows"]):
        if idx >= n_flows:
            raise _err(f"measure.cwnd_trace_flows[{i}]", f"flow {idx} does not exist (flows are 0..{n_flows - 1})")
    # Mirror of the engine's check (crates/sim scenario.rs): segment numbers are 32-bit, so no
    # flow may be able to send 2e9 segments (duration x slowest link on its path / packet size).
    rate = {lk["name"]: lk["rate_bps"] for lk in links}
    paths = [([rate.get(h) for h in fl["path"]], fl["tcp"]["packet_bytes"]) for fl in flows]
    if dumbbell is not None:
        db = out["dumbbell"]
        acc = db["access_rate_bps"] if db["access_rate_bps"] is not None else 10.0 * db["capacity_bps"]
        rate.update(bn=db["capacity_bps"], bnr=db["capacity_bps"])
        paths = [([acc, db["capacity_bps"]], db["tcp"]["packet_bytes"])] + \
            [([rate.get(h, acc) for h in fl["path"]], fl["tcp"]["packet_bytes"]) for fl in flows]
    if d.get("warm_buffer") is not None:
        out["warm_buffer"] = _warm_buffer(d["warm_buffer"], out)
    for rates, pkt in paths:
        segs = out["duration_s"] * min(r for r in rates if r is not None) / (8.0 * pkt)
        if segs > 2.0e9:
            raise _err("duration_s", f"a flow could send {segs:.3e} segments, beyond the engine's 32-bit "
                                     "sequence space; shorten the run")
    return out


# ----------------------------------------------------------------------------- public

class Scenario:
    """One simulation experiment, held in the engine's SI schema.

    Build it with :meth:`dumbbell`, :meth:`from_dict` or :meth:`from_file`; every constructor checks
    every field and raises :class:`ScenarioError` naming the first bad one.
    """

    __slots__ = ("_data",)

    #: how deeply a scenario's tables and lists may nest (a real one needs about 6)
    MAX_DEPTH = 32

    def __init__(self, data: Mapping[str, Any]):
        from bufsize._json import nesting_depth

        if nesting_depth(data, self.MAX_DEPTH) > self.MAX_DEPTH:
            raise ScenarioError(f"tables or lists nested more than {self.MAX_DEPTH} deep: not a scenario")
        self._data = _normalise(data)

    # -- constructors
    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "Scenario":
        """From a dict in the engine's schema (SI numbers, unit strings or aliases allowed)."""
        return cls(data)

    @classmethod
    def from_file(cls, path: str | Path) -> "Scenario":
        """From a ``.toml`` or ``.json`` file (unit strings allowed)."""
        p = Path(path)
        try:
            text = p.read_bytes()
        except OSError as exc:
            raise ScenarioError(f"cannot read {str(p)!r}: {exc.strerror or exc}", argument="SCENARIO_FILE") from None
        suffix = p.suffix.lower()
        if suffix == ".toml":
            import tomllib

            try:
                data = tomllib.loads(text.decode("utf-8"))
            except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
                raise ScenarioError(f"{p.name}: not valid TOML: {exc}") from None
            except RecursionError:
                raise ScenarioError(f"{p.name}: nested too deeply to be a scenario") from None
        elif suffix == ".json":
            try:
                data = json.loads(text)
            except (json.JSONDecodeError, UnicodeDecodeError) as exc:
                raise ScenarioError(f"{p.name}: not valid JSON: {exc}") from None
            except RecursionError:
                raise ScenarioError(f"{p.name}: nested too deeply to be a scenario") from None
        else:
            raise ScenarioError(f"{p.name}: unknown scenario format {suffix or '(none)'!r} (use .toml or .json)",
                                argument="SCENARIO_FILE")
        return cls(data)

    @classmethod
    def dumbbell(cls, *, capacity: Any, flows: Any, rtt: Any, buffer: Any,
                 duration: Any = TOP_DEFAULTS["duration_s"], warmup: Any = TOP_DEFAULTS["warmup_s"],
                 seed: int = TOP_DEFAULTS["seed"], packet_size: Any = None, header_size: Any = None,
                 access_capacity: Any = None, access_buffer: Any = None, bottleneck_delay: Any = None,
                 bottleneck_burst: Any = None, start: Any = None, cc: str | None = None,
                 sack: bool | None = None, prr: bool | None = None, initial_window: Any = None, min_rto: Any = None,
                 max_window: Any = None, delayed_ack: bool | None = None, ack_size: Any = None,
                 loss_detection: str | None = None, profile: str | None = None,
                 tcp: Mapping[str, Any] | None = None, mix: Any = None, ecn: bool | None = None,
                 host_jitter: Any = None,
                 queue_trace_interval: Any = None, cwnd_trace_flows: Iterable[int] = (),
                 cwnd_trace_interval: Any = None, cwnd_sum_interval: Any = None) -> "Scenario":
        """The common case: ``flows`` long-lived flows through one bottleneck of rate ``capacity``.

        ``rtt`` is a two-way propagation delay: ``"80ms"``, a range ``"20ms..140ms"`` (uniform), or a
        list (cycled over the flows). ``buffer``: ``"52pkt"``, ``"64KiB"``, ``"10ms"``, ``"0.5bdp"``,
        ``"bdp/sqrt(n)"``. ``access_capacity`` defaults (in the engine) to 10 x ``capacity``.
        ``start`` spreads the start times (default ``"0s..1s"``). ``bottleneck_burst`` (bytes) shapes
        the bottleneck with a token bucket of that depth as Linux's htb does (the kernel testbed's
        bottleneck) instead of serializing ideally at the rate. Unset TCP settings are the
        toolkit's (:mod:`bufsize.defaults`, as ``bufsize recommend`` assumes: 1500-byte packets,
        SACK and PRR on, as Linux); the papers' ns-2 runs used ``packet_size="1000B", sack=False``.
        A buffer in packets may be fractional (a size from ``recommend``): it is rounded to the
        nearest whole packet, halves up. ``tcp`` takes any further
        TCP field (``{"max_rto": "60s", "dupack_threshold": 3}``); the keyword arguments win.
        ``mix`` splits the flows into classes: ``{"reno": 42, "cubic": 30}`` or a list of
        ``{"flows": N, "tcp": {...}, "name": ...}``. Add other traffic with :meth:`replace`, e.g.
        ``sc.replace(short_flows=[{"load": 0.3, "size": "20pkt", "rtt": "80ms"}])``. ``ecn``
        makes the senders ECN-capable (RFC 3168; default: the profile's, off). ``host_jitter`` is the
        largest random delay of a packet at its host (``"10us"``; default: the profile's, 10 µs in
        linux, 1 µs in ns2, 0 in ns3; ``0`` gives the engine's deterministic timing).
        """
        # under the schema's names, so that a keyword replaces the same field given in ``tcp``
        tcp = {_ALIASES["tcp"].get(k, k): v for k, v in (tcp or {}).items()}
        for key, val in (("packet_size", packet_size), ("header_size", header_size), ("cc", cc), ("sack", sack),
                         ("prr", prr), ("initial_window", initial_window), ("min_rto", min_rto), ("max_window", max_window),
                         ("delayed_ack", delayed_ack), ("ack_size", ack_size), ("loss_detection", loss_detection),
                         ("ecn", ecn), ("host_jitter", host_jitter)):
            if val is not None:
                tcp[_ALIASES["tcp"].get(key, key)] = val
        db: dict[str, Any] = {"capacity": capacity, "flows": flows, "rtt": rtt, "buffer": buffer, "tcp": tcp}
        for key, val in (("access_capacity", access_capacity), ("access_queue", access_buffer),
                         ("bottleneck_delay", bottleneck_delay), ("bottleneck_burst", bottleneck_burst),
                         ("start", start), ("mix", mix)):
            if val is not None:
                db[key] = val
        measure: dict[str, Any] = {"cwnd_trace_flows": list(cwnd_trace_flows)}
        for key, val in (("queue_trace_interval", queue_trace_interval), ("cwnd_trace_interval", cwnd_trace_interval),
                         ("cwnd_sum_interval", cwnd_sum_interval)):
            if val is not None:
                measure[key] = val
        top: dict[str, Any] = {"seed": seed, "duration": duration, "warmup": warmup, "dumbbell": db, "measure": measure}
        if profile is not None:
            top["profile"] = profile
        return cls(top)

    # -- views
    def to_dict(self) -> dict[str, Any]:
        """The engine's SI form (a deep copy)."""
        return json.loads(json.dumps(self._data))

    def to_json(self, indent: int | None = None) -> str:
        return json.dumps(self._data, indent=indent)

    def replace(self, **changes: Any) -> "Scenario":
        """A copy with top-level fields replaced (``seed=2``, ``duration="30s"``, ``measure={...}``)."""
        data = self.to_dict()
        for key, value in changes.items():
            name = _ALIASES["top"].get(key, key)
            data.pop(name, None)
            data[name] = value
        return Scenario(data)

    @property
    def profile(self) -> str:
        """The name of the TCP profile the scenario's stacks start from (:mod:`bufsize.profiles`)."""
        return self._data["profile"]

    def tcp_tables(self) -> list[dict[str, Any]]:
        """Every TCP table of the scenario (dumbbell classes, flows, short flows, users), in order."""
        d = self._data
        out: list[dict[str, Any]] = []
        db = d.get("dumbbell")
        if db:
            out += [c["tcp"] for c in db.get("mix") or []] or [db["tcp"]]
        out += [f["tcp"] for f in d["flows"]]
        out += [s["tcp"] for key in ("short_flows", "users") for s in d.get(key, [])]
        return [dict(t) for t in out]

    @property
    def stack(self) -> str:
        """The stack that runs, in one line: the profile and every detail changed from it."""
        return _profiles.describe(self.tcp_tables(), self.profile)

    @property
    def seed(self) -> int:
        return self._data["seed"]

    @property
    def duration_s(self) -> float:
        return self._data["duration_s"]

    @property
    def warmup_s(self) -> float:
        return self._data["warmup_s"]

    @property
    def n_flows(self) -> int:
        db = self._data.get("dumbbell")
        users = sum(u["count"] for u in self._data.get("users", []))
        return (db["flows"] if db else 0) + len(self._data["flows"]) + users

    def _bottleneck_queue(self) -> dict[str, Any]:
        db = self._data.get("dumbbell")
        bn = self._data["bottleneck"]
        for link in self._data["links"]:
            if link["name"] == bn:
                return dict(link["queue"])
        # one of the dumbbell's own links: bn, bnr, acc{i}, racc{i}
        if bn == "bn":
            return dict(db["buffer"])
        return dict(db["access_queue"]) if bn.startswith("acc") else {}

    @property
    def buffer_limit(self) -> dict[str, int]:
        """The bottleneck queue limit (``{"limit_packets": N}``, ``{"limit_bytes": N}`` or ``{}``; a queue
        with a discipline always has one, see :attr:`buffer_discipline`)."""
        return {k: v for k, v in self._bottleneck_queue().items() if k != "discipline"}

    @property
    def buffer_discipline(self) -> dict[str, Any] | None:
        """The bottleneck's queue discipline (``{"name": "codel", ...}``), or None for drop-tail."""
        d = self._bottleneck_queue().get("discipline")
        return dict(d) if d else None

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Scenario) and self._data == other._data

    def __repr__(self) -> str:
        db = self._data.get("dumbbell")
        if db:
            return (f"Scenario.dumbbell(capacity={units.format_rate(db['capacity_bps'])!r}, flows={db['flows']}, "
                    f"buffer={db['buffer']}, duration={self.duration_s:g}s, seed={self.seed})")
        return f"Scenario(links={len(self._data['links'])}, flows={len(self._data['flows'])}, seed={self.seed})"
