"""Wire formats of ``bufsize transfer`` (version 1). All integers big-endian.

TCP (control, at the start of every connection the client opens):
    client -> server  ``HELLO``: magic ``BSZT``, version u16, kind u16 (1 = data, 2 = results),
                      length u32 (<= 4096), then that many bytes of UTF-8 JSON (an object)
    server -> client  ``REPLY``: magic ``BSZT``, version u16, status u16 (0 = ok, 1 = refused),
                      length u32 (<= 65536), JSON object
After an ok reply to a data hello the server streams bulk data until the transfer ends, then
closes. A results hello (with the session token) returns the server's per-interval TCP_INFO.

UDP (probes, as SOBAS's periodic probes; 100 bytes on the wire):
    client -> server  ``BSZP`` token u64, seq u32, t_send_ns u64, padding
    server -> client  ``BSZE`` token u64, seq u32, t_send_ns u64, rx_count u32, padding
    server -> client  ``BSZR`` token u64, train u16, index u16, count u16, padding to 1200 bytes
``rx_count`` is how many probes of this session the server has received, so the client can tell a
probe lost on the way out (reverse path) from an echo lost on the way back (forward path).
"""

from __future__ import annotations

import json
import socket
import struct
import time

MAGIC = b"BSZT"
VERSION = 1
KIND_DATA = 1
KIND_RESULTS = 2
MAX_HELLO = 4096
MAX_REPLY = 65536
HEADER = struct.Struct("!4sHHI")

PROBE = struct.Struct("!4sQIQ")
ECHO = struct.Struct("!4sQIQI")
TRAIN = struct.Struct("!4sQHHH")
PROBE_SIZE = 100
TRAIN_SIZE = 1200
PROBE_MAGIC, ECHO_MAGIC, TRAIN_MAGIC = b"BSZP", b"BSZE", b"BSZR"


class ProtocolError(Exception):
    """The peer broke the protocol (bad magic, version, length, JSON) or went silent."""


def recv_exact(sock: socket.socket, n: int, deadline: float) -> bytes:
    """Read exactly ``n`` bytes before ``deadline`` (time.monotonic), else ProtocolError."""
    buf = bytearray()
    while len(buf) < n:
        left = deadline - time.monotonic()
        if left <= 0:
            raise ProtocolError("timed out")
        sock.settimeout(left)
        try:
            chunk = sock.recv(n - len(buf))
        except TimeoutError as exc:
            raise ProtocolError("timed out") from exc
        except OSError as exc:
            raise ProtocolError(f"connection error: {exc}") from exc
        if not chunk:
            raise ProtocolError("connection closed")
        buf += chunk
    return bytes(buf)


def pack_message(kind_or_status: int, body: dict) -> bytes:
    data = json.dumps(body, separators=(",", ":")).encode()
    return HEADER.pack(MAGIC, VERSION, kind_or_status, len(data)) + data


def read_message(sock: socket.socket, deadline: float, max_len: int) -> tuple[int, dict]:
    """Read one header + JSON object; every field is checked before it is used."""
    magic, version, code, length = HEADER.unpack(recv_exact(sock, HEADER.size, deadline))
    if magic != MAGIC:
        raise ProtocolError("bad magic")
    if version != VERSION:
        raise ProtocolError(f"unsupported version {version}")
    if length > max_len:
        raise ProtocolError(f"message too long ({length} > {max_len})")
    try:
        body = json.loads(recv_exact(sock, length, deadline).decode())
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ProtocolError("bad JSON") from exc
    if not isinstance(body, dict):
        raise ProtocolError("JSON is not an object")
    return code, body


def pad(b: bytes, size: int) -> bytes:
    return b + bytes(size - len(b))
