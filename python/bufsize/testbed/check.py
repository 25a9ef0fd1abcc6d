"""``bufsize testbed check``: can this machine run the testbed, and if not, why not."""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass

from bufsize.testbed import netns
from bufsize.testbed.config import CONGESTION_CONTROLS, MAX_LONG_FLOWS, MAX_RATE_BPS, MAX_USERS


@dataclass(frozen=True)
class Item:
    name: str
    ok: bool
    detail: str
    #: False for what only some runs need (tcpdump, for ``testbed run --capture``): missing, it
    #: does not make the testbed unusable, and the report says what is unavailable
    required: bool = True


@dataclass(frozen=True)
class Report:
    items: tuple[Item, ...]

    @property
    def ok(self) -> bool:
        return all(i.ok for i in self.items if i.required)

    @property
    def reasons(self) -> list[str]:
        return [f"{i.name}: {i.detail}" for i in self.items if not i.ok and i.required]

    @property
    def unavailable(self) -> list[str]:
        """What a usable testbed still cannot do here (optional items that failed)."""
        return [f"{i.name}: {i.detail}" for i in self.items if not i.ok and not i.required]

    @property
    def captures(self) -> bool:
        return all(i.ok for i in self.items if i.name == "capture")

    def to_dict(self) -> dict:
        return {"ok": self.ok, "captures": self.captures, "items": [i.__dict__ for i in self.items],
                "limits": {"max_rate_bps": MAX_RATE_BPS, "max_long_flows": MAX_LONG_FLOWS, "max_users": MAX_USERS}}


def check() -> Report:
    """Probe everything the testbed needs; creates (and removes) one scratch namespace."""
    items: list[Item] = []

    def add(name, ok, detail, required=True):
        items.append(Item(name, bool(ok), detail, required))

    root = os.geteuid() == 0
    add("root", root, "running as root" if root else "the testbed needs root (namespaces, tc, TUN)")
    missing = [t for t in ("ip", "tc", "ethtool", "ping") if shutil.which(t) is None]
    add("tools", not missing, "ip, tc, ethtool, ping found" if not missing else
        f"missing {', '.join(missing)} (scripts/install-testbed-deps.sh installs them)")
    tcpdump = shutil.which("tcpdump")
    add("capture", tcpdump is not None, f"tcpdump found ({tcpdump}): testbed run --capture works" if tcpdump else
        "tcpdump not installed: testbed run --capture is unavailable (apt-get install tcpdump)", required=False)
    tun = os.path.exists("/dev/net/tun")
    add("tun", tun, "/dev/net/tun present" if tun else "/dev/net/tun missing (modprobe tun)")
    try:
        with open("/proc/sys/net/ipv4/tcp_available_congestion_control") as f:
            avail = f.read().split()
    except OSError:
        avail = []
    miss_cc = [c for c in CONGESTION_CONTROLS if c not in avail]
    add("congestion_control", not miss_cc, f"available: {' '.join(avail)}" if not miss_cc else
        f"{', '.join(miss_cc)} not available (have {' '.join(avail) or 'none'})")
    ncpu = os.cpu_count() or 1
    add("cpus", ncpu >= 2, f"{ncpu} CPUs; supported: up to {MAX_RATE_BPS / 1e6:g} Mb/s, {MAX_LONG_FLOWS} long flows, "
        f"{MAX_USERS} users" if ncpu >= 2 else f"{ncpu} CPU: the delay element needs a core of its own")
    if root and shutil.which("ip"):
        stale = netns.stale_runs()
        # reported, not a failure: the next run removes them, as does 'bufsize testbed cleanup'
        add("stale_runs", True, "none" if not stale else
            f"{len(stale)} left by a process that is gone: {', '.join(stale)} (the next run removes them; "
            "or 'bufsize testbed cleanup')")
    if not (root and not missing and tun):
        return Report(tuple(items))
    # live probes in a scratch namespace named like a run, so cleanup would catch it too
    rid = netns.new_run_id()
    ns = netns.ns_name(rid, "r")
    try:
        netns.run(["ip", "netns", "add", ns])
        add("netns", True, "network namespaces work")
        try:
            netns.run(["ip", "-n", ns, "link", "add", "name", f"{rid}x", "type", "veth", "peer", "name", f"{rid}y"])
            netns.run(["ip", "-n", ns, "link", "set", "dev", f"{rid}x", "up"])
            add("veth", True, "veth pairs work")
        except netns.CommandError as exc:
            add("veth", False, str(exc))
            return Report(tuple(items))
        try:
            netns.run(["tc", "-n", ns, "qdisc", "replace", "dev", f"{rid}x", "root", "handle", "1:", "htb", "default", "1"])
            netns.run(["tc", "-n", ns, "class", "add", "dev", f"{rid}x", "parent", "1:", "classid", "1:1", "htb",
                       "rate", "50mbit", "ceil", "50mbit", "burst", "15k", "cburst", "15k"])
            netns.run(["tc", "-n", ns, "qdisc", "add", "dev", f"{rid}x", "parent", "1:1", "handle", "10:", "pfifo",
                       "limit", "10"])
            add("qdiscs", True, "htb + pfifo work")
        except netns.CommandError as exc:
            add("qdiscs", False, str(exc))
        try:
            netns.run(["ip", "netns", "exec", ns, "ethtool", "-K", f"{rid}x", "tso", "off", "gso", "off", "gro", "off"])
            add("ethtool", True, "offloads can be switched off")
        except netns.CommandError as exc:
            add("ethtool", False, str(exc))
        try:
            netns.run(["ip", "-n", ns, "tuntap", "add", "dev", f"{rid}t", "mode", "tun"])
            add("tun_device", True, "TUN devices can be created")
        except netns.CommandError as exc:
            add("tun_device", False, str(exc))
        try:
            from bufsize.testbed.topology import find_delay_binary

            add("delay_element", True, " ".join(find_delay_binary()))
        except netns.CommandError as exc:
            add("delay_element", False, str(exc))
    except netns.CommandError as exc:
        add("netns", False, str(exc))
    finally:
        netns.cleanup(rid)
    return Report(tuple(items))
