"""Miss causes shared by the items of papers 000 and 001 (``Check.because``, only where a check misses).

* :func:`if_miss`: give a check its cause when, and only when, it fails;
* :func:`kernel_not_measured` / :func:`kernel_scaled`: 000's kernel-testbed checks, not run or run at
  1/50 of the paper's scale;
* :func:`stack_words` / :func:`stack_clause`: how the reproduction's TCP stack
  (:mod:`bufsize.reproduce._stack`) compares with the ns-2 agents the papers simulated, for the causes
  that rest on it.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from bufsize.reproduce._core import Check


def if_miss(check: Check, cause: str, detail: str) -> Check:
    """``check`` with ``cause`` and ``detail`` when it fails; a passing check is returned untouched."""
    if not check.passed:
        check.because(cause, detail)
    return check


def kernel_not_measured(claims: Sequence[str], reason: str | None) -> list[Check]:
    """000's kernel-testbed checks of a figure whose kernel part did not run, each with its 'not measured' cause."""
    from bufsize.reproduce import _kernel

    why = reason or "the kernel testbed did not run"
    detail = (f"the kernel-testbed series (000's testbed scaled 1/50 on real Linux TCP) did not run: {why}. It needs "
              "root, the testbed's router and delay element, and a quiet machine for its timing; the simulator's "
              "checks of the same claims stand beside it")
    return [c.because("not measured", detail) for c in _kernel.not_measured(claims, why)]


def kernel_scaled(checks: Sequence[Check]) -> list[Check]:
    """000's measured kernel-testbed checks, a miss carrying the scaled testbed as its setup cause."""
    from bufsize.reproduce import _p000_kernel as pk

    for c in checks:
        if c.ours is not None:
            if_miss(c, "setup", f"the kernel testbed runs 000's experiment at 1/{pk.SCALE_DOWN} of its rate and users "
                                f"({pk.RATE_BPS / 1e6:g} Mb/s): {pk.SCALING_NOTE}")
    return list(checks)


#: the ns-2 details, in words, that :func:`stack_words` compares
_WORDS = {"initial_rto_s": "initial RTO {} s", "flight_size": "ssthresh from {}", "sack": "SACK {}",
          "prr": "PRR {}", "packet_bytes": "{}-byte packets", "limited_transmit": "limited transmit {}",
          "initial_window": "initial window {}", "min_rto_s": "minimum RTO {} s", "delayed_ack": "delayed ACKs {}"}


def _value(key: str, value: Any) -> Any:
    if key == "packet_bytes" and isinstance(value, str):
        return int(float(value.rstrip("Bb ")))
    return value


def _word(key: str, value: Any) -> str:
    if isinstance(value, bool):
        value = "on" if value else "off"
    elif key == "flight_size":
        value = {"flight": "the data in flight", "cwnd": "the window"}.get(value, value)
    return _WORDS[key].format(value)


def stack_words(table: Mapping[str, Any] | None = None) -> str:
    """The reproduction stack (with ``table``, a module's own TCP settings, on top) against ns-2's
    Agent/TCP/Newreno defaults, detail by detail: 'ours (ns-2: theirs)'."""
    from bufsize import profiles
    from bufsize.reproduce import _stack

    ns2 = profiles.PROFILES["ns2"].tcp
    ours = {k: _value(k, v) for k, v in _stack.tcp(table).items()}
    diffs = [f"{_word(k, ours[k])} (ns-2: {_word(k, ns2[k])})" for k in _WORDS
             if k in ours and k in ns2 and ours[k] != ns2[k]]
    return "; ".join(diffs) if diffs else "the ns-2 defaults"


def stack_clause(table: Mapping[str, Any] | None = None) -> str:
    """A clause for a cause's sentence: the stack ``table`` runs on, with its departures from ns-2's defaults."""
    from bufsize import profiles

    ns2 = profiles.PROFILES["ns2"].tcp
    words = stack_words(table)
    rules = (f"initial RTO {ns2['initial_rto_s']:g} s", _word("flight_size", ns2["flight_size"]),
             "limited transmit" if ns2["limited_transmit"] else "no limited transmit")
    base = f"ns-2.35's Agent/TCP defaults (the ns2 profile: {', '.join(rules)})"
    return base if words == "the ns-2 defaults" else f"{base} except {words}"
