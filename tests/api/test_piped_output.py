"""Output read through a pipe (a file, less, grep) carries no padding: no line of the commands'
standard output or error ends in spaces, even with a wide COLUMNS in the environment (a terminal's
width leaking into tables or progress lines padded lines to it)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

COMMANDS = [
    ["reproduce", "--list"],
    ["recommend", "--capacity", "155Mbps", "--rtt", "20ms..140ms", "--flows", "400", "--no-verify"],
    ["simulate", "--capacity", "10Mbps", "--rtt", "20ms", "--flows", "2", "--buffer", "10", "--duration", "3s",
     "--warmup", "1s", "--progress"],
    ["traffic", "summarize", str(ROOT / "tests" / "data" / "captures" / "reno3_users3.pcap")],
    ["testbed", "check"],
]


def padded_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line != line.rstrip()]


@pytest.mark.parametrize("args", COMMANDS, ids=lambda a: " ".join(a[:2]))
def test_piped_output_has_no_trailing_padding(args, tmp_path):
    env = {**os.environ, "COLUMNS": "450"}
    p = subprocess.run([sys.executable, "-m", "bufsize", *args], capture_output=True, text=True, timeout=120,
                       cwd=tmp_path, env=env)
    assert p.returncode in (0, 1), p.stderr          # testbed check exits 1 where the testbed is unusable
    assert p.stdout.strip()
    assert padded_lines(p.stdout) == [] and padded_lines(p.stderr) == []


def test_the_check_sees_padding():
    assert padded_lines("model   yes   \nok\n") == ["model   yes   "]
