"""`bufsize simulate --help` lists every congestion control the engine registers (issue 8 §0)."""

import re

from bufsize._engine import congestion_controls
from bufsize.cli import main
from bufsize.commands.simulate import CC_NAMES


def test_help_list_is_the_engine_registry():
    # --help must not load the engine, so it prints a copy of the registry: the copy is exact.
    assert CC_NAMES == tuple(congestion_controls())


def test_help_lists_every_registered_control(capsys):
    try:
        code = main(["simulate", "--help"])
    except SystemExit as e:  # click may exit after printing help
        code = e.code
    out = capsys.readouterr().out
    assert code in (0, None)
    # click wraps the help text, also after a hyphen ("newreno-" / "paced")
    text = re.sub(r"-\s+", "-", " ".join(out.split()))
    names = congestion_controls()
    # the engine has the controls of issue 8, and the help names each of them
    assert {"newreno", "reno", "cubic", "cubic-0.8", "bic", "ctcp", "paced", "poisson-paced"} <= set(names)
    for name in names:
        assert re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text), f"{name} missing from --help"


def test_each_control_runs_from_the_cli(capsys):
    for name in congestion_controls():
        code = main(["simulate", "--capacity", "10Mbps", "--flows", "1", "--rtt", "40ms", "--buffer", "25pkt",
                     "--duration", "3s", "--warmup", "1s", "--cc", name, "--json"])
        out, err = capsys.readouterr()
        assert code == 0, (name, err)
        assert '"utilization"' in out
