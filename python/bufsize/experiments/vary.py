"""What a sweep varies: field paths of a scenario and the values they take.

A ``--vary`` specification is ``FIELD=VALUES``:

- ``FIELD`` is a scenario field path, dot-separated, with ``[i]`` for list items
  (``dumbbell.buffer``, ``dumbbell.tcp.cc``, ``links[0].queue``, ``duration``). Aliases of the
  scenario schema work (``capacity`` for ``capacity_bps``, ``rtt`` for ``rtt_s``), and in a dumbbell
  scenario the dumbbell's own fields and its TCP fields may be named alone: ``buffer``, ``flows``,
  ``rtt``, ``cc``, ``packet_size``.
- ``VALUES`` is a comma-separated list (``100,200,400``, ``newreno,cubic``, ``20ms,80ms``), a linear
  range ``A..B:N`` (``N`` evenly spaced values from ``A`` to ``B`` inclusive) or a logarithmic range
  ``A..B:N:log``. Range ends carry units (``0.05bdp..2bdp:12``, ``10ms..200ms:5``); a unit written
  on one end only applies to both. Whole-number ends without a unit (or in ``pkt``) give whole
  numbers (rounded; repeats dropped), so ``flows=1..1000:7:log`` stays valid.

The values are substituted into the scenario *as written* (before units and relative buffers are
resolved), so ``buffer = "bdp/sqrt(n)"`` in the file follows a varied ``flows``.
"""

from __future__ import annotations

import copy
import math
import re
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from bufsize.errors import BufsizeError

# Alias -> schema name and the field names, per section: the scenario schema's own tables (one
# source of truth), plus the traffic sources' sections.
from bufsize.scenario import _fields as _schema  # noqa: E402
from bufsize.scenario import traffic as _traffic  # noqa: E402

ALIASES: dict[str, dict[str, str]] = {**_schema._ALIASES, "short": _traffic._ALIASES["short"],
                                      "users": _traffic._ALIASES["users"], "udp": _traffic._ALIASES["udp"]}
FIELDS: dict[str, tuple[str, ...]] = {
    **{k: tuple(v) for k, v in _schema._FIELDS.items()},
    "top": tuple(f for f in _schema._FIELDS["top"] if f != "seed"),
    "short": _traffic._SHORT_FIELDS, "users": _traffic._USERS_FIELDS, "udp": _traffic._UDP_FIELDS,
}
# section of the value found under a key of a section (list sections end in "_list")
_CHILD = {("top", "dumbbell"): "dumbbell", ("top", "measure"): "measure", ("top", "links"): "link",
          ("top", "flows"): "flow", ("dumbbell", "tcp"): "tcp", ("flow", "tcp"): "tcp",
          ("top", "short_flows"): "short", ("top", "users"): "users", ("top", "mice"): "users",
          ("top", "udp"): "udp", ("short", "tcp"): "tcp", ("users", "tcp"): "tcp"}
_LISTS = ("link", "flow", "short", "users", "udp")

_NUM = re.compile(r"^\s*([+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)\s*(.*?)\s*$")
_SEG = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)((?:\[\d+\])*)$")


#: A range of more values than this is not listed (only counted): see :class:`_Range`.
LAZY_ABOVE = 1_000_000


class _Range(Sequence[Any]):
    """A range too long to list (``buffer=1..10:1000000000``): its length is the number of values
    asked for and an item is computed when read, so a sweep can count and cost it -- and refuse
    it -- without holding a billion values. (Repeats of rounded whole numbers are not dropped.)"""

    def __init__(self, lo: float, hi: float, n: int, log: bool, whole: bool, unit: str):
        self.lo, self.hi, self.n, self.log, self.whole, self.unit = lo, hi, n, log, whole, unit

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, k):  # type: ignore[override]
        if isinstance(k, slice):
            return [self[i] for i in range(*k.indices(self.n))]
        if k < 0:
            k += self.n
        if not 0 <= k < self.n:
            raise IndexError(k)
        f = k / (self.n - 1)
        x = math.exp(math.log(self.lo) + (math.log(self.hi) - math.log(self.lo)) * f) if self.log \
            else self.lo + (self.hi - self.lo) * f
        if self.whole:
            return int(math.floor(x + 0.5)) if not self.unit else f"{int(math.floor(x + 0.5))}{self.unit}"
        x = float(f"{x:.12g}")
        return x if not self.unit else f"{x:.12g}{self.unit}"


@dataclass(frozen=True)
class Axis:
    """One varied field: the name the user gave, the resolved schema path and the values."""

    name: str
    path: tuple[Any, ...]  # keys (str) and list indices (int), schema names
    values: Sequence[Any]  # as substituted into the scenario (numbers or unit strings); a tuple, or a
    # _Range too long to list
    unit: str = ""  # the unit of the numeric labels ("" when none or not numeric)

    def label(self, value: Any) -> Any:
        """The table's value for ``value``: its number (in :attr:`unit`) when it has one, else the text."""
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return value
        m = _NUM.match(str(value))
        if m and m.group(2) == self.unit:
            x = float(m.group(1))
            return int(x) if x.is_integer() and "." not in m.group(1) and "e" not in m.group(1).lower() else x
        return str(value)


