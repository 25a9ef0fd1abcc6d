"""Packaging: the wheel alone (no cargo, no source tree) gives a working `bufsize transfer` and testbed.

Builds the wheel with maturin into a temporary directory (reusing the workspace's target directory,
so only what changed is recompiled), installs it into a fresh virtual environment (dependencies from
pip's cache or the registry), and runs a loopback transfer and `bufsize testbed check` there, from a
directory outside the source tree and with cargo off PATH. As root, on a machine where the testbed is
usable, a short testbed run also starts the delay element from the installed package.
"""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from net_helpers import free_port, wait_for_listener

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def wheel_venv(tmp_path_factory):
    maturin = shutil.which("maturin") or str(Path(sys.executable).with_name("maturin"))
    if not os.access(maturin, os.X_OK) or not shutil.which("cargo"):
        pytest.skip("cannot build the wheel here: maturin or cargo not found")
    tmp = tmp_path_factory.mktemp("wheel")
    env = {**os.environ, "CARGO_TARGET_DIR": os.environ.get("CARGO_TARGET_DIR", str(ROOT / "target"))}
    p = subprocess.run([maturin, "build", "--release", "--out", str(tmp / "dist"), "-i", sys.executable],
                       cwd=ROOT, env=env, capture_output=True, text=True, timeout=1500)
    if p.returncode != 0:
        pytest.skip(f"maturin build failed (no toolchain/registry?): {p.stderr.strip()[-300:]}")
    (whl,) = (tmp / "dist").glob("bufsize-*.whl")
    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    p = subprocess.run([str(venv / "bin" / "pip"), "install", "-q", str(whl)], capture_output=True, text=True,
                       timeout=1200)
    if p.returncode != 0:
        pytest.skip(f"installing the wheel's dependencies failed (no registry or cache?): {p.stderr.strip()[-300:]}")
    # no source tree (the venv is elsewhere) and no ~/.cargo/bin on PATH: the venv and system tools only
    path = ":".join([str(venv / "bin"), "/usr/local/sbin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"])
    run_env = {"PATH": path, "HOME": str(tmp), "LANG": "C.UTF-8"}
    return venv, run_env, tmp


def test_wheel_transfer_on_loopback(wheel_venv):
    venv, env, cwd = wheel_venv
    bufsize = str(venv / "bin" / "bufsize")
    port = free_port()
    srv = subprocess.Popen([bufsize, "transfer", "server", "--bind", "127.0.0.1", "--port", str(port), "--one-off",
                            "--quiet"], cwd=cwd, env=env)
    try:
        wait_for_listener(port, 30)
        # (the probing connection above was dropped by the server as a protocol error; it still serves)
        p = subprocess.run([bufsize, "transfer", "client", "127.0.0.1", "--port", str(port), "-t", "2s",
                            "--socket-buffer", "sobas", "--json"], cwd=cwd, env=env, capture_output=True, text=True,
                           timeout=60)
        assert p.returncode == 0, p.stderr
        rep = json.loads(p.stdout)
        assert rep["end"]["sum_received"]["bytes"] > 1_000_000
        assert rep["end"]["sobas"]["trains_measured"] == 5
        srv.wait(timeout=20)  # --one-off: exits after the transfer
        assert srv.returncode == 0
    finally:
        if srv.poll() is None:
            srv.kill()


def test_wheel_testbed_check_finds_the_packaged_delay_element(wheel_venv):
    venv, env, cwd = wheel_venv
    p = subprocess.run([str(venv / "bin" / "bufsize"), "testbed", "check", "--json"], cwd=cwd, env=env,
                       capture_output=True, text=True, timeout=120)
    rep = json.loads(p.stdout)
    items = {i["name"]: i for i in rep["items"]}
    if "delay_element" not in items:
        failed = rep.get("reasons") or [f"{i['name']}: {i['detail']}" for i in rep["items"] if not i["ok"]]
        pytest.skip("testbed check stopped before the delay element: " + "; ".join(failed))
    assert items["delay_element"]["ok"], items["delay_element"]
    assert "-m bufsize.testbed.delay_element" in items["delay_element"]["detail"]
    if not rep["ok"]:
        pytest.skip("testbed not usable here: " + "; ".join(rep["reasons"]))
    # a short run through the packaged delay element (root, namespaces, TUN)
    out = cwd / "tb"
    subprocess.run([str(venv / "bin" / "bufsize"), "testbed", "run", "--rtt", "100ms", "--buffer", "1bdp",
                    "--duration", "4s", "--warmup", "1s", "--attempts", "1", "--quiet", "--out", str(out)],
                   cwd=cwd, env=env, capture_output=True, text=True, timeout=180)
    point = json.loads((out / "point.json").read_text())
    att = (point["accepted_runs"] + point["failed_attempts"])[0]
    assert not att.get("error"), att.get("error")  # a rejection for a busy machine is fine, a crash is not
    d = att["delay_element"]
    assert d["state"] == "stopped" and d["sent"] > 1000 and d["dropped_full"] == 0
    assert d["realtime"] and d["locked"] and d["window_start_monotonic_s"] > 0  # SCHED_FIFO, mlock, SIGUSR1
    assert 0.100 <= att["summary"]["mean_rtt_measured_s"] < 0.5
