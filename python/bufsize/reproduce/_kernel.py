"""The kernel-testbed route of the papers' router-testbed figures.

FIGURES.md marks 000's Riverstone campaign (Figs 2–10) as "testbed": the simulator reproduces them at
the paper's scale (1 Gb/s, thousands of users), and, where this machine allows, the same experiment
also runs on real Linux TCP in the kernel testbed (:mod:`bufsize.testbed`: namespaces, an htb
bottleneck with a drop-tail FIFO, the delay element), scaled down to what two shared vCPUs sustain.
The figures then show both, and their kernel checks carry the scale in their claim.

``--testbed`` decides: ``auto`` runs the kernel part where :func:`bufsize.reproduce._realpath.unavailable`
finds nothing missing (root, tools, TUN, the delay element) and otherwise records its checks as *not
measured* with the reason; ``kernel`` requires it (refused before anything runs when it cannot);
``off`` leaves it out. Kernel results are measurements of real TCP and vary from run to run, so they go
to ``kernel.csv`` beside the deterministic ``data.csv``.

Every run is judged by the testbed's fidelity checks (steal, CPU, delay-element lateness, queue
inventory); a point that fails them twice keeps its numbers with the reasons and stays out of the
checks. Accepted runs are kept in ``DIR/.sweeps/kernel_NAME`` (the experiments layer's point store),
so an interrupted figure resumes and the figures that share a campaign run it once.
"""

from __future__ import annotations

import math
import platform
from pathlib import Path
from typing import Any, Callable, Sequence

from bufsize.errors import BufsizeError

MODES = ("auto", "kernel", "off")
#: attempts per point before it is given up (a run on a loaded machine is refused, then retried)
ATTEMPTS = 2

_AVAILABLE: dict[str, str | None] = {}
_CACHE: dict[str, dict[str, Any]] = {}


def _unavailable() -> str | None:
    if "why" not in _AVAILABLE:
        from bufsize.reproduce._realpath import unavailable

        _AVAILABLE["why"] = unavailable()
    return _AVAILABLE["why"]


def check_mode(mode: str) -> None:
    """One line and exit 2 for an unknown mode, or for ``kernel`` where the testbed cannot run."""
    if mode not in MODES:
        raise BufsizeError(f"expected one of {', '.join(MODES)}, got {mode!r}", argument="--testbed")
    if mode == "kernel":
        why = _unavailable()
        if why is not None:
            raise BufsizeError(f"the kernel testbed cannot run here: {why}", argument="--testbed")


#: Environment variable naming an earlier output folder of ``bufsize reproduce`` whose committed
#: ``ID/kernel.csv`` tables stand in for the kernel-testbed runs (see :func:`replay_rows`).
REPLAY_ENV = "BUFSIZE_REPRODUCE_KERNEL_REPLAY"


def replay_rows(pattern: str) -> tuple[list[dict[str, Any]], str] | None:
    """The rows of the earlier kernel tables ``DIR/<pattern>/kernel.csv`` when ``$BUFSIZE_REPRODUCE_KERNEL_REPLAY``
    names DIR, with a sentence saying where they come from; None otherwise.

    This re-judges recorded kernel-testbed measurements under the current checks without running the
    testbed (e.g. on a machine too busy for its fidelity checks). The numbers are the recorded runs', not
    new measurements, and the figure's notes say so."""
    import csv
    import os

    d = os.environ.get(REPLAY_ENV)
    if not d:
        return None
    files = sorted(Path(d).glob(f"{pattern}/kernel.csv"))
    if not files:
        raise BufsizeError(f"no {pattern}/kernel.csv under {d!r} to replay", argument=REPLAY_ENV)
    rows, seen = [], set()
    for f in files:
        with open(f, newline="", encoding="utf-8") as fh:
            for r in csv.DictReader(fh):
                key = tuple(sorted(r.items()))
                if key not in seen:
                    seen.add(key)
                    rows.append(r)
    ids = sorted({r.get("run_id", "") for r in rows if r.get("run_id")})
    text = (f"Kernel-testbed part replayed from the recorded runs in {', '.join(str(f) for f in files)} (run ids "
            f"{', '.join(ids)}): not re-measured in this run; the recorded numbers are re-judged by today's checks.")
    return rows, text


