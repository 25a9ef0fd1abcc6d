"""Reading ``tc -s -j qdisc show`` and ``ip -s -j link show``: pure functions, no root needed.

The testbed's queue inventory is built from these: every qdisc on every interface of the run,
with its kind, limit and counters, classified as the bottleneck, as harmless (``noqueue``: a
device without a queue), or as *a second queue* that could hold packets besides the bottleneck.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Iterable

#: qdiscs that never hold packets.
NON_QUEUEING = frozenset({"noqueue"})


@dataclass(frozen=True)
class Qdisc:
    namespace: str
    dev: str
    kind: str
    handle: str
    parent: str | None  # None for the root qdisc
    limit: int | None  # packets (pfifo) or bytes (bfifo), when the qdisc states one
    bytes: int
    packets: int
    drops: int
    backlog_bytes: int
    qlen: int
    overlimits: int = 0
    requeues: int = 0
    options: dict[str, Any] = field(default_factory=dict, compare=False)


def parse_qdiscs(text: str, namespace: str = "") -> list[Qdisc]:
    """Parse the JSON of ``tc -s -j qdisc show`` (one namespace) into :class:`Qdisc` records.

    Raises ``ValueError`` when the text is not the expected JSON list.
    """
    try:
        data = json.loads(text) if text.strip() else []
    except json.JSONDecodeError as exc:
        raise ValueError(f"tc output is not JSON: {exc}") from None
    if not isinstance(data, list):
        raise ValueError("tc output is not a JSON list")
    out = []
    for q in data:
        if not isinstance(q, dict) or "kind" not in q:
            raise ValueError(f"unexpected tc record: {q!r}")
        opts = q.get("options") or {}
        limit = opts.get("limit")
        out.append(Qdisc(
            namespace=namespace,
            dev=str(q.get("dev", "")),
            kind=str(q["kind"]),
            handle=str(q.get("handle", "")),
            parent=None if q.get("root") else (str(q["parent"]) if "parent" in q else None),
            limit=int(limit) if isinstance(limit, (int, float)) else None,
            bytes=int(q.get("bytes", 0)),
            packets=int(q.get("packets", 0)),
            drops=int(q.get("drops", 0)),
            backlog_bytes=int(q.get("backlog", 0)),
            qlen=int(q.get("qlen", 0)),
            overlimits=int(q.get("overlimits", 0)),
            requeues=int(q.get("requeues", 0)),
            options=dict(opts),
        ))
    return out


@dataclass(frozen=True)
class LinkCounters:
    namespace: str
    dev: str
    txqlen: int
    qdisc: str
    rx_packets: int
    tx_packets: int
    rx_dropped: int
    tx_dropped: int


def parse_links(text: str, namespace: str = "") -> list[LinkCounters]:
    """Parse ``ip -s -j link show`` into per-device counters (drops are what matter here)."""
    try:
        data = json.loads(text) if text.strip() else []
    except json.JSONDecodeError as exc:
        raise ValueError(f"ip output is not JSON: {exc}") from None
    out = []
    for d in data:
        st = d.get("stats64") or d.get("stats") or {}
        rx, tx = st.get("rx", {}), st.get("tx", {})
        out.append(LinkCounters(
            namespace=namespace, dev=str(d.get("ifname", "")), txqlen=int(d.get("txqlen", 0)),
            qdisc=str(d.get("qdisc", "")),
            rx_packets=int(rx.get("packets", 0)), tx_packets=int(tx.get("packets", 0)),
            rx_dropped=int(rx.get("dropped", 0)), tx_dropped=int(tx.get("dropped", 0)),
        ))
    return out


def find_bottleneck(qdiscs: Iterable[Qdisc], dev: str, handle: str = "10:") -> Qdisc | None:
    """The FIFO child (``handle``) on the bottleneck device, or None."""
    for q in qdiscs:
        if q.dev == dev and q.handle == handle:
            return q
    return None


def second_queues(qdiscs: Iterable[Qdisc], bottleneck_dev: str, *, ignore_devs: Iterable[str] = ("lo",)) -> list[str]:
    """Reasons, one per qdisc that could hold packets besides the bottleneck (empty list: clean).

    On the bottleneck device exactly one shaping root (``htb``/``tbf``) with one FIFO child
    (``pfifo``/``bfifo``) is allowed; on every other device only ``noqueue``.
    """
    ignore = set(ignore_devs)
    reasons = []
    for q in qdiscs:
        if q.dev in ignore or q.kind in NON_QUEUEING:
            continue
        where = f"{q.kind} {q.handle} on {q.namespace + ':' if q.namespace else ''}{q.dev}"
        if q.dev == bottleneck_dev:
            if q.parent is None and q.kind in ("htb", "tbf"):
                continue
            if q.parent is not None and q.kind in ("pfifo", "bfifo") and q.handle == "10:":
                continue
            reasons.append(f"unexpected qdisc {where} beside the bottleneck")
        else:
            reasons.append(f"second queue: {where} can hold packets (only the bottleneck may)")
    return reasons
