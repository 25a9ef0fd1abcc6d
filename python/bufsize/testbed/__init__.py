"""The real-kernel testbed: Linux TCP through a router with a B-packet drop-tail buffer.

Network namespaces for senders, router and receivers; an htb + pfifo bottleneck; a userspace
delay element (Rust, TUN) for per-flow round-trip times; a small kernel-TCP traffic generator;
fidelity checks before and after every run. See ``docs/testbed.md``.

Python API::

    from bufsize import testbed
    testbed.check()                                  # can this machine run it? (reasons if not)
    cfg = testbed.TestbedConfig.dumbbell(rate="50Mbps", rtt="70ms", buffer="0.25bdp", flows=1)
    point = testbed.run(cfg, repeats=3)              # accepted runs, or rejected with reasons
    point.aggregate()["utilization"]                 # mean and 95 % confidence interval
    testbed.cleanup()                                # remove what a crashed run left behind
"""

from bufsize.testbed.config import Flow, Limits, TestbedConfig, User
from bufsize.testbed.netns import cleanup

__all__ = ["TestbedConfig", "Flow", "User", "Limits", "check", "run", "run_once", "cleanup"]


# Loading the submodule bufsize.testbed.check binds it as this package's attribute ``check``; it
# is loaded here, once, so that the function below replaces that binding for good (imported
# inside the function, the first call turned ``testbed.check`` into the module).
from bufsize.testbed import check as _check_module  # noqa: E402


def check():
    """Whether this machine can run the testbed (a report: ``.ok``, ``.reasons``, ``.items``)."""
    return _check_module.check()


def run(cfg, **kw):
    from bufsize.testbed.runner import run as _run

    return _run(cfg, **kw)


def run_once(cfg, **kw):
    from bufsize.testbed.runner import run_once as _run_once

    return _run_once(cfg, **kw)