def replay_frame(pattern: str, keys: Sequence[str], wanted: Sequence[tuple]):
    """A kernel table rebuilt from recorded ``kernel.csv`` rows (see :func:`replay_rows`): one row per
    ``wanted`` value of the ``keys`` columns, in that order, or None when no replay is asked for. Its
    ``attrs["records"]`` carry the recorded verdicts and the replay's source, which :func:`accepted_text`
    puts in the figure's notes."""
    import pandas as pd

    got = replay_rows(pattern)
    if got is None:
        return None
    rows, text = got
    df = pd.DataFrame(rows)
    df = df[[all(k in r and r[k] not in (None, "") for k in keys) for r in rows]]
    out = []
    for w in wanted:
        m = df[[all(float(df.at[i, k]) == float(v) for k, v in zip(keys, w)) for i in df.index]]
        if len(m) != 1:
            raise BufsizeError(f"the replayed kernel tables have {len(m)} rows for {dict(zip(keys, w))} (need exactly one)",
                               argument="kernel replay")
        out.append(m.iloc[0])
    t = pd.DataFrame(out).reset_index(drop=True)
    for c in t.columns:
        if c in ("accepted",):
            t[c] = t[c].astype(str).str.strip().str.lower() == "true"
        elif c not in ("run_id", "reasons", "setting", "rule"):
            t[c] = pd.to_numeric(t[c], errors="coerce")
    t["reasons"] = t["reasons"].fillna("").astype(str) if "reasons" in t.columns else ""
    t.attrs["records"] = [{"accepted": bool(a), "reasons": [x for x in str(r).split("; ") if x], "replayed": text}
                          for a, r in zip(t["accepted"], t["reasons"])]
    return t


def skip_reason(ctx) -> str | None:
    """None when this run puts the router-testbed figures on the kernel testbed too, else why not."""
    mode = getattr(ctx, "testbed", "auto")
    if mode == "off":
        return "--testbed off (simulator only)"
    return _unavailable()


def not_measured(claims: Sequence[str], reason: str) -> list:
    """The kernel checks of a figure whose kernel part did not run: failed, with the reason."""
    from bufsize.reproduce._realpath import not_measured as nm

    return nm(list(claims), reason)


def _store(ctx, name: str):
    from bufsize.experiments import store as st

    d = getattr(ctx, "store_dir", None)
    if d is None:
        return None
    s = st.Store(Path(d).parent / f"kernel_{name}")
    s.prepare({"written_by": f"bufsize reproduce (kernel-testbed runs of {name})"})
    return s


def run_points(ctx, name: str, configs: Sequence[Any], reduce: Callable[[Any, Any], dict[str, Any]],
               version: int = 1) -> list[dict[str, Any]]:
    """One record per :class:`~bufsize.testbed.config.TestbedConfig`: ``{"key", "accepted", "reasons",
    "run_id", "reduced"}`` from memory, the store, or a run on the kernel testbed (``ATTEMPTS`` tries).

    ``reduce(attempt, config)`` turns an attempt into the plain numbers the figures need (stored as they are);
    ``version`` changes when it does, so older stored records are measured again.
    """
    from bufsize.experiments import store as st
    from bufsize.testbed import runner

    platform_id = f"linux {platform.release()}, reduction {version}"
    mem = _CACHE.setdefault(name, {})
    store = _store(ctx, name)
    out = []
    for i, cfg in enumerate(configs):
        key = st.point_key(cfg.to_dict(), cfg.seed, platform_id)
        rec = mem.get(key)
        if rec is None and store is not None:
            rec = store.load(key)
        if rec is None:
            ctx.say(f"      kernel testbed ({name}): run {i + 1}/{len(configs)}, {cfg.rate_bps / 1e6:g} Mb/s, "
                    f"B = {cfg.buffer_packets} packets, {len(cfg.flows)} flows, {len(cfg.users)} users, "
                    f"{cfg.duration_s:g} s")
            pt = runner.run(cfg, repeats=1, attempts=ATTEMPTS, log=lambda s: ctx.say("        " + s))
            att = pt.runs[0] if pt.runs else (pt.failed[-1] if pt.failed else None)
            rec = {"key": key, "status": "ok", "accepted": bool(pt.runs), "reasons": list(pt.reasons),
                   "run_id": att.run_id if att else "",
                   "reduced": reduce(att, cfg) if att is not None and att.summary else {}}
            if rec["accepted"] and store is not None:
                store.save(rec)
        mem[key] = rec
        out.append(rec)
    return out


def accepted_text(records: Sequence[dict[str, Any]]) -> str:
    """'n of m runs accepted' with the reasons of the refused ones (for a figure's notes)."""
    bad = [r for r in records if not r["accepted"]]
    replayed = sorted({r["replayed"] for r in records if r.get("replayed")})
    text = " ".join(replayed) + (" " if replayed else "")
    text += f"{len(records) - len(bad)} of {len(records)} kernel-testbed runs passed the fidelity checks"
    if bad:
        text += "; refused (kept in kernel.csv, left out of the checks): " + "; ".join(
            "; ".join(r["reasons"])[:300] for r in bad)
    return text + "."


def nan_if_missing(d: dict[str, Any], k: str) -> float:
    v = d.get(k)
    return float(v) if isinstance(v, (int, float)) else math.nan
