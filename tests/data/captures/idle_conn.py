"""Idle, interactive TCP connections for a testbed capture (run by make_captures.py in the testbed's
namespaces): a few bytes now and then over a connection that stays open for the whole run, as
iperf3's control connection, SSH or a BGP session carries.

    python idle_conn.py server PORT
    python idle_conn.py client SRC DST PORT --every S --bytes N --for T

The server answers each message with 8 bytes; the client sends N bytes every S seconds for T
seconds, then closes (FIN both ways).
"""

from __future__ import annotations

import argparse
import socket
import threading
import time


def serve(port: int) -> None:
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("0.0.0.0", port))
    ls.listen(16)

    def one(c: socket.socket) -> None:
        with c:
            while True:
                d = c.recv(4096)
                if not d:
                    return
                c.sendall(b"ok......")

    while True:
        c, _ = ls.accept()
        threading.Thread(target=one, args=(c,), daemon=True).start()


def client(src: str, dst: str, port: int, every: float, nbytes: int, total: float) -> None:
    deadline = time.monotonic() + 5.0
    while True:
        try:
            s = socket.create_connection((dst, port), timeout=1.0, source_address=(src, 0))
            break
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    end = time.monotonic() + total
    while time.monotonic() < end:
        s.sendall(b"x" * nbytes)
        s.recv(64)
        time.sleep(every)
    s.shutdown(socket.SHUT_WR)
    while s.recv(64):
        pass
    s.close()


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("role", choices=("server", "client"))
    ap.add_argument("args", nargs="*")
    ap.add_argument("--every", type=float, default=2.0)
    ap.add_argument("--bytes", type=int, default=100)
    ap.add_argument("--for", dest="total", type=float, default=12.0)
    a = ap.parse_args()
    if a.role == "server":
        serve(int(a.args[0]))
    else:
        client(a.args[0], a.args[1], int(a.args[2]), a.every, a.bytes, a.total)
