"""`bufsize simulate` rejects bad input with one line naming the flag or field, exit code 2.

These never run a simulation: each invocation fails during argument checking, or stops at
--show-scenario.
"""

import json
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from bufsize.cli import main

GOOD = ["--capacity", "155Mbps", "--flows", "400", "--rtt", "20ms..140ms", "--buffer", "52pkt"]


def run(capsys, args):
    code = main(["simulate", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_show_scenario_prints_engine_json(capsys):
    code, out, err = run(capsys, [*GOOD, "--duration", "30s", "--seed", "5", "--packet-size", "1500B", "--sack",
                                  "--show-scenario"])
    assert code == 0, err
    d = json.loads(out)
    assert d["duration_s"] == 30.0 and d["seed"] == 5
    assert d["dumbbell"]["buffer"] == {"limit_packets": 52}
    assert d["dumbbell"]["tcp"]["packet_bytes"] == 1500 and d["dumbbell"]["tcp"]["sack"] is True


def test_plot_switches_traces_on(capsys, tmp_path):
    code, out, err = run(capsys, [*GOOD, "--plot", str(tmp_path / "f.png"), "--show-scenario"])
    assert code == 0, err
    m = json.loads(out)["measure"]
    assert m["queue_trace_interval_s"] > 0 and m["cwnd_trace_flows"] == [0, 1, 2, 3]


@pytest.mark.parametrize("args, needle", [
    (["--capacity", "155Mbpx"], "--capacity: "),
    (["--capacity", "0Mbps"], "--capacity: "),
    (["--flows", "many"], "--flows: "),
    (["--flows", "0"], "--flows: "),
    (["--rtt", "140ms..20ms"], "--rtt: "),
    (["--buffer", "lots"], "--buffer: "),
    (["--buffer", "0.5bdb"], "--buffer: "),
    (["--duration", "-5s"], "--duration: "),
    (["--warmup", "90s"], "--warmup: "),
    (["--seed", "x"], "--seed: "),
    (["--packet-size", "20B"], "--header-size: "),
    (["--cc", "vegas"], "--cc: unknown congestion control 'vegas'"),
    (["--max-window", "0"], "--max-window: "),
    (["--min-rto", "soon"], "--min-rto: "),
    (["--trace-cwnd", "a,b"], "--trace-cwnd: "),
    (["--trace-cwnd", "400"], "--trace-cwnd"),
    (["--queue-trace", "0s"], "--queue-trace: "),
    (["--plot", "fig.gif"], "--plot: "),
    (["--format", "xlsx"], "--format"),
])
def test_bad_flags(capsys, args, needle):
    # later occurrences of an option override earlier ones in click, so the bad value wins
    code, out, err = run(capsys, [*GOOD, *args, "--show-scenario"])
    assert code == 2
    assert err.startswith("bufsize: error: ")
    assert needle in err, err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_missing_flags(capsys):
    code, _, err = run(capsys, ["--flows", "10"])
    assert code == 2 and "--capacity: missing" in err


def test_file_and_dumbbell_flags_conflict(capsys, tmp_path):
    f = tmp_path / "s.toml"
    f.write_text('[dumbbell]\ncapacity="10Mbps"\nflows=2\nrtt="50ms"\nbuffer="20pkt"\n')
    code, _, err = run(capsys, [str(f), "--capacity", "1Gbps"])
    assert code == 2 and "--capacity: cannot be combined with SCENARIO_FILE" in err
    # top-level overrides are fine
    code, out, err = run(capsys, [str(f), "--seed", "9", "--duration", "12s", "--show-scenario"])
    assert code == 0, err
    d = json.loads(out)
    assert d["seed"] == 9 and d["duration_s"] == 12.0


def test_bad_files(capsys, tmp_path):
    code, _, err = run(capsys, [str(tmp_path / "nope.toml")])
    assert code == 2 and "SCENARIO_FILE: cannot read" in err
    f = tmp_path / "s.toml"
    f.write_text('[dumbbell]\ncapacity="10Mbps"\nflows=2\nrtt="50ms"\nbuffer="20pkt"\n[dumbbell.tcp]\ncc="cubicc"\n')
    code, _, err = run(capsys, [str(f)])
    assert code == 2 and "dumbbell.tcp.cc: unknown congestion control 'cubicc'" in err
    f.write_text('[dumbbell]\ncapacity="10Mbps"\nflows=2\nrtt="50ms"\nbufer="20pkt"\n')
    code, _, err = run(capsys, [str(f)])
    assert code == 2 and "dumbbell.bufer: unknown field" in err


_FLAGS = ["--capacity", "--flows", "--rtt", "--buffer", "--duration", "--warmup", "--seed", "--packet-size",
          "--cc", "--access-capacity", "--max-window", "--initial-window", "--min-rto", "--start",
          "--access-buffer", "--bottleneck-delay", "--queue-trace", "--trace-cwnd"]
_JUNK = st.one_of(
    st.text(min_size=1, max_size=12).filter(lambda s: not s.startswith("-")),
    st.sampled_from(["-1", "0", "nan", "inf", "1e400Mbps", "5..2ms", "Mbps", "3pkts/s", "1/sqrt(m)", "bdp*bdp",
                     "0x10", "1,,", "..", "80ms..", "1e-400s", "²", "NaNms"]),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(flag=st.sampled_from(_FLAGS), value=_JUNK)
def test_random_bad_values_give_one_line_or_a_valid_scenario(capsys, flag, value):
    """Whatever the value, the CLI either accepts it (a valid scenario) or prints one error line
    naming the flag, with exit code 2; never a traceback."""
    code, out, err = run(capsys, [*GOOD, "--duration", "20s", "--warmup", "5s", flag, value, "--show-scenario"])
    if code == 0:
        json.loads(out)  # a complete scenario came out
        assert err == ""
    else:
        assert code == 2, err
        assert err.startswith("bufsize: error: ") and err.count("\n") == 1, err
        assert flag in err or "SCENARIO_FILE" in err, err


def test_subprocess_error_has_no_traceback():
    p = subprocess.run([sys.executable, "-m", "bufsize", "simulate", *GOOD, "--rtt", "fast"],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 2
    assert p.stderr.strip().startswith("bufsize: error: --rtt: ") and "Traceback" not in p.stderr
    assert p.stderr.count("\n") == 1


def test_simulate_help_does_not_import_the_heavy_stack():
    # The simulate command alone, registered on a fresh group, so other commands' imports don't count.
    code = ("import sys, click\n"
            "from bufsize.commands import simulate\n"
            "g = click.Group('bufsize'); simulate.register(g)\n"
            "try: g.main(['simulate', '--help'], standalone_mode=False)\nexcept SystemExit: pass\n"
            "heavy = [m for m in ('numpy', 'pandas', 'bufsize._engine', 'matplotlib') if m in sys.modules]\n"
            "print('HEAVY=' + ','.join(heavy))")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert "--capacity" in p.stdout
    assert p.stdout.strip().splitlines()[-1] == "HEAVY=", p.stdout.strip().splitlines()[-1]
