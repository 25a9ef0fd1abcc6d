"""Reproduce the figures and tables of the five buffer-sizing papers, one module per item.

``bufsize reproduce --list`` shows every figure and table of FIGURES.md with its kind and its
``--quick`` cost; ``bufsize reproduce ID... | all`` runs them and writes, per item, DIR/ID/ with
``figure.png``/``.svg``, ``data.csv``, ``checks.json`` and ``inputs.json``, and DIR/REPORT.md.

Python::

    from bufsize import reproduce
    reproduce.list_figures()                 # [(FigureSpec, status, text), ...]
    reproduce.run(["fig_003_04"], out="repro", mode="quick")
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from functools import lru_cache
from types import ModuleType

from bufsize.errors import BufsizeError
from bufsize.reproduce._core import AVAILABLE, KINDS, TAG_MEANING, Check, Context, FigureOutput, FigureSpec

__all__ = ["AVAILABLE", "KINDS", "Check", "Context", "FigureOutput", "FigureSpec", "modules", "get",
           "resolve", "status", "list_figures", "run"]

_MODULE_RE = re.compile(r"^(fig|table)_\d{3}_[0-9_]+$")


@lru_cache(maxsize=1)
def modules() -> dict[str, ModuleType]:
    """Every figure/table module, by id, in the papers' order."""
    found = {}
    for info in pkgutil.iter_modules(__path__):
        if _MODULE_RE.match(info.name):
            mod = importlib.import_module(f"{__name__}.{info.name}")
            found[mod.SPEC.id] = mod

    def order(item):
        spec = item[1].SPEC
        m = re.match(r"(\d{3})-(Fig|Tab(?:le)?)(.*)", spec.paper_id)
        paper, kind, rest = m.groups()
        num = re.match(r"\d+", rest)
        return (paper, kind != "Fig", int(num.group()) if num else _roman(rest))

    return dict(sorted(found.items(), key=order))


def _roman(text: str) -> int:
    return {"I": 1, "II": 2, "III": 3, "IV": 4}.get(text, 99)


def _norm(text: str) -> str:
    return re.sub(r"[^0-9a-z§]", "", text.lower())


def get(figure_id: str) -> ModuleType:
    """The module of one figure, by module id (``fig_004_07``) or FIGURES.md id (``004-Fig7``)."""
    mods = modules()
    if figure_id in mods:
        return mods[figure_id]
    key = _norm(figure_id)
    for mod in mods.values():
        if key in (_norm(mod.SPEC.id), _norm(mod.SPEC.paper_id)):
            return mod
    raise BufsizeError(f"unknown figure {figure_id!r} (see `bufsize reproduce --list`; ids look like "
                       f"fig_004_07 or 004-Fig7)", argument="ID")


def resolve(ids: list[str] | tuple[str, ...]) -> list[ModuleType]:
    """Modules for the ids given (``all`` = every reproducible one), in the papers' order, no repeats."""
    if not ids:
        raise BufsizeError("give one or more figure ids, or all (see --list)", argument="ID")
    if any(i.lower() == "all" for i in ids):
        return [m for m in modules().values() if status(m)[0] == "ready"]
    chosen = {get(i).SPEC.id for i in ids}
    return [m for fid, m in modules().items() if fid in chosen]


def status(mod: ModuleType) -> tuple[str, str]:
    """(code, text): ``ready``, ``illustration``, ``config``, ``blocked`` (needs missing) or ``todo``."""
    spec: FigureSpec = mod.SPEC
    if spec.kind == "illustration" and not hasattr(mod, "run"):
        return "illustration", "illustration (schematic, no data)"
    if spec.kind == "config" and not hasattr(mod, "run"):
        return "config", "config table (states a setup, no data)"
    if hasattr(mod, "run"):
        return "ready", "reproducible" + (f" ({spec.note})" if spec.note else "")
    missing = spec.missing
    if missing:
        parts = [f"{t} ({TAG_MEANING[t]})" if t in TAG_MEANING else t for t in missing]
        text = "not yet reproducible: needs " + ", ".join(parts)
    else:
        text = "not yet reproducible: not implemented in bufsize reproduce yet"
    if spec.note:
        text += f"; {spec.note}"
    return ("blocked" if missing else "todo"), text


def list_figures() -> list[tuple[FigureSpec, str, str]]:
    return [(m.SPEC, *status(m)) for m in modules().values()]


def run(ids, *, out, mode: str = "quick", workers: int = 1, scheduler: str | None = None,
        progress=None, testbed: str = "auto", max_time: float | None = 24 * 3600.0):
    """Run figures and write DIR/ID/... and DIR/REPORT.md; returns the per-figure records.

    ``max_time``: each batch of simulations a figure starts is costed first and refused when it is
    estimated to take longer than this many seconds (None: no limit) or cannot fit in memory."""
    from bufsize.reproduce._runner import run_figures

    return run_figures(resolve(list(ids)), out=out, mode=mode, workers=workers, scheduler=scheduler,
                       progress=progress, testbed=testbed, max_time=max_time)
