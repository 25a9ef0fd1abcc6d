"""Run figure modules and write their outputs and the report.

Layout of ``--out DIR``::

    DIR/.bufsize-reproduce        marks the directory as ours (so a later run may add to it)
    DIR/REPORT.md                 every figure: picture, checks, deviations; the rest with their status
    DIR/ID/figure.png, figure.svg
    DIR/ID/data.csv               the plotted data
    DIR/ID/checks.json            [{"claim", "paper", "ours", "tolerance", "pass", "kind", "rule"}, ...]
    DIR/ID/inputs.json            model parameters, or the scenarios and seeds that ran
    DIR/ID/meta.json              id, title, kind, mode, wall time, deviations, notes

Each figure is written to ``DIR/.tmp-ID`` and renamed into place only when complete, so an
interrupted run never leaves half a figure; the report is written the same way.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
from pathlib import Path
from types import ModuleType

from bufsize.errors import BufsizeError
from bufsize.reproduce._core import (COUNTED_KINDS, CHECK_KINDS, MISS_CAUSES, Context, FigureOutput,
                                     clear_of_threshold, default_kind, fmt_number, margin, seed_interval)
from bufsize.reproduce._setup import SOURCE_LABEL, setup_of, source_counts

MARKER = ".bufsize-reproduce"
SWEEPS = ".sweeps"   # DIR/.sweeps/ID: the finished runs of a figure in progress (removed when it is written)


def _json(obj) -> str:
    def default(o):
        if hasattr(o, "to_dict"):
            return o.to_dict()
        if hasattr(o, "tolist"):
            return o.tolist()
        return str(o)

    def clean(o):
        if isinstance(o, dict):
            return {str(k): clean(v) for k, v in o.items()}
        if isinstance(o, (list, tuple)):
            return [clean(v) for v in o]
        if isinstance(o, float):
            return fmt_number(o)
        return o

    return json.dumps(clean(json.loads(json.dumps(obj, default=default))), indent=2, ensure_ascii=False) + "\n"


def check_out_dir(out: str | os.PathLike, known_ids: set[str]) -> Path:
    """Refuse a directory that exists and holds anything that is not ours (nothing is touched).

    Ours: the marker, REPORT.md, figure folders, temporary folders, and nested output folders of
    another ``bufsize reproduce`` run (e.g. a ``full/`` report kept beside a quick one).
    """
    from bufsize.experiments.store import check_own_dir

    path = Path(out)
    entries = check_own_dir(path, MARKER, "bufsize reproduce")
    if entries:
        foreign = [e for e in entries if e not in known_ids and e not in (MARKER, "REPORT.md", SWEEPS)
                   and not e.startswith((".tmp-", ".old-")) and not (path / e / MARKER).exists()]
        if foreign:
            raise BufsizeError(f"{str(path)!r} holds files bufsize reproduce did not write ({', '.join(foreign[:3])}); "
                               f"give a new or empty directory", argument="--out")
    return path


def check_scheduler(address: str | None):
    """Connect to a Dask scheduler (or refuse with one line); returns a client or None."""
    if address is None:
        return None
    try:
        from dask.distributed import Client
    except ImportError:
        raise BufsizeError("needs dask.distributed (pip install 'bufsize[cluster]')", argument="--scheduler") from None
    try:
        return Client(address, timeout=5)
    except Exception as exc:  # noqa: BLE001 - any failure to connect is the user's address
        text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise BufsizeError(f"cannot reach the Dask scheduler at {address!r}: {text}", argument="--scheduler") from None


def _save_figure(fig, directory: Path) -> None:
    import matplotlib

    matplotlib.rcParams["svg.hashsalt"] = "bufsize-reproduce"
    fig.savefig(directory / "figure.png", dpi=90, metadata={"Software": None})
    fig.savefig(directory / "figure.svg", metadata={"Date": None, "Creator": None})
    import matplotlib.pyplot as plt

    plt.close(fig)


def _write_figure(mod: ModuleType, output: FigureOutput, out: Path, meta: dict) -> Path:
    spec = mod.SPEC
    tmp = out / f".tmp-{spec.id}"
    if tmp.exists():
        shutil.rmtree(tmp)
    tmp.mkdir(parents=True)
    output.data.to_csv(tmp / "data.csv", index=False, float_format="%.10g")
    for name, df in output.extra_tables.items():
        df.to_csv(tmp / f"{name}.csv", index=False, float_format="%.10g")
    (tmp / "checks.json").write_text(_json([c.to_dict() for c in output.checks]), encoding="utf-8")
    (tmp / "inputs.json").write_text(_json(output.inputs), encoding="utf-8")
    (tmp / "meta.json").write_text(_json(meta), encoding="utf-8")
    _save_figure(output.figure, tmp)
    final = out / spec.id
    old = out / f".old-{spec.id}"
    if final.exists():
        if old.exists():
            shutil.rmtree(old)
        os.replace(final, old)
    os.replace(tmp, final)
    if old.exists():
        shutil.rmtree(old)
    return final


def run_figures(mods: list[ModuleType], *, out, mode: str = "quick", workers: int = 1,
                scheduler: str | None = None, progress=None, testbed: str = "auto",
                max_time: float | None = 24 * 3600.0) -> list[dict]:
    from bufsize import reproduce

    if mode not in ("quick", "full"):
        raise BufsizeError(f"unknown mode {mode!r} (quick or full)", argument="--mode")
    if workers < 1:
        raise BufsizeError(f"must be >= 1, got {workers}", argument="--workers")
    for mod in mods:
        if not hasattr(mod, "run"):
            raise BufsizeError(f"{mod.SPEC.id} ({mod.SPEC.paper_id}) cannot run: {reproduce.status(mod)[1]}",
                               argument="ID")
    from bufsize.reproduce import _kernel

    _kernel.check_mode(testbed)   # --testbed kernel where the testbed cannot run: refused before anything
    out_path = check_out_dir(out, set(reproduce.modules()))
    client = check_scheduler(scheduler)
    say = progress if progress is not None else (lambda text: print(text, file=sys.stderr))
    ctx = Context(mode=mode, workers=workers, scheduler=scheduler, progress=say, client=client, testbed=testbed,
                  max_time=max_time)
    out_path.mkdir(parents=True, exist_ok=True)
    (out_path / MARKER).write_text("written by bufsize reproduce\n", encoding="utf-8")
    records = []
    try:
        for i, mod in enumerate(mods, 1):
            spec = mod.SPEC
            say(f"[{i}/{len(mods)}] {spec.id} ({spec.paper_id}) {spec.title[:60]} ...")
            t0 = time.perf_counter()
            ctx.store_dir = out_path / SWEEPS / spec.id
            output: FigureOutput = mod.run(ctx)
            wall = time.perf_counter() - t0
            for c in output.checks:
                if c.kind is None:
                    c.kind = default_kind(spec)
            checks = [c.to_dict() for c in output.checks]
            meta = {"id": spec.id, "paper_id": spec.paper_id, "title": spec.title, "kind": spec.kind,
                    "kind_detail": spec.kind_detail, "mode": mode, "wall_seconds": round(wall, 2),
                    "checks_passed": sum(c["pass"] for c in checks), "checks_total": len(checks),
                    "checks_by_kind": kind_counts(checks),
                    "deviations": output.deviations, "notes": output.notes}
            _write_figure(mod, output, out_path, meta)
            if ctx.store_dir.exists():
                shutil.rmtree(ctx.store_dir)
            say(f"      done in {wall:.1f} s: {meta['checks_passed']}/{meta['checks_total']} checks pass")
            records.append(meta)
    finally:
        sweeps = out_path / SWEEPS
        if sweeps.exists() and not any(sweeps.iterdir()):
            sweeps.rmdir()
        write_report(out_path)
        if client is not None:
            client.close()
    return records


def _md_cell(v) -> str:
    if v is None:
        return "—"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        return f"{v:.6g}"
    return str(v).replace("|", "\\|")


def _setup_table(setup) -> list[str]:
    """An item's setup as a table: each setting, our value, its source and the words behind it (the paper's
    quoted with where they are)."""
    lines = ["| setting | ours | from | the words behind it |", "|---|---|---|---|"]
    for s in setup:
        words = f"“{s.words}” ({s.where})" if s.source == "paper" else s.words
        lines.append(f"| {_md_cell(s.name)} | {_md_cell(s.value)} | {SOURCE_LABEL[s.source]} | {_md_cell(words)} |")
    return lines


def _margin_cell(check: dict) -> str:
    m = margin(check)
    return "—" if m is None else f"{m * 100:+.1f} %"


def _seeds_cell(check: dict, item_kind: str) -> str:
    """'seeds 1, 2, 3: [lo, hi]' (and 'crosses' when the interval spans the threshold), 'no interval' for a
    measurement without per-seed values (one run, or seeds pooled before the check), '—' for the other kinds."""
    if check.get("seeds"):
        iv = seed_interval(check)
        if iv is None:
            return "seed " + ", ".join(str(x) for x in check["seeds"])
        clear = clear_of_threshold(check)
        return (f"seeds {', '.join(str(x) for x in check['seeds'])}: [{iv[0]:.4g}, {iv[1]:.4g}]"
                + (" crosses" if clear is False else ""))
    return "no interval" if check_kind(check, item_kind) == "measurement" else "—"


def _unmeasured(check: dict) -> bool:
    """A failed check whose measurement this run could not make: ours is null and the tolerance says
    why ("not measured: ...", the convention of _realpath.not_measured). A null `ours` alone can be a
    real miss (e.g. no buffer on the grid met the claim)."""
    return (not check["pass"] and check["ours"] is None
            and str(check.get("tolerance", "")).startswith("not measured"))


def miss_cause(check: dict) -> str | None:
    """Why a failed check misses: its recorded cause, "not measured" for one this run could not make,
    else None (no cause given yet). None for a check that passes."""
    if check["pass"]:
        return None
    cause = (check.get("cause") or {}).get("kind")
    if cause in MISS_CAUSES:
        return cause
    return "not measured" if _unmeasured(check) else None


def _verdict(check: dict) -> str:
    if check["pass"]:
        return "PASS"
    if _unmeasured(check):
        return "not measured"
    cause = check.get("cause") or {}
    if cause.get("kind") == "paper":
        return "paper inconsistent: " + _md_cell(cause.get("detail", ""))
    if cause.get("kind") in MISS_CAUSES:
        return f"**MISS** ({cause['kind']}: " + _md_cell(cause.get("detail", "")) + ")"
    return "**MISS**"


def cause_counts(done: dict) -> dict[str, int]:
    """Counted checks that do not pass, by cause ("none": no cause given)."""
    out = {c: 0 for c in MISS_CAUSES}
    out["none"] = 0
    for meta, checks in done.values():
        for c in checks:
            if check_kind(c, meta["kind"]) in COUNTED_KINDS and not c["pass"]:
                out[miss_cause(c) or "none"] += 1
    return out


_KIND_ORDER = ("measurement", "formula", "calibration", "health")


def check_kind(check: dict, item_kind: str) -> str:
    """A check's kind; outputs written before checks carried one get their item's default."""
    k = check.get("kind")
    if k in CHECK_KINDS:
        return k
    return "formula" if item_kind in ("analytic", "config", "illustration") else "measurement"


def kind_counts(checks: list[dict], item_kind: str = "simulation") -> dict[str, dict[str, int]]:
    """{kind: {"pass", "total", "not_measured"}} for every kind present."""
    out: dict[str, dict[str, int]] = {}
    for c in checks:
        d = out.setdefault(check_kind(c, item_kind), {"pass": 0, "total": 0, "not_measured": 0})
        d["total"] += 1
        d["pass"] += bool(c["pass"])
        d["not_measured"] += _unmeasured(c)
    return out


def item_status(checks: list[dict], item_kind: str) -> str:
    """'reproduced' only when the item has measurement checks, all of them pass and none measured over
    several seeds has an interval that crosses its threshold (:func:`clear_of_threshold`); an item with
    formula checks only is 'formula checked'; otherwise 'ran, N misses' (N: failed formula and measurement
    checks; calibration and health lines do not count)."""
    counted = [c for c in checks if check_kind(c, item_kind) in COUNTED_KINDS]
    paper = sum(miss_cause(c) == "paper" for c in counted)
    misses = sum(not c["pass"] and not _unmeasured(c) for c in counted) - paper
    unmeasured = sum(_unmeasured(c) for c in counted)
    meas = [c for c in counted if check_kind(c, item_kind) == "measurement"]
    found = f", {paper} paper inconsistenc{'ies' if paper != 1 else 'y'}" if paper else ""
    if misses:
        return (f"ran, {misses} miss{'es' if misses != 1 else ''}" + (f", {unmeasured} not measured" if unmeasured else "")
                + found)
    if unmeasured:
        return f"ran, {unmeasured} not measured" + found
    if paper:
        return f"ran{found}"
    crossing = sum(clear_of_threshold(c) is False for c in meas)
    if crossing:
        return (f"ran, every check passes but {crossing} within the seeds' interval of {'its' if crossing == 1 else 'their'} "
                "threshold")
    if meas:
        return "reproduced"
    if counted:
        return "formula checked"
    return "ran, no counted checks"


def write_report(out: Path) -> Path:
    """DIR/REPORT.md from every DIR/ID/meta.json and checks.json, plus the catalogue's status."""
    from bufsize import reproduce

    mods = reproduce.modules()
    done = {}
    for fid in mods:
        meta_file = out / fid / "meta.json"
        if meta_file.exists():
            meta = json.loads(meta_file.read_text(encoding="utf-8"))
            checks = json.loads((out / fid / "checks.json").read_text(encoding="utf-8"))
            done[fid] = (meta, checks)
    modes = sorted({m["mode"] for m, _ in done.values()})
    by_kind: dict[str, dict[str, int]] = {k: {"pass": 0, "total": 0, "not_measured": 0} for k in CHECK_KINDS}
    inferred = 0
    for meta, c in done.values():
        inferred += sum(x.get("kind") not in CHECK_KINDS for x in c)
        for k, d in kind_counts(c, meta["kind"]).items():
            for f, v in d.items():
                by_kind[k][f] += v
    statuses = {fid: item_status(c, meta["kind"]) for fid, (meta, c) in done.items()}
    replayed = sorted(fid for fid, (meta, _) in done.items()
                      if any("Kernel-testbed part replayed" in str(n) for n in meta.get("notes") or []))
    n_repro = sum(s == "reproduced" for s in statuses.values())
    # reproduced items whose every measurement check was judged on several seeds with its interval clear
    n_repro_seeded = sum(statuses[fid] == "reproduced" and all(
        clear_of_threshold(c) for c in checks if check_kind(c, meta["kind"]) == "measurement")
        for fid, (meta, checks) in done.items())
    n_meas_seeded = sum(seed_interval(c) is not None for meta, checks in done.values() for c in checks
                        if check_kind(c, meta["kind"]) == "measurement")
    n_formula_only = sum(s == "formula checked" for s in statuses.values())
    n_checks = sum(by_kind[k]["total"] for k in COUNTED_KINDS)
    n_pass = sum(by_kind[k]["pass"] for k in COUNTED_KINDS)
    n_unmeasured = sum(by_kind[k]["not_measured"] for k in COUNTED_KINDS)
    causes = cause_counts(done)
    n_miss = n_checks - n_pass - n_unmeasured - causes["paper"]
    # the items whose module declares where each setting comes from (bufsize.reproduce._setup)
    traced = {fid: st for fid in done if (st := setup_of(mods[fid])) is not None}
    sources = source_counts(traced.values())

    def line(k: str) -> str:
        d = by_kind[k]
        return (f"{d['pass']} of {d['total']} pass" + (f", {d['not_measured']} not measured" if d["not_measured"] else ""))

    lines = ["# Reproduction of the five buffer-sizing papers", "",
             "Generated by `bufsize reproduce` (" + (", ".join(f"--{m}" for m in modes) or "nothing run") + "). "
             "Each figure below links its picture and lists the paper's claims beside our numbers "
             "(`checks.json`), the exact inputs (`inputs.json`) and the data (`data.csv`) in its folder. "
             "A failed check is a result, reported with its likely reason, not hidden.", "",
             f"**{len(done)} of {len(mods)} figures and tables ran; {n_repro} reproduced (every measurement check "
             f"passes; {n_repro_seeded} of them with every measurement check's interval over seeds clear of its "
             f"threshold, the others without such intervals), {n_formula_only} formula-only items checked, the rest ran with misses. Claims: measurement "
             f"{line('measurement')}; formula {line('formula')} ({n_pass} of {n_checks} counted checks pass, {n_miss} "
             f"miss, {n_unmeasured} not measured" + (f", {causes['paper']} where the paper's own numbers disagree, "
             "reported apart" if causes["paper"] else "") + f").** Not counted: calibration {line('calibration')}; health "
             f"{line('health')}.", "",
             "Kinds of check: *measurement* (a simulated, kernel-testbed or real-socket measurement against the "
             "paper's claim, in the claim's direction), *formula* (the toolkit's model against the paper's printed "
             "number: the model is implemented as stated, not evidence that the claim holds on a network), "
             "*calibration* (a setting we tuned to the paper's operating point) and *health* (a sanity check of "
             "our own runs). An item is *reproduced* only when it has measurement checks, all pass, and none "
             "judged over several seeds has its 95 % interval (Student's t over the per-seed values) across its "
             "threshold; otherwise its status says how many counted checks miss. Each check's *margin* is how far "
             "ours lies inside (+) or outside (−) its nearest threshold: relative to the threshold for a one-sided "
             "claim, as a share of the half-width for a two-sided range (100 % at its centre); 0 and 1 do not "
             "count as thresholds of a fraction checked against [x, 1] or [0, x]; the *seeds* "
             f"column gives the seeds and interval where a check carries its value per seed ({n_meas_seeded} "
             "measurement checks so far), 'no interval' otherwise (one run, or seeds pooled before the check): a "
             "thin margin without an interval is weak evidence."
             + (f" {inferred} checks come from outputs written before checks carried a kind and a rule; they are "
                "counted with their item's default (formula for analytic items, measurement otherwise), and those "
                "outputs are stale (not regenerated since checks were given kinds and directions; in brackets the "
                "wall time of their last run; runs shared by several items are counted in the first item that ran them): "
                + ", ".join(f"{fid} ({meta['wall_seconds']:.0f} s)" for fid, (meta, c) in sorted(done.items())
                            if any(x.get("kind") not in CHECK_KINDS for x in c)) + "."
                if inferred else "")
             + (" Kernel-testbed parts replayed from recorded runs, not re-measured (their recorded numbers re-judged "
                "by today's checks; each item's notes name the runs): " + ", ".join(replayed) + "." if replayed else ""),
             "",
             f"Setup: {len(traced)} of the {len(done)} items run say where each setting of their runs comes from "
             f"(a table under the item; shared settings counted in each item): {sources['paper']} settings from "
             "the papers' own words (quoted; tests/reproduce/test_setup_sources.py finds each quote in the paper's "
             f"text), {sources['figures']} from FIGURES.md where a paper "
             f"is silent, {sources['ours']} our choices (each with its reason)"
             + (". The others give their setup in their deviations only: " + ", ".join(
                 sorted(fid for fid in done if fid not in traced)) + "." if len(traced) < len(done) else "."), "",
             "A check is *not measured* when this run cannot make the measurement it needs (no root for the kernel "
             "testbed, a row that only --full runs, a series the paper's hardware had and we have not); it counts "
             "as not passed.", "",
             "Regenerate: `bufsize reproduce all --quick --out DIR` (or one figure: `bufsize reproduce fig_004_05 "
             "--out DIR`; `--full` for the papers' scale, `--workers N` or `--scheduler ADDR` to spread the "
             "simulations). `bufsize reproduce --list` shows every item with its kind, its quick cost and what a "
             "blocked item still needs. Checks marked [C] compare with numbers computed from the paper's own "
             "formulas (FIGURES.md); 'paper' is empty for qualitative claims, whose criterion is in the "
             "tolerance column.", "",
             ]
    nested = sorted(p.name for p in out.iterdir() if p.is_dir() and (p / MARKER).exists())
    if nested:
        lines += ["Other runs kept in this folder: " + ", ".join(f"[{n}/REPORT.md]({n}/REPORT.md)" for n in nested)
                  + ".", ""]
    lines += ["## Index", "",
              "Counted checks that do not pass, by cause: " + ", ".join(
                  f"{k} {causes[k]}" for k in (*MISS_CAUSES, "none")) + " (*paper*: the paper's own numbers "
              "disagree, a finding reported apart from our misses; *none*: no cause given yet).", "",
              "| id | paper | kind | title | status | checks (m measurement, f formula, c calibration, h health) | time |", "|---|---|---|---|---|---|---|"]
    for fid, mod in mods.items():
        spec = mod.SPEC
        if fid in done:
            meta, checks = done[fid]
            st = f"[{statuses[fid]}](#{fid})"
            ck = ", ".join(f"{k[0]} {d['pass']}/{d['total']}" for k, d in
                           sorted(kind_counts(checks, meta["kind"]).items(), key=lambda kv: _KIND_ORDER.index(kv[0])))
            unmeasured = sum(_unmeasured(x) for x in checks)
            if unmeasured:
                ck += f" ({unmeasured} not measured)"
            tm = f"{meta['wall_seconds']:.1f} s"
        else:
            code, text = reproduce.status(mod)
            st = "ready, not run" if code == "ready" else text
            ck, tm = "—", "—"
        lines.append(f"| {fid} | {spec.paper_id} | {spec.kind} | {_md_cell(spec.title)} | {_md_cell(st)} | {ck} | {tm} |")
    for fid, (meta, checks) in done.items():
        lines += ["", f"## {fid}", "", f"**{meta['paper_id']}: {meta['title']}** ({meta['kind_detail']}; "
                  f"--{meta['mode']} run, {meta['wall_seconds']:.1f} s)", "",
                  f"![{fid}]({fid}/figure.png)", "",
                  "| claim | kind | paper | ours | tolerance | margin | seeds | pass |", "|---|---|---|---|---|---|---|---|"]
        for c in checks:
            lines.append(f"| {_md_cell(c['claim'])} | {check_kind(c, meta['kind'])} | {_md_cell(c['paper'])} | "
                         f"{_md_cell(c['ours'])} | {_md_cell(c['tolerance'])} | {_margin_cell(c)} | "
                         f"{_seeds_cell(c, meta['kind'])} | {_verdict(c)} |")
        if fid in traced:
            lines += ["", "Setup, and where each setting comes from:", ""] + _setup_table(traced[fid])
            (out / fid / "setup.json").write_text(_json([x.to_dict() for x in traced[fid]]), encoding="utf-8")
        if meta["deviations"]:
            lines += ["", "Deviations from the paper's setup:", ""] + [f"- {d}" for d in meta["deviations"]]
        if meta["notes"]:
            lines += ["", "Notes:", ""] + [f"- {d}" for d in meta["notes"]]
        lines += ["", f"Files: [data.csv]({fid}/data.csv), [checks.json]({fid}/checks.json), "
                  f"[inputs.json]({fid}/inputs.json)" + (f", [setup.json]({fid}/setup.json)" if fid in traced else "")
                  + f", [figure.svg]({fid}/figure.svg)"]
    text = "\n".join(lines) + "\n"
    tmp = out / ".tmp-REPORT.md"
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, out / "REPORT.md")
    return out / "REPORT.md"
