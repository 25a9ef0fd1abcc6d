"""``bufsize transfer``: a real bulk TCP transfer (server sends, client receives) with SOBAS.

``bufsize transfer server [--port P]`` and ``bufsize transfer client HOST [--duration T | --bytes N]
--socket-buffer autotune|fixed:SIZE|sobas [--json] [--interval 1s]``; see docs/transfer.md.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from typing import TYPE_CHECKING, Callable

import click

from bufsize.commands._options import RenamedOption
from bufsize.errors import BufsizeError

if TYPE_CHECKING:
    from bufsize.transfer.client import ClientOptions


def _parse_socket_buffer(text: str) -> tuple[str, int | None]:
    from bufsize.units import parse_size

    t = text.strip().lower()
    if t in ("autotune", "sobas"):
        return t, None
    if t.startswith("fixed:"):
        raw = text.split(":", 1)[1].strip()
        size = int(raw) if raw.isdigit() else parse_size(raw, argument="--socket-buffer")  # bare number: bytes
        if not 1024 <= size <= 1 << 30:
            raise BufsizeError(f"--socket-buffer: fixed size must be between 1 KiB and 1 GiB, got {text.split(':', 1)[1]}")
        return "fixed", int(size)
    raise BufsizeError(f"--socket-buffer: expected autotune, fixed:SIZE (e.g. fixed:625KB) or sobas, got {text!r}")


def _port(value: int, flag: str = "--port") -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 65535:
        raise BufsizeError(f"{flag}: expected 0..65535, got {value}")
    return value


@click.group(name="transfer")
def transfer_group() -> None:
    """Real bulk TCP transfer between two hosts (server sends, client receives), with SOBAS."""


@transfer_group.command(name="server")
@click.option("--port", type=int, default=5301, show_default=True, help="TCP and UDP port.")
@click.option("--bind", "host", default="0.0.0.0", show_default=True, help="Address to listen on.")
@click.option("--max-clients", type=int, default=4, show_default=True, help="Concurrent transfers; more are refused.")
@click.option("--one-off", is_flag=True, help="Exit after one transfer has finished (as iperf3 -1).")
@click.option("--handshake-timeout", default="5s", show_default=True, help="Deadline for a client's hello.")
@click.option("--quiet", is_flag=True, help="Do not log connections.")
def server_cmd(port: int, host: str, max_clients: int, one_off: bool, handshake_timeout: str, quiet: bool) -> None:
    """Serve transfers until Ctrl-C."""
    serve(port, host, max_clients, one_off, handshake_timeout, quiet)


def serve(port: int, host: str, max_clients: int, one_off: bool, handshake_timeout: str | float, quiet: bool,
          stop: threading.Event | None = None) -> dict:
    """``transfer server``: check the arguments (errors name the flags), listen, serve until ``stop``
    is set, Ctrl-C, or (``one_off``) the first transfer's results were fetched; the server's counters."""
    from bufsize.transfer.server import Server, ServerOptions
    from bufsize.units import parse_time

    if isinstance(max_clients, bool) or not isinstance(max_clients, int) or not 1 <= max_clients <= 256:
        raise BufsizeError(f"--max-clients: expected 1..256, got {max_clients}")
    hs = parse_time(handshake_timeout, argument="--handshake-timeout")
    try:
        srv = Server(ServerOptions(host=host, port=_port(port), max_clients=max_clients, handshake_timeout=hs,
                                   log=not quiet))
    except OSError as exc:
        raise BufsizeError(f"--port: cannot listen on {host} port {port}: {exc.strerror or exc}") from exc
    stop = stop or threading.Event()
    if one_off:
        def watch() -> None:
            while not stop.wait(0.1):
                # done when every transfer ended and its results were fetched (or 10 s went by)
                now = time.monotonic()
                if srv.counters["transfers"] > 0 and all(
                        s.done_at is not None and (s.fetched or now - s.done_at > 10.0)
                        for s in list(srv.sessions.values())):
                    time.sleep(0.2)  # let the results reply leave
                    stop.set()
        threading.Thread(target=watch, daemon=True).start()
    try:
        srv.serve(stop)
    except KeyboardInterrupt:
        stop.set()
        click.echo("bufsize transfer server: stopped", err=True)
    finally:
        srv.close()
    return dict(srv.counters)


def _fmt_interval(r: dict) -> str:
    from bufsize.units import format_rate, format_size

    rtt = r.get("srtt_ms") or r.get("rcv_rtt_ms") or 0.0
    s = (f"[{r['start']:7.2f}-{r['end']:7.2f} s] {format_size(r['bytes']):>10} {format_rate(r['bits_per_second']):>11}"
         f"  rtt {rtt:6.1f} ms  rcvbuf {r['rcvbuf']:>9}  clamp {r['window_clamp']:>9}")
    if "sobas_limit" in r:
        s += f"  sobas {r['sobas_limit']:>9} {r['sobas_phase']}"
    return s


def print_summary(rep: dict) -> None:
    from bufsize.units import format_rate, format_size

    e = rep["end"]
    s = e["sum_received"]
    click.echo(f"received {format_size(s['bytes'])} in {s['seconds']:.2f} s: {format_rate(s['bits_per_second'])}"
               f" goodput; retransmissions {e['retransmits'] if e['retransmits'] is not None else 'n/a'}"
               f" ({e['reason']})")
    sb = e.get("sobas")
    if sb:
        for d in sb["decisions"]:
            kind = "congested path: limit left at the maximum" if d["congested"] else "limit = R·T"
            click.echo(f"sobas: rate saturation at {d['t']:.1f} s, R = {format_rate(8 * d['rate'])}, "
                       f"T = {1e3 * d['rtt']:.1f} ms -> {kind} = {d['limit']} B")
        if not sb["decisions"]:
            click.echo(f"sobas: no rate saturation detected (phase {sb['phase']}, limit {sb['final_limit']} B)")
    for w in rep["warnings"]:
        click.echo(f"warning: {w}")


def _check_out(out: str) -> None:
    """The report's destination can be written: its folder exists and is writable, and it is not a folder."""
    folder = os.path.dirname(os.path.abspath(out))
    if os.path.isdir(out):
        raise BufsizeError(f"{out} is a folder; give a file name", argument="--out")
    if not os.path.isdir(folder):
        raise BufsizeError(f"no folder {folder} to write the report in", argument="--out")
    if not os.access(folder, os.W_OK) or (os.path.exists(out) and not os.access(out, os.W_OK)):
        raise BufsizeError(f"cannot write {out} (permission denied)", argument="--out")