def _err(message: str) -> BufsizeError:
    return BufsizeError(message, argument="--vary")


def _split_path(text: str) -> list[Any]:
    out: list[Any] = []
    for seg in text.split("."):
        m = _SEG.match(seg.strip())
        if not m:
            raise _err(f"{text!r}: not a field path (expected e.g. buffer, dumbbell.tcp.cc, links[0].queue)")
        out.append(m.group(1))
        out.extend(int(i) for i in re.findall(r"\[(\d+)\]", m.group(2)))
    return out


def resolve_path(raw: Mapping[str, Any], text: str) -> tuple[Any, ...]:
    """The schema path of the field ``text`` in the scenario ``raw`` (its input form).

    Raises :class:`BufsizeError` (``--vary``) naming the field when the scenario has no such field.
    """
    segs = _split_path(text)
    if segs and segs[0] == "seed":
        raise _err("seed: vary the seed with --seeds, not --vary")
    has_db = isinstance(raw.get("dumbbell"), Mapping)
    first = segs[0]
    top_names = set(FIELDS["top"]) | set(ALIASES["top"])
    # short names inside a dumbbell: buffer, flows, rtt, cc, packet_size ...
    if has_db and len(segs) == 1 and (first not in top_names or first == "flows"):
        db_names = set(FIELDS["dumbbell"]) | set(ALIASES["dumbbell"])
        tcp_names = set(FIELDS["tcp"]) | set(ALIASES["tcp"])
        if first in db_names:
            segs = ["dumbbell", first]
        elif first in tcp_names:
            segs = ["dumbbell", "tcp", first]
    section = "top"
    node: Any = raw
    path: list[Any] = []
    for i, seg in enumerate(segs):
        where = ".".join(str(p) for p in path) or "scenario"
        if isinstance(seg, int):
            if not section.endswith("_list"):
                raise _err(f"{text}: {where} is not a list")
            if not isinstance(node, list) or seg >= len(node):
                n = len(node) if isinstance(node, list) else 0
                raise _err(f"{text}: {where} has {n} item{'s' if n != 1 else ''}, no [{seg}]")
            node = node[seg]
            section = section[: -len("_list")]
            path.append(seg)
            continue
        if section.endswith("_list"):
            raise _err(f"{text}: {where} is a list; give an index, e.g. {where}[0]")
        name = ALIASES.get(section, {}).get(seg, seg)
        if name not in FIELDS[section]:
            known = ", ".join(FIELDS[section])
            if section == "top" and has_db:
                known = "seed, " + known + "; in the dumbbell: " + ", ".join(
                    [*ALIASES["dumbbell"], "flows", "buffer", "access_queue", "cc", "packet_size", "sack", "..."])
            raise _err(f"{text}: unknown field {seg!r} in {where} (known: {known})")
        child = _CHILD.get((section, name))
        if child in ("dumbbell", "measure", "tcp"):
            if node is not None and isinstance(node, Mapping):
                node = _get(node, section, name)
            section = child
        elif child in _LISTS:
            node = _get(node, section, name) if isinstance(node, Mapping) else None
            section = child + "_list"
        else:
            if i != len(segs) - 1:
                raise _err(f"{text}: {name} is a value, it has no field {segs[i + 1]!r}")
            section = "value"
        path.append(name)
        if node is None and child in ("dumbbell",):
            raise _err(f"{text}: the scenario has no dumbbell")
    if section in ("dumbbell", "measure", "tcp", *_LISTS) or section.endswith("_list"):
        raise _err(f"{text}: is a table or list; name one of its fields")
    return tuple(path)


def _get(node: Mapping[str, Any], section: str, name: str) -> Any:
    for key, value in node.items():
        if ALIASES.get(section, {}).get(key, key) == name:
            return value
    return None


def set_path(raw: Mapping[str, Any], path: Sequence[Any], value: Any) -> dict[str, Any]:
    """A deep copy of ``raw`` with the field at ``path`` (schema names) set to ``value``.

    Keys written under an alias in ``raw`` are replaced, so the result never holds a field twice.
    """
    out = copy.deepcopy(dict(raw))
    node: Any = out
    section = "top"
    for i, seg in enumerate(path):
        last = i == len(path) - 1
        if isinstance(seg, int):
            node = node[seg]
            section = "link" if section == "links_list" else "flow"
            continue
        key = next((k for k in node if ALIASES.get(section, {}).get(k, k) == seg), None)
        if last:
            if key is not None and key != seg:
                del node[key]
            node[seg] = value
            return out
        if key is None:
            node[seg] = {}
            key = seg
        elif key != seg:
            node[seg] = node.pop(key)
            key = seg
        node = node[key]
        child = _CHILD.get((section, seg))
        section = child + "s_list" if child in ("link", "flow") else (child or section)
    return out


def _number_unit(text: str, spec: str) -> tuple[float, str, str]:
    m = _NUM.match(text)
    if not m:
        raise _err(f"{spec}: range end {text.strip()!r} is not a number (with an optional unit)")
    return float(m.group(1)), m.group(2), m.group(1)


