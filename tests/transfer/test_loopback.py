"""Server and client over 127.0.0.1 in the three buffer modes, hostile peers, CLI behaviour."""

import json
import os
import signal
import socket
import struct
import subprocess
import sys
import time

import pytest
from net_helpers import free_port, wait_for_listener

from bufsize.transfer import protocol as P
from bufsize.transfer.client import ClientOptions, run_client


def _check_report(rep, duration):
    s = rep["end"]["sum_received"]
    assert s["bytes"] > 1_000_000
    assert s["seconds"] == pytest.approx(duration, abs=1.0)
    assert s["bits_per_second"] == pytest.approx(8 * s["bytes"] / s["seconds"])
    assert sum(i["bytes"] for i in rep["intervals"]) == s["bytes"]
    assert len(rep["intervals"]) in (round(duration / 0.5), round(duration / 0.5) + 1)
    assert rep["end"]["reason"] == "server closed" and not rep["end"]["interrupted"]
    # the sender's TCP_INFO came back through the results connection
    assert isinstance(rep["end"]["retransmits"], int) and rep["end"]["retransmits"] >= 0
    assert rep["end"]["server"]["bytes_sent"] == s["bytes"]
    assert all(isinstance(i["retransmits"], int) for i in rep["intervals"][:-1])


def test_autotune(server):
    rep = run_client(ClientOptions("127.0.0.1", server.port, duration=2.0, interval=0.5))
    _check_report(rep, 2.0)
    assert rep["start"]["test_start"]["mode"] == "autotune"
    assert "sobas" not in rep["end"]


def test_fixed_size_is_applied_on_both_ends(server):
    size = 256 * 1024  # below the default rmem_max/wmem_max (4 MiB on this kernel family)
    rep = run_client(ClientOptions("127.0.0.1", server.port, duration=2.0, interval=0.5, mode="fixed", size=size))
    _check_report(rep, 2.0)
    sock = rep["start"]["sock"]
    if not rep["warnings"]:  # Linux reports twice the request (bookkeeping overhead)
        assert sock["client"]["rcvbuf"] == 2 * size and sock["server"]["sndbuf"] == 2 * size
    # a locked buffer: autotuning never grows it
    assert {i["rcvbuf"] for i in rep["intervals"]} == {sock["client"]["rcvbuf"]}


def test_fixed_size_above_the_system_maximum_is_reported():
    from bufsize.transfer.tcpinfo import set_buffers

    with open("/proc/sys/net/core/rmem_max") as f:
        rmax = int(f.read())
    s = socket.socket()
    try:
        w = set_buffers(s, rmax * 2)
    finally:
        s.close()
    assert any(x.startswith("rcvbuf: requested") for x in w)


def test_sobas_applies_the_window_clamp(server):
    rep = run_client(ClientOptions("127.0.0.1", server.port, duration=3.0, interval=0.5, mode="sobas"))
    _check_report(rep, 3.0)
    sb = rep["end"]["sobas"]
    assert sb["probes"]["sent"] >= 100 and sb["probes"]["echoed"] >= 0.9 * sb["probes"]["sent"]
    assert sb["trains_measured"] == 5 and sb["capacity_estimate_Bps"] > 0
    assert sb["initial_limit"] > 0
    # every interval shows the limit and the kernel's clamp; where the controller's limit was below
    # the maximum the clamp in force equals it (re-applied if autotuning moved it)
    lim = [i for i in rep["intervals"] if i["sobas_limit"] < rep["start"]["sock"]["tcp_rmem_max"]]
    assert lim, "the controller never limited the window"
    for i in lim:
        assert i["window_clamp"] in (i["sobas_limit"], max(i["sobas_limit"], 2304))


def test_sobas_with_tcp_info_rtt(server):
    rep = run_client(ClientOptions("127.0.0.1", server.port, duration=2.0, interval=0.5, mode="sobas",
                                   rtt_source="tcp-info"))
    _check_report(rep, 2.0)
    assert rep["start"]["test_start"]["rtt_source"] == "tcp-info"
    assert rep["end"]["sobas"]["probes"]["echoed"] > 0  # probes still run, for the loss record


