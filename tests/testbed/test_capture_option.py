"""Captures from the command line: ``testbed run --capture FILE`` writes the run's pcap (one per
repeat), is refused at once in one line when tcpdump is missing, and ``testbed check`` says captures
are unavailable without tcpdump instead of a bare "usable"."""

from __future__ import annotations

import importlib
import json
import shutil

import pytest

from bufsize.cli import main
from bufsize.testbed.check import Item, Report

check_mod = importlib.import_module("bufsize.testbed.check")  # the module (bufsize.testbed.check is also a function)


def _no_tcpdump(monkeypatch):
    real = shutil.which
    monkeypatch.setattr(shutil, "which", lambda name, *a, **k: None if name == "tcpdump" else real(name, *a, **k))


def _usable_without_tcpdump() -> Report:
    return Report((Item("root", True, "running as root"), Item("tools", True, "ip, tc, ethtool, ping found"),
                   Item("capture", False, "tcpdump not installed: testbed run --capture is unavailable", False)))


def test_check_lists_tcpdump_as_optional(monkeypatch):
    _no_tcpdump(monkeypatch)
    monkeypatch.setattr(check_mod.os, "geteuid", lambda: 1000)  # stop before the live probes
    rep = check_mod.check()
    item = next(i for i in rep.items if i.name == "capture")
    assert not item.ok and not item.required and "apt-get install tcpdump" in item.detail
    assert not rep.captures and rep.unavailable == [f"capture: {item.detail}"]
    assert not any(r.startswith("capture") for r in rep.reasons)   # not a reason the testbed is unusable


def test_check_without_tcpdump_says_captures_are_unavailable(monkeypatch, capsys):
    monkeypatch.setattr(check_mod, "check", _usable_without_tcpdump)
    assert main(["testbed", "check"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-1] == "testbed: usable; captures unavailable (testbed run --capture needs tcpdump)"
    assert any(line.startswith("no   capture") for line in out)
    assert main(["testbed", "check", "--json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["ok"] is True and rep["captures"] is False


def test_check_with_tcpdump_says_plainly_usable(monkeypatch, capsys):
    rep = Report((Item("root", True, "running as root"), Item("capture", True, "tcpdump found", False)))
    monkeypatch.setattr(check_mod, "check", lambda: rep)
    assert main(["testbed", "check"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "testbed: usable"


def test_run_capture_without_tcpdump_is_refused_before_any_run(monkeypatch, capsys, tmp_path):
    _no_tcpdump(monkeypatch)
    assert main(["testbed", "run", "--capture", str(tmp_path / "run.pcap")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("bufsize: error: --capture: tcpdump is not installed") and "\n" not in err
    assert not (tmp_path / "run.pcap").exists()


def test_run_capture_names_one_file_per_repeat(tmp_path):
    from bufsize.commands.testbed import _capture_paths

    if shutil.which("tcpdump") is None:
        pytest.skip("tcpdump is not installed")
    assert _capture_paths(str(tmp_path / "run.pcap"), 1) == [tmp_path / "run.pcap"]
    assert _capture_paths(str(tmp_path / "run.pcap"), 3) == [tmp_path / f"run-{k}.pcap" for k in (1, 2, 3)]
    assert _capture_paths(None, 3) == []


def test_run_hands_each_repeat_its_capture_path(monkeypatch):
    from bufsize.testbed import runner
    from bufsize.testbed.config import TestbedConfig

    seen = []

    def fake_run_once(cfg, *, log, keep_work, capture=None):
        seen.append((cfg.seed, capture))
        return runner.Attempt(run_id=f"x{cfg.seed}", accepted=len(seen) != 2)  # the second try fails once

    monkeypatch.setattr(runner, "run_once", fake_run_once)
    cfg = TestbedConfig.dumbbell(rate="10Mbps", rtt="20ms", buffer="1bdp", flows=1, duration="5s", warmup="1s")
    point = runner.run(cfg, repeats=2, attempts=2, captures=["a.pcap", "b.pcap"])
    assert not point.rejected
    assert seen == [(1, "a.pcap"), (2, "b.pcap"), (2, "b.pcap")]   # a retry overwrites its repeat's file


@pytest.mark.testbed
def test_run_capture_writes_a_pcap_bufsize_traffic_reads(tmp_path, capsys):
    if shutil.which("tcpdump") is None:
        pytest.skip("tcpdump is not installed")
    from bufsize import traffic

    pcap = tmp_path / "run.pcap"
    rc = main(["testbed", "run", "--capacity", "10Mbps", "--rtt", "30ms", "--flows", "2", "--duration", "4s",
               "--warmup", "1s", "--attempts", "1", "--quiet", "--capture", str(pcap)])
    assert rc in (0, 1)                                   # a busy machine may reject the run; it is captured
    assert f"capture                  {pcap}" in capsys.readouterr().out
    prof = traffic.profile(traffic.read(pcap), capacity="10Mbps")
    assert prof.long_flows == 2
