"""``bufsize traffic``: read a packet capture or flow records and describe the traffic."""

from __future__ import annotations

import contextlib
import json
import math

import click

from bufsize.errors import BufsizeError


def _safe(x):
    if isinstance(x, float) and not math.isfinite(x):
        return None
    if isinstance(x, dict):
        return {k: _safe(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_safe(v) for v in x]
    return x


@contextlib.contextmanager
def _writing(path, flag: str):
    """An output that cannot be written (a full disk, a missing directory, no permission) is a
    one-line error naming the flag, not a traceback."""
    try:
        yield
    except OSError as exc:
        raise BufsizeError(f"cannot write {str(path)!r}: {exc.strerror or exc}", argument=flag) from None


def register(group: click.Group) -> None:
    @group.group("traffic")
    def traffic_group() -> None:
        """Your own traffic: packet captures (pcap, pcapng) and flow records (CSV, Parquet, Zeek conn.log)."""

    @traffic_group.command("summarize")
    @click.argument("file", type=click.Path(dir_okay=False, allow_dash=True))
    @click.option("--capacity", metavar="RATE", help="The link's capacity (loads are shown as a fraction of it).")
    @click.option("--json", "as_json", is_flag=True, help="Print the profile as JSON.")
    @click.option("--save-flows", "flows_out", metavar="FILE", type=click.Path(dir_okay=False),
                  help="Write the per-flow records as Parquet (or CSV if FILE ends in .csv).")
    @click.option("--save-profile", metavar="FILE", type=click.Path(dir_okay=False),
                  help="Write the profile as JSON (an input for --traffic).")
    @click.option("--plot", metavar="FILE", type=click.Path(dir_okay=False),
                  help="Save the load, flow-size and RTT CDF plots (PNG, PDF or SVG by suffix).")
    @click.option("--idle-timeout", metavar="TIME", default="60s", show_default=True,
                  help="A flow with no packet for this long is finished.")
    @click.option("--long-fraction", type=float, default=0.5, show_default=True,
                  help="A TCP flow active for at least this fraction of the capture counts as long-lived.")
    @click.option("--cc", metavar="NAME",
                  help="The senders' congestion control, which a capture cannot show (recorded in the profile) "
                       "[default: the stack profile's, cubic in linux].")
    @click.option("--mix", metavar="MIX", help="A mix of congestion controls, e.g. reno=0.5,cubic=0.5; instead of --cc.")
    @click.option("--progress/--no-progress", default=None, help="Progress bar [default: on for files over 256 MB].")
    def summarize_cmd(file, capacity, as_json, flows_out, save_profile, plot, idle_timeout, long_fraction, cc, mix,
                      progress):
        """Per-flow records and the traffic profile of FILE (a capture may be gzip-compressed;
        - reads one from standard input).

        \b
          bufsize traffic summarize trace.pcap --capacity 10Mbps --plot profile.png --save-flows flows.parquet
          tcpdump -i eth1 -w - -c 100000 | bufsize traffic summarize - --capacity 1Gbps
        """
        from bufsize import traffic, units
        from bufsize.traffic import report

        if not (0 < long_fraction <= 1):
            raise BufsizeError(f"must lie in (0, 1], got {long_fraction:g}", argument="--long-fraction")
        idle = units.parse_time(idle_timeout, argument="--idle-timeout")
        if plot is not None and not str(plot).lower().endswith((".png", ".pdf", ".svg")):
            raise BufsizeError(f"{plot!r}: give a .png, .pdf or .svg file", argument="--plot")
        traffic.congestion_control(None, cc, mix)  # both given, or a malformed mix: refused before reading
        if traffic.kind_of(file) == "profile":
            prof = traffic.load(file, capacity=capacity, cc=cc, mix=mix)
            rec = None
        else:
            rec = traffic.read(file, progress=progress, idle_timeout=idle)
            prof = traffic.profile(rec, capacity=capacity, long_fraction=long_fraction, cc=cc, mix=mix)
        if flows_out is not None and rec is None:
            raise BufsizeError("a saved profile has no per-flow records", argument="--save-flows")
        from bufsize._atomic import atomic_write_text, temp_path

        with _writing(flows_out, "--save-flows"):
            if flows_out is not None and rec is not None:
                # written beside FILE and renamed into place: a full disk leaves no half file
                with temp_path(flows_out) as tmp:
                    if str(flows_out).lower().endswith(".csv"):
                        rec.flows.to_csv(tmp, index=False)
                    else:
                        rec.to_parquet(tmp)
        with _writing(save_profile, "--save-profile"):
            if save_profile is not None:
                atomic_write_text(save_profile, prof.to_json())
        with _writing(plot, "--plot"):
            if plot is not None:
                report.plot(prof, plot)
        if as_json:
            for w in prof.warnings:  # stdout stays JSON; the warnings are in it too
                click.echo(f"bufsize: warning: {w}", err=True)
            d = prof.to_dict()
            if rec is not None:
                d["capture"] = {k: v for k, v in rec.meta.items() if not k.startswith("bin_")}
            click.echo(json.dumps(_safe(d), indent=1))
        else:
            click.echo(report.text(prof, rec.meta if rec is not None else None))