def test_bytes_mode_sends_exactly_n(server):
    rep = run_client(ClientOptions("127.0.0.1", server.port, duration=None, nbytes=50_000_000))
    assert rep["end"]["sum_received"]["bytes"] == 50_000_000


def _raw(port, payload, close_after=0.0):
    s = socket.create_connection(("127.0.0.1", port), timeout=3)
    if payload:
        s.sendall(payload)
    if close_after:
        time.sleep(close_after)
    return s


def _reply_once_free(port, payload, within=3.0):
    """The server's reply to ``payload``, sent again while the server still answers busy: the slots
    of peers that just went away are released by the server's own threads, a moment later."""
    deadline = time.monotonic() + within
    while True:
        s = _raw(port, payload)
        data = s.recv(4096)
        s.close()
        if b"server busy" not in data or time.monotonic() > deadline:
            return data
        time.sleep(0.05)


def test_hostile_peers_then_a_normal_client(server):
    port = server.port
    reply_to = []
    # 1. garbage: refused with a message, connection closed
    s = _raw(port, os.urandom(64))
    data = s.recv(4096)
    s.close()
    reply_to.append(data)
    assert data[:4] == P.MAGIC and b"bad magic" in data
    # 2. a truncated handshake (half a header), then the peer goes away
    _raw(port, P.MAGIC + b"\x00").close()
    # 3. a valid header announcing a huge body
    assert b"too long" in _reply_once_free(port, P.HEADER.pack(P.MAGIC, P.VERSION, P.KIND_DATA, 1 << 30))
    # 4. a valid header with JSON that is not what the server expects
    # (each asked again while the slots of the peers before it are still being released)
    assert b"token" in _reply_once_free(port, P.pack_message(P.KIND_DATA, {"mode": "sobas", "token": "zz", "duration": 1}))
    assert b"duration" in _reply_once_free(
        port, P.pack_message(P.KIND_DATA, {"mode": "fixed", "token": "0" * 16, "duration": 1e9}))
    # 5. wrong version; unknown kind; results for a token that does not exist
    for msg in (struct.pack("!4sHHI", P.MAGIC, 99, 1, 2) + b"{}", P.pack_message(7, {}),
                P.pack_message(P.KIND_RESULTS, {"token": "0123456789abcdef"})):
        data = _reply_once_free(port, msg)
        assert data[:4] == P.MAGIC and b"server busy" not in data
    # 6. UDP from a stranger (unknown token, garbage) is ignored, never answered
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    u.settimeout(0.5)
    u.sendto(P.pad(P.PROBE.pack(P.PROBE_MAGIC, 12345, 1, 1), P.PROBE_SIZE), ("127.0.0.1", port))
    u.sendto(b"x" * 1500, ("127.0.0.1", port))
    with pytest.raises(TimeoutError):
        u.recvfrom(2048)
    u.close()
    # 7. a connection that goes silent holds a slot until the handshake timeout (1 s) drops it;
    # a second silent one fills the server (max 2), a third is refused as busy
    silent = [_raw(port, b""), _raw(port, P.MAGIC)]
    time.sleep(0.3)
    s = _raw(port, b"")
    assert b"busy" in s.recv(4096)
    s.close()
    for x in silent:
        x.settimeout(3)
        assert x.recv(4096)[:4] == P.MAGIC  # told "timed out" and closed
        x.close()
    assert server.counters["protocol_errors"] >= 8
    assert server.counters["udp_ignored"] >= 2
    # the server still serves a normal client
    rep = run_client(ClientOptions("127.0.0.1", port, duration=1.0))
    assert rep["end"]["sum_received"]["bytes"] > 1_000_000
    assert rep["end"]["retransmits"] is not None


def test_client_that_vanishes_mid_transfer(server):
    s = socket.create_connection(("127.0.0.1", server.port), timeout=3)
    s.sendall(P.pack_message(P.KIND_DATA, {"mode": "autotune", "token": "00000000000000aa", "duration": 30}))
    code, _ = P.read_message(s, time.monotonic() + 3, P.MAX_REPLY)
    assert code == 0
    s.recv(100_000)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    s.close()  # RST
    t = time.monotonic()
    while time.monotonic() - t < 5 and not all(x.done_at for x in server.sessions.values()):
        time.sleep(0.05)
    assert server.sessions[0xAA].summary["end"].startswith("peer closed")
    rep = run_client(ClientOptions("127.0.0.1", server.port, duration=1.0))
    assert rep["end"]["sum_received"]["bytes"] > 0


