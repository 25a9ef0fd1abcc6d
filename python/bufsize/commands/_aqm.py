"""``--aqm``: the one definition of the queue-discipline flag of ``simulate`` and ``recommend``.

The flag is the same on both (its name, metavar and unset value, None: a drop-tail FIFO); what it
does differs, so each command's help says its own part: ``simulate`` runs the discipline at its
defaults with ``--buffer`` as the hard limit, ``recommend`` sizes the discipline's settings and the
hard limit behind them. The names come from the tables that take them: the engine's disciplines
(:data:`bufsize.scenario._fields.QUEUE_DISCIPLINES`) and the ones ``recommend`` sizes
(:data:`SIZED`, the keys of :data:`bufsize.recommendation.verification.AQM_SETTINGS`, written out
here so the command line does not load the verification to print its help; a test keeps the two
equal).
"""

from __future__ import annotations

from typing import Any, Callable

import click

from bufsize.scenario._fields import QUEUE_DISCIPLINES

#: The disciplines ``recommend --aqm`` sizes, as a user writes them
SIZED: tuple[str, ...] = ("fq_codel", "codel", "pie", "red", "ecn-threshold")

HELP: dict[str, str] = {
    "simulate": ("The bottleneck's queue discipline instead of a drop-tail FIFO: "
                 + ", ".join(d for d in QUEUE_DISCIPLINES if d != "threshold")
                 + " or threshold (ECN marking above K = 65 packets), at its defaults; --buffer is then its "
                   "hard limit [default: the discipline's]; with --ecn it marks."),
    "recommend": ("Size a queue discipline's settings and the hard limit behind it instead of a drop-tail FIFO "
                  "(verified on the simulator): fq_codel, codel or pie (the default target, a larger one only "
                  "where it misses the utilization goal), red (at its defaults) or ecn-threshold (the smallest "
                  "marking threshold K, every sender ECN-capable: DCTCP with --cc dctcp, else the RFC 3168 "
                  "response)."),
}


def aqm_option(command: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """``--aqm NAME`` for ``command`` (``"simulate"`` or ``"recommend"``), with that command's help."""
    return click.option("--aqm", metavar="NAME", default=None, help=HELP[command])