def parse_values(spec: str, text: str) -> tuple[Sequence[Any], str]:
    """Values of one ``--vary`` right-hand side, and the unit of their numeric labels (a range of
    more than :data:`LAZY_ABOVE` values comes back as a :class:`_Range`, counted but not listed)."""
    text = text.strip()
    if not text:
        raise _err(f"{spec}: no values (give a list a,b,c or a range a..b:n)")
    if ".." in text and ":" in text.rsplit("..", 1)[1]:
        lo_s, rest = text.split("..", 1)
        parts = rest.split(":")
        if len(parts) not in (2, 3) or (len(parts) == 3 and parts[2].strip().lower() not in ("log", "lin")):
            raise _err(f"{spec}: expected a range A..B:N or A..B:N:log")
        hi_s, n_s = parts[0], parts[1]
        log = len(parts) == 3 and parts[2].strip().lower() == "log"
        try:
            n = int(n_s.strip())
        except ValueError:
            raise _err(f"{spec}: the number of values {n_s.strip()!r} is not a whole number") from None
        lo, u_lo, lo_txt = _number_unit(lo_s, spec)
        hi, u_hi, hi_txt = _number_unit(hi_s, spec)
        if u_lo and u_hi and u_lo != u_hi:
            raise _err(f"{spec}: range ends in different units ({u_lo!r}, {u_hi!r})")
        unit = u_lo or u_hi
        if n < 1:
            raise _err(f"{spec}: empty range ({n} values)")
        if n == 1 and lo != hi:
            raise _err(f"{spec}: one value cannot span {lo_txt}..{hi_txt}; give N >= 2")
        if log and (lo <= 0 or hi <= 0):
            raise _err(f"{spec}: a logarithmic range needs positive ends")
        whole = unit in ("", "pkt", "pkts", "packets") and lo.is_integer() and hi.is_integer() \
            and "." not in lo_txt + hi_txt and "e" not in (lo_txt + hi_txt).lower()
        if n > LAZY_ABOVE:  # counted, never listed: no sweep holds that many runs (it is refused)
            return _Range(lo, hi, n, log, whole, unit), unit
        if n == 1:
            xs = [lo]
        elif log:
            xs = [math.exp(math.log(lo) + (math.log(hi) - math.log(lo)) * k / (n - 1)) for k in range(n)]
        else:
            xs = [lo + (hi - lo) * k / (n - 1) for k in range(n)]
        if whole:
            seen: list[int] = []
            for x in xs:
                v = int(math.floor(x + 0.5))
                if v not in seen:
                    seen.append(v)
            xs = seen
        else:
            xs = [float(f"{x:.12g}") for x in xs]
        values: list[Any] = [(x if not unit else f"{x:.12g}{unit}") for x in xs]
        return values, unit
    items = [p.strip() for p in text.split(",")]
    if any(not p for p in items):
        raise _err(f"{spec}: empty item in the list {text!r}")
    values = []
    units_seen = set()
    for p in items:
        m = _NUM.match(p)
        if m and not m.group(2):
            x = float(m.group(1))
            values.append(int(x) if x.is_integer() and re.fullmatch(r"[+-]?\d+", m.group(1)) else x)
            units_seen.add("")
        else:
            values.append(p)
            units_seen.add(m.group(2) if m else None)
    unit = units_seen.pop() if len(units_seen) == 1 and None not in units_seen else ""
    if len(set(map(str, values))) != len(values):
        raise _err(f"{spec}: a value is listed twice")
    return values, unit or ""


def parse_vary(raw: Mapping[str, Any], vary: Mapping[str, Any] | Sequence[str]) -> list[Axis]:
    """Axes from ``{"buffer": "0.1bdp..1bdp:5", "flows": [1, 2]}`` or ``["buffer=...", ...]``."""
    items: list[tuple[str, Any]] = []
    if isinstance(vary, Mapping):
        items = list(vary.items())
    else:
        for spec in vary:
            if "=" not in spec:
                raise _err(f"{spec!r}: expected FIELD=VALUES (e.g. buffer=0.1bdp..1bdp:5)")
            name, _, vals = spec.partition("=")
            items.append((name.strip(), vals))
    axes: list[Axis] = []
    seen: dict[tuple[Any, ...], str] = {}
    for name, vals in items:
        path = resolve_path(raw, name)
        if path in seen:
            raise _err(f"{name}: the same field as {seen[path]} is varied twice")
        seen[path] = name
        spec = f"{name}={vals}" if isinstance(vals, str) else name
        if isinstance(vals, str):
            values, unit = parse_values(spec, vals)
        else:
            values = list(vals) if isinstance(vals, (list, tuple)) else [vals]
            if not values:
                raise _err(f"{name}: no values")
            us = {(_NUM.match(str(v)).group(2) if _NUM.match(str(v)) else None) for v in values}
            unit = us.pop() if len(us) == 1 and None not in us else ""
        axes.append(Axis(name=name, path=path, values=values if isinstance(values, _Range) else tuple(values),
                         unit=unit or ""))
    return axes