def _bufsize(*args, **kw):
    return subprocess.run([sys.executable, "-m", "bufsize", *args], capture_output=True, text=True, timeout=60, **kw)


@pytest.mark.parametrize("args,flag", [(["--socket-buffer", "huge"], "--socket-buffer"),
                                       (["--socket-buffer", "fixed:1"], "--socket-buffer"),
                                       (["--duration", "3"], "--duration"), (["--interval", "0s"], "--interval"),
                                       (["--port", "70000"], "--port"),
                                       # the report's destination is checked before the transfer, not after
                                       (["--out", "/no/such/dir/x.json"], "--out"), (["--out", "/"], "--out")])
def test_cli_errors_are_one_line_exit_2(args, flag):
    p = _bufsize("transfer", "client", "127.0.0.1", *args)
    assert p.returncode == 2, p.stderr
    assert p.stderr.startswith("bufsize: error:") and flag in p.stderr and "Traceback" not in p.stderr


def test_fixed_size_in_plain_bytes_as_iperf3(server):
    p = _bufsize("transfer", "client", "127.0.0.1", "--port", str(server.port), "-t", "1s",
                 "--socket-buffer", "fixed:300000", "--json")
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["start"]["sock"]["requested"] == 300000


def test_old_buffer_flag_still_sizes_the_sockets_and_says_it_was_renamed(server):
    # scripts written against `transfer client --buffer MODE` keep working, with one line naming the new flag
    p = _bufsize("transfer", "client", "127.0.0.1", "--port", str(server.port), "-t", "1s", "--buffer",
                 "fixed:300000", "--json")
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["start"]["sock"]["requested"] == 300000
    assert p.stderr.splitlines() == ["bufsize: --buffer is now --socket-buffer (it sizes the sockets' buffers; "
                                     "--buffer is the router's buffer elsewhere); the old name still works for now"]


def test_old_buffer_flag_is_checked_as_the_new_one_and_not_both():
    p = _bufsize("transfer", "client", "127.0.0.1", "--buffer", "huge")
    assert p.returncode == 2 and p.stderr.splitlines()[-1].startswith("bufsize: error: --socket-buffer: expected")
    p = _bufsize("transfer", "client", "127.0.0.1", "--buffer", "sobas", "--socket-buffer", "sobas")
    assert p.returncode == 2 and "give it once (--buffer is its old name)" in p.stderr
    p = _bufsize("transfer", "client", "--help")
    assert "--socket-buffer" in p.stdout and "--buffer" not in p.stdout
    # the new name alone prints no note
    p = _bufsize("transfer", "client", "127.0.0.1", "--socket-buffer", "huge")
    assert p.returncode == 2 and len(p.stderr.splitlines()) == 1


def test_train_dispersion_uses_kernel_timestamps(server):
    rep = run_client(ClientOptions("127.0.0.1", server.port, duration=1.0, mode="sobas"))
    sb = rep["end"]["sobas"]
    assert sb["train_packets"] == 200  # 5 trains of 40 (no loss on loopback)
    assert sb["train_packets_kernel_timestamped"] == sb["train_packets"]
    assert sb["capacity_estimate_Bps"] > 0


def test_cli_refused_connection_is_a_clear_error():
    port = free_port()  # nothing listens there
    p = _bufsize("transfer", "client", "127.0.0.1", "--port", str(port), "-t", "1s")
    assert p.returncode == 2 and "refused" in p.stderr.lower()


def _sigint_default():
    """In the child before exec: Ctrl-C behaves as at a terminal whatever this process does with
    SIGINT (a suite started under ``nohup ... &`` or a CI runner may ignore it, and an ignored
    signal stays ignored across exec, so the child's Python would install no KeyboardInterrupt)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.fixture(params=["inherited", "ignored"])
def caller_sigint(request):
    """Run the test with this process's SIGINT as it is, and with SIGINT ignored."""
    if request.param == "ignored":
        old = signal.signal(signal.SIGINT, signal.SIG_IGN)
        yield request.param
        signal.signal(signal.SIGINT, old)
    else:
        yield request.param


