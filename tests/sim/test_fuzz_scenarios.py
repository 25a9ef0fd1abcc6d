"""Fuzzing `bufsize simulate` with mutated copies of the example scenarios.

Each case takes one of examples/*.toml (shortened to a 1-s run), applies one to three mutations —
a hostile value (wrong type, extreme or non-finite number, odd unit string), a deleted field, an
extra field, an emptied list — and runs it through the command line in a separate worker process.
The property: every case ends, within a time limit, in a result (exit 0) or in exactly one line
``bufsize: error: ...`` with exit code 2; never a traceback, a panic, an abort or a hang.

``make test`` runs a few hundred derandomized cases; ``make fuzz`` runs many more at random
(``BUFSIZE_FUZZ_EXAMPLES``) and writes the counts to bench/fuzz.md (``BUFSIZE_FUZZ_REPORT``).
"""

from __future__ import annotations

import collections
import copy
import datetime
import json
import os
import re
import select
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "examples").glob("*.toml"))
N_EXAMPLES = int(os.environ.get("BUFSIZE_FUZZ_EXAMPLES", "250"))
REPORT = os.environ.get("BUFSIZE_FUZZ_REPORT")
#: Wall-clock limit of one case (parsing, estimating and, when it fits, a 1-s simulated run).
CASE_LIMIT_S = 30.0
#: Cases estimated to need more CPU than this are checked up to the estimate and refused for memory
#: (a 1-MiB limit), not run (the CLI would announce them and run them; the fuzz would take hours).
RUN_LIMIT_CPU_S = 1.0

# The worker: reads one scenario (JSON) per line, answers one JSON line per case.
WORKER = r"""
import contextlib, io, json, os, sys, tempfile
from bufsize.cli import main
from bufsize.cost import estimate
from bufsize.errors import BufsizeError
limit = float(sys.argv[1])
limit_env = os.environ["BUFSIZE_MEMORY_LIMIT"]
path = os.path.join(tempfile.mkdtemp(), "case.json")
for line in sys.stdin:
    with open(path, "w") as f:
        f.write(line)
    long = False
    try:
        long = estimate(path).cpu_seconds > limit
    except BufsizeError:
        pass  # the command reports it below
    except Exception as exc:  # the estimate itself must not fail on what the parser accepts
        print(json.dumps({"code": -1, "err": f"estimate raised {type(exc).__name__}: {exc}"}), flush=True)
        continue
    err = io.StringIO()
    args = ["simulate", path, "--no-progress", "--json"]
    # a long case goes through the whole command but is refused for memory instead of running
    os.environ["BUFSIZE_MEMORY_LIMIT"] = "1MiB" if long else limit_env
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            code = main(args)
        except SystemExit as exc:
            code = exc.code
        except BaseException as exc:
            code = -1
            err.write(f"uncaught {type(exc).__name__}: {exc}")
    print(json.dumps({"code": code, "err": err.getvalue(), "long": long}), flush=True)
"""


class Worker:
    def __init__(self) -> None:
        self.proc: subprocess.Popen | None = None

    def start(self) -> None:
        self.proc = subprocess.Popen([sys.executable, "-c", WORKER, str(RUN_LIMIT_CPU_S)], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                                     env={**os.environ, "BUFSIZE_MEMORY_LIMIT": os.environ.get(
                                         "BUFSIZE_MEMORY_LIMIT", "4GiB")})

    def stop(self) -> str:
        if self.proc is None:
            return ""
        self.proc.kill()
        self.proc.wait()
        tail = self.proc.stderr.read()[-2000:] if self.proc.stderr else ""
        self.proc = None
        return tail

    def run(self, text: str) -> tuple[str, dict]:
        """('ok' | 'hang' | 'crash', answer) for one scenario's JSON text."""
        if self.proc is None or self.proc.poll() is not None:
            self.stop()
            self.start()
        assert self.proc and self.proc.stdin and self.proc.stdout
        self.proc.stdin.write(text.replace("\n", " ") + "\n")
        self.proc.stdin.flush()
        ready, _, _ = select.select([self.proc.stdout], [], [], CASE_LIMIT_S)
        if not ready:
            self.stop()
            return "hang", {"err": f"no answer within {CASE_LIMIT_S:g} s"}
        line = self.proc.stdout.readline()
        if not line:
            rc = self.proc.wait()
            return "crash", {"err": f"worker died (exit {rc}): {self.stop()}"}
        return "ok", json.loads(line)


