"""`bufsize compare` for BBR: the kernel's bbr has a simulator twin (no root needed)."""

from __future__ import annotations

from bufsize.testbed.compare import simulator_twin
from bufsize.testbed.compare import testbed_from_scenario as to_testbed
from bufsize.testbed.config import TestbedConfig


def test_bbr_has_a_twin_that_runs():
    from bufsize.simulate import simulate

    cfg = TestbedConfig.dumbbell(rate="10Mbps", rtt="40ms..100ms", buffer="0.25bdp", flows=4, cc="bbr",
                                 duration="20s", warmup="5s")
    tw = simulator_twin(cfg)
    tcp = tw.to_dict()["dumbbell"]["tcp"]
    # Linux's BBR runs with SACK (the kernel default) and paces; the twin's BBR likewise.
    assert (tcp["cc"], tcp["sack"]) == ("bbr", True)
    assert to_testbed(tw) == cfg
    r = simulate(tw, progress=False)
    # BBR keeps a 0.25-BDP link busy (it does not back off on its probes' losses).
    assert 0.9 < r.summary["utilization"] <= 1.0


def test_sack_off_reaches_the_senders_namespace_and_the_twin():
    import pytest

    from bufsize.errors import BufsizeError

    cfg = TestbedConfig.dumbbell(rate="50Mbps", rtt="40ms", buffer="0.1bdp", flows=20, sack=False)
    assert "net.ipv4.tcp_sack=0" in cfg.sender_sysctls and cfg.sack is False
    t = simulator_twin(cfg).to_dict()["dumbbell"]["tcp"]
    assert (t["sack"], t["prr"]) == (False, False)
    # The sysctl given directly means the same; the default leaves the kernel's SACK on.
    direct = TestbedConfig.dumbbell(rate="50Mbps", rtt="40ms", buffer=25, sender_sysctls=("net.ipv4.tcp_sack=0",))
    assert direct.sack is False and direct.sender_sysctls.count("net.ipv4.tcp_sack=0") == 1
    on = TestbedConfig.dumbbell(rate="50Mbps", rtt="40ms", buffer=25)
    assert on.sack is True and on.sender_sysctls == ()
    assert simulator_twin(on).to_dict()["dumbbell"]["tcp"]["sack"] is True
    with pytest.raises(BufsizeError):
        TestbedConfig.dumbbell(rate="50Mbps", rtt="40ms", buffer=25, sack="no")


def test_cli_offers_no_sack(capsys):
    from bufsize.cli import main

    for cmd in (["testbed", "run", "--help"], ["compare", "--help"]):
        try:
            code = main(cmd)
        except SystemExit as e:  # click may exit after printing help
            code = e.code
        assert code in (0, None)
        assert "--no-sack" in capsys.readouterr().out, cmd