def test_cli_server_and_client_json_and_ctrl_c(tmp_path, caller_sigint):
    port = free_port()
    srv = subprocess.Popen([sys.executable, "-m", "bufsize", "transfer", "server", "--bind", "127.0.0.1",
                            "--port", str(port), "--quiet"], preexec_fn=_sigint_default)
    try:
        wait_for_listener(port, 20)
        out = tmp_path / "r.json"
        p = _bufsize("transfer", "client", "127.0.0.1", "--port", str(port), "-t", "1s", "--socket-buffer", "sobas",
                     "--json", "--out", str(out))
        assert p.returncode == 0, p.stderr
        rep = json.loads(p.stdout)
        assert json.loads(out.read_text()) == rep
        assert set(rep) == {"start", "intervals", "end", "warnings"}
        # Ctrl-C: the summary so far is printed, exit code 130
        c = subprocess.Popen([sys.executable, "-m", "bufsize", "transfer", "client", "127.0.0.1", "--port",
                              str(port), "-t", "30s"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             preexec_fn=_sigint_default)
        first = c.stdout.readline()  # the first interval line: the transfer is running
        assert first.startswith("["), first
        c.send_signal(signal.SIGINT)
        stdout, stderr = c.communicate(timeout=20)
        stdout = first + stdout
        assert c.returncode == 130, stderr
        assert "received" in stdout and "interrupted" in stdout
    finally:
        srv.send_signal(signal.SIGINT)
        try:
            srv.wait(timeout=10)
        except subprocess.TimeoutExpired:
            srv.kill()


class _OneSlot:
    """A server of one slot (stall timeout 1 s, at least 4 MB a second asked of a peer) on a
    thread, and a client that has started a 20-s transfer on it with a 4 KiB receive buffer."""

    def __enter__(self):
        import threading

        from bufsize.transfer.server import Server, ServerOptions

        self.srv = Server(ServerOptions(host="127.0.0.1", port=0, handshake_timeout=1.0, stall_timeout=1.0,
                                        max_clients=1, log=False, min_progress_bytes=4_000_000, chunk=16384))
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.srv.serve, args=(self.stop,), daemon=True)
        self.thread.start()
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        self.sock.connect(("127.0.0.1", self.srv.port))
        self.sock.sendall(P.pack_message(P.KIND_DATA, {"mode": "autotune", "token": "00000000000000ab",
                                                       "duration": 20}))
        assert P.read_message(self.sock, time.monotonic() + 3, P.MAX_REPLY)[0] == 0
        return self

    def ended(self) -> bool:
        return bool(self.srv.sessions.get(0xAB) and self.srv.sessions[0xAB].done_at)

    def end(self) -> str:
        return self.srv.sessions[0xAB].summary["end"]

    def __exit__(self, *exc):
        self.sock.close()
        self.stop.set()
        self.thread.join(timeout=5)


def test_a_peer_that_reads_a_trickle_loses_its_slot():
    """A client that takes far less than the server's progress floor per stall interval is ended
    as "too slow" (and not waited for), so slow readers cannot hold every --max-clients slot."""
    with _OneSlot() as one:
        t0 = time.monotonic()
        while time.monotonic() - t0 < 10 and not one.ended():
            one.sock.recv(65536)  # about 200 kB/s: far below the 4 MB per second the server asks here
            time.sleep(0.3)
        held = time.monotonic() - t0
        assert one.end().startswith("too slow")
        assert held < 5           # not the 20 s the client asked for


def test_a_peer_that_never_reads_loses_its_slot_and_the_next_client_gets_it():
    with _OneSlot() as one:
        t0 = time.monotonic()
        while time.monotonic() - t0 < 10 and not one.ended():
            time.sleep(0.05)      # reads nothing: the server's sends block
        assert one.ended() and time.monotonic() - t0 < 3, "the silent reader held its slot"
        assert one.end() == "stalled" or one.end().startswith("too slow"), one.end()
        rep = run_client(ClientOptions("127.0.0.1", one.srv.port, duration=0.2))
        assert rep["end"]["sum_received"]["bytes"] > 0