@transfer_group.command(name="client")
@click.argument("host")
@click.option("--port", type=int, default=5301, show_default=True)
@click.option("--duration", "-t", default=None, help="Transfer length in time (default 10s).")
@click.option("--bytes", "-n", "nbytes", default=None, help="Transfer length in bytes (e.g. 100MB).")
@click.option("--socket-buffer", "socket_buffer", default="autotune", show_default=True, cls=RenamedOption,
              old="--buffer", why="it sizes the sockets' buffers; --buffer is the router's buffer elsewhere",
              metavar="autotune|fixed:SIZE|sobas",
              help="How the sockets' buffers are sized: kernel autotuning, fixed:SIZE (SO_SNDBUF/SO_RCVBUF on both "
                   "ends, as iperf3 -w) or sobas (paper 001's auto-sizing).")
@click.option("--interval", "-i", default="1s", show_default=True, help="Report interval.")
@click.option("--rtt-source", type=click.Choice(["probes", "tcp-info"]), default="probes", show_default=True,
              help="SOBAS's RTT: UDP probes (the paper) or the kernel's receiver RTT estimate.")
@click.option("--slope-tolerance", type=float, default=0.5, show_default=True,
              help="SOBAS 'slope ≈ 0' threshold, in MSS per RTT² (see docs/transfer.md).")
