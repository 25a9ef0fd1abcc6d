"""The testbed's delay element run from the installed package: ``python -m bufsize.testbed.delay_element``.

Same options as the ``bufsize-delay`` program (crates/delay/src/main.rs), so the testbed can start
either: ``--tun NAME [--default-delay-us N] [--entry A.B.C.D=US ...] [--capacity SLOTS]
[--rt-priority P] [--no-mlock] [--stats PATH] [--max-runtime-s S]``. The loop itself is the Rust
element linked into ``bufsize._engine`` (``delay_run``), which installs its own handlers for
SIGTERM/SIGINT/SIGHUP (stop) and SIGUSR1 (start of the measurement window), takes SCHED_FIFO and
locks memory as the program does. A wheel therefore carries a working delay element without cargo.
"""

from __future__ import annotations

import argparse
import ipaddress
import sys


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, exit code 2, as the Rust program
        print(f"bufsize-delay: error: {message}", file=sys.stderr)
        sys.exit(2)


def _entry(text: str) -> tuple[int, int]:
    ip, sep, us = text.partition("=")
    if not sep:
        raise argparse.ArgumentTypeError(f"expected A.B.C.D=MICROSECONDS, got {text!r}")
    try:
        addr = int(ipaddress.IPv4Address(ip))
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"bad IPv4 address {ip!r}") from exc
    if not us.isdigit():
        raise argparse.ArgumentTypeError(f"bad delay {us!r}")
    return addr, int(us) * 1000


def _prio(text: str) -> int:
    if not text.isdigit() or not 0 <= int(text) <= 99:
        raise argparse.ArgumentTypeError(f"expected 0..99, got {text!r}")
    return int(text)


def _nonneg(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        v = -1.0
    if not v >= 0 or v == float("inf"):
        raise argparse.ArgumentTypeError(f"bad value {text!r}")
    return v


def main(argv: list[str] | None = None) -> int:
    p = _Parser(prog="python -m bufsize.testbed.delay_element", description=__doc__.splitlines()[0])
    p.add_argument("--tun", required=True)
    p.add_argument("--default-delay-us", type=int, default=0)
    p.add_argument("--entry", type=_entry, action="append", default=[])
    p.add_argument("--capacity", type=int, default=16384)
    p.add_argument("--rt-priority", type=_prio, default=50)
    p.add_argument("--no-mlock", action="store_true")
    p.add_argument("--stats", default=None)
    p.add_argument("--max-runtime-s", type=_nonneg, default=0.0)
    a = p.parse_args(argv)
    if a.default_delay_us < 0 or a.capacity <= 0:
        p.error("--default-delay-us and --capacity must be positive")
    from bufsize._engine import delay_run

    try:
        stats = delay_run(a.tun, a.default_delay_us * 1000, a.entry, capacity=a.capacity, rt_priority=a.rt_priority,
                          lock_memory=not a.no_mlock, stats_path=a.stats, max_runtime_s=a.max_runtime_s)
    except OSError as exc:
        print(f"bufsize-delay: error: {exc}", file=sys.stderr)
        return 1
    print(stats, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