def _shorten(d: dict) -> dict:
    d = copy.deepcopy(d)
    d["duration"] = "1s"
    d["warmup"] = "0.25s"
    d.pop("duration_s", None)
    d.pop("warmup_s", None)
    return d


BASES = [_shorten(tomllib.loads(p.read_text())) for p in EXAMPLES]

_UNITS = ["", "s", "ms", "us", "ns", "bps", "Mbps", "Gbps", "pkt", "B", "KB", "GiB", "bdp", "/sqrt(n)", "%", "x"]
_NUMBERS = st.one_of(
    st.sampled_from([0, -1, 1, 2**31, 2**32, 2**63, 2**64, 2**70, -(2**63), 1e-300, 1e308, -1e308, 5e-324,
                     0.5, 1e6, 1e9, 1e12]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(min_value=-(2**70), max_value=2**70),
)
HOSTILE = st.one_of(
    st.sampled_from([None, True, False, "", " ", "abc", "nan", "inf", "-inf", "1e-300s", "1e308", "1ns", "0s",
                     "-5ms", "0pkt", "99999999Gbps", "1e400bps", "unlimited", "bdp/sqrt(n)", "20ms..10ms",
                     "..", ",", "1,2,", [], {}, [[]], [{}], {"fixed": None}, {"pareto": {"shape": 1e308, "mean": "20KB"}},
                     {"pareto": {"shape": 1.0000001, "mean": "1e15B"}}, {"exponential": "1e-300s"},
                     {"int_uniform": [0, 2**64]}, {"uniform": [5, 1]}, {"list": []},
                     {"empirical": {"values": [1, 2], "cdf": [0.5, 0.4]}}]),
    _NUMBERS,
    st.builds(lambda x, u: f"{x}{u}", _NUMBERS, st.sampled_from(_UNITS)),
    st.text(max_size=6),
)


def _paths(x, prefix=()):
    """Every (container path, key) in a nested scenario."""
    out = []
    if isinstance(x, dict):
        for k, v in x.items():
            out.append(prefix + (k,))
            out.extend(_paths(v, prefix + (k,)))
    elif isinstance(x, list):
        for i, v in enumerate(x):
            out.append(prefix + (i,))
            out.extend(_paths(v, prefix + (i,)))
    return out


def _get(x, path):
    for k in path:
        x = x[k]
    return x


_NUM_PREFIX = re.compile(r"^\s*([0-9.]+(?:[eE][-+]?[0-9]+)?)")


def _scale(v, k: int, negate: bool):
    """``v`` (a number, or a string starting with one) times 10^k, negated if asked."""
    sign = -1 if negate and k % 5 == 0 else 1
    if isinstance(v, bool) or not isinstance(v, (int, float, str)):
        return v
    if isinstance(v, (int, float)):
        return sign * (v * 10.0**k if k < 0 or isinstance(v, float) else v * 10**k)
    m = _NUM_PREFIX.match(v)
    if not m:
        return v
    return f"{sign * float(m[1]) * 10.0**k:g}{v[m.end():]}"


@st.composite
def mutated(draw):
    sc = copy.deepcopy(draw(st.sampled_from(BASES)))
    kinds = []
    for _ in range(draw(st.integers(1, 3))):
        paths = _paths(sc)
        if not paths:
            break
        path = draw(st.sampled_from(paths))
        parent, key = _get(sc, path[:-1]), path[-1]
        kind = draw(st.sampled_from(["value", "value", "scale", "scale", "scale", "delete", "extra", "empty",
                                     "type"]))
        kinds.append(kind)
        if kind == "value":
            parent[key] = copy.deepcopy(draw(HOSTILE))  # the sampled lists and tables are shared
        elif kind == "scale":  # a plausible value, orders of magnitude away: numbers and unit strings
            parent[key] = _scale(parent[key], draw(st.integers(-15, 15)), draw(st.booleans()))
        elif kind == "delete":
            del parent[key]
        elif kind == "extra":
            target = parent if isinstance(parent, dict) else sc
            target[draw(st.sampled_from(["extra", "rate", "foo_s", "size", "count", "tcp"]))] = copy.deepcopy(
                draw(HOSTILE))
        elif kind == "empty":
            parent[key] = [] if isinstance(parent[key], list) else {}
        else:  # the same value as another type
            v = parent[key]
            parent[key] = [v] if not isinstance(v, list) else {"list": v} if v else str(v)
    return sc, kinds


_stats: collections.Counter = collections.Counter()


@pytest.fixture(scope="module")
def worker():
    w = Worker()
    w.start()
    yield w
    w.stop()
    if REPORT:
        _write_report(Path(REPORT))


def _write_report(path: Path) -> None:
    s = _stats
    lines = [
        "# Fuzzing `bufsize simulate` (`make fuzz`)",
        "",
        f"Last run {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC: `make fuzz FUZZ_CASES={N_EXAMPLES}` "
        f"(`BUFSIZE_FUZZ_EXAMPLES={N_EXAMPLES} BUFSIZE_FUZZ_REPORT=bench/fuzz.md .venv/bin/python -m pytest -q "
        "tests/sim/test_fuzz_scenarios.py -k mutated`; random cases, unlike the derandomized ones of make test), "
        f"on {os.cpu_count()} shared CPUs. "
        "Mutations of examples/*.toml shortened to 1 s: 1–3 of hostile value, number scaled by 10^-15..10^15, deleted field, extra field, "
        "emptied list, changed type. Each case runs `bufsize simulate FILE --no-progress --json` in a worker "
        f"process with a {CASE_LIMIT_S:g}-s limit; cases estimated over {RUN_LIMIT_CPU_S:g} CPU-s go through the "
        "same command with `BUFSIZE_MEMORY_LIMIT=1MiB`, so they are checked and refused before they run.",
        "",
        "| outcome | cases |",
        "|---|---:|",
    ]
    for k in ("cases", "result (exit 0)", "one-line error (exit 2)", "long: refused for memory by a 1-MiB limit, not run",
              "hang", "crash",
              "traceback or several lines", "other exit code", "estimate failed"):
        lines.append(f"| {k} | {s.get(k, 0)} |")
    lines += ["", f"Wall time {s.get('seconds', 0):.0f} s.", ""]  # make fuzz appends the engine reader's line
    if s.get("failures"):
        lines += ["First failures:", ""] + [f"- {x}" for x in _failures[:10]] + [""]
    path.write_text("\n".join(lines))


_failures: list[str] = []


@settings(max_examples=N_EXAMPLES, deadline=None, derandomize=not REPORT, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture])
@given(case=mutated())
def test_mutated_scenarios_end_in_a_result_or_one_line_error(worker, case):
    sc, kinds = case
    try:
        text = json.dumps(sc, allow_nan=True)
    except (TypeError, ValueError):
        return
    t0 = time.perf_counter()
    status, ans = worker.run(text)
    _stats["seconds"] += time.perf_counter() - t0
    _stats["cases"] += 1
    err = (ans.get("err") or "").strip()
    lines = [x for x in err.splitlines() if not x.startswith("bufsize: this run needs")]
    problem = None
    if status != "ok":
        _stats[status] += 1
        problem = f"{status}: {err[-500:]}"
    elif ans["code"] == 0 and not ans.get("long"):
        _stats["result (exit 0)"] += 1
    elif ans["code"] == 2 and len(lines) == 1 and lines[0].startswith("bufsize: error: "):
        _stats["long: refused for memory by a 1-MiB limit, not run" if ans.get("long") and "peak memory" in lines[0]
               else "one-line error (exit 2)"] += 1
    elif ans["code"] == -1 and err.startswith("estimate raised"):
        _stats["estimate failed"] += 1
        problem = err
    elif ans["code"] == 2 or "Traceback" in err:
        _stats["traceback or several lines"] += 1
        problem = f"exit {ans['code']}: {err[-800:]}"
    else:
        _stats["other exit code"] += 1
        problem = f"exit {ans['code']}: {err[-800:]}"
    if problem:
        _stats["failures"] += 1
        _failures.append(f"{problem.splitlines()[-1] if problem.strip() else problem} — scenario {text[:300]}")
        pytest.fail(f"{problem}\nmutations {kinds}\nscenario {text}")


def test_the_fuzz_bases_are_the_examples_and_run():
    assert len(BASES) >= 3
    w = Worker()
    w.start()
    try:
        for sc in BASES:
            status, ans = w.run(json.dumps(sc))
            assert status == "ok" and ans["code"] == 0, ans
    finally:
        w.stop()