@click.option("--readjust", is_flag=True, help="SOBAS: re-adjust after the first decision (not in the paper).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON report at the end (schema in docs/transfer.md).")
@click.option("--out", type=click.Path(dir_okay=False), default=None, help="Also write the JSON report to this file.")
def client_cmd(host: str, port: int, duration: str | None, nbytes: str | None, socket_buffer: str, interval: str,
               rtt_source: str, slope_tolerance: float, readjust: bool, as_json: bool, out: str | None) -> None:
    """Receive a bulk transfer from a `bufsize transfer server` on HOST."""
    from bufsize._json import json_safe

    opts = client_options(host, port, duration, nbytes, socket_buffer, interval, rtt_source, slope_tolerance, readjust,
                          out)
    show = None if as_json else (lambda r: click.echo(_fmt_interval(r)))
    rep = receive(opts, show)
    text = json.dumps(json_safe(rep), indent=1)
    if out:
        write_report(text, out)
    if as_json:
        click.echo(text)
    else:
        print_summary(rep)
    if rep["end"]["interrupted"]:
        sys.stdout.flush()
        raise click.exceptions.Exit(130)


def client_options(host: str, port: int, duration: str | float | None, nbytes: str | int | None, socket_buffer: str,
                   interval: str | float, rtt_source: str, slope_tolerance: float, readjust: bool,
                   out: str | None) -> ClientOptions:
    """``transfer client``'s arguments checked before connecting (errors name the flags)."""
    from bufsize.transfer.client import ClientOptions
    from bufsize.units import parse_size, parse_time

    mode, size = _parse_socket_buffer(socket_buffer)
    if out:   # checked before the transfer, not after it (a report that cannot be written is lost)
        _check_out(out)
    if duration is not None and nbytes is not None:
        raise BufsizeError("--duration/--bytes: give one, not both")
    dur = parse_time(duration, argument="--duration") if duration is not None else (None if nbytes else 10.0)
    if dur is not None and dur > 3600:
        raise BufsizeError(f"--duration: at most 3600 s, got {duration}")
    nb = int(parse_size(nbytes, argument="--bytes")) if nbytes is not None else None
    iv = parse_time(interval, argument="--interval")
    if not 0.05 <= iv <= 60:
        raise BufsizeError(f"--interval: expected 50ms..60s, got {interval}")
    if rtt_source not in ("probes", "tcp-info"):
        raise BufsizeError(f"--rtt-source: expected probes or tcp-info, got {rtt_source!r}")
    if not slope_tolerance >= 0:
        raise BufsizeError(f"--slope-tolerance: expected a number ≥ 0, got {slope_tolerance}")
    return ClientOptions(host=host, port=_port(port), duration=dur, nbytes=nb, mode=mode, size=size, interval=iv,
                         rtt_source=rtt_source, slope_tolerance=slope_tolerance, readjust=readjust)


def write_report(text: str, out: str) -> None:
    """The JSON report to ``out``, whole or not at all."""
    tmp = f"{out}.tmp{os.getpid()}"
    with open(tmp, "w") as f:
        f.write(text + "\n")
    os.replace(tmp, out)


def receive(opts: ClientOptions, on_interval: Callable[[dict], None] | None) -> dict:
    """Run the transfer :func:`client_options` accepted; its report (errors as one line)."""
    from bufsize.transfer.client import run_client
    from bufsize.transfer.protocol import ProtocolError

    try:
        return run_client(opts, on_interval=on_interval)
    except ProtocolError as exc:
        raise BufsizeError(f"{opts.host}: {exc}") from exc
    except OSError as exc:
        raise BufsizeError(f"{opts.host} port {opts.port}: {exc.strerror or exc}") from exc


def register(app: click.Group) -> None:
    app.add_command(transfer_group)
