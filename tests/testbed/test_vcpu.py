"""Guest halt polling around runs (bufsize.testbed.vcpu), on a fake parameter directory."""

import json

import pytest

from bufsize.testbed import vcpu


@pytest.fixture
def params(tmp_path):
    d = tmp_path / "params"
    d.mkdir()
    (d / "guest_halt_poll_ns").write_text("0\n")
    (d / "guest_halt_poll_allow_shrink").write_text("Y\n")
    return d


def _values(d):
    return {f.name: f.read_text().strip() for f in d.iterdir()}


def test_enable_sets_and_restore_puts_back(params, tmp_path):
    work = tmp_path / "work"
    hp = vcpu.enable(1_000_000, work, params)
    assert hp.state == "set" and hp.poll_ns == 1_000_000
    assert _values(params) == {"guest_halt_poll_ns": "1000000", "guest_halt_poll_allow_shrink": "N"}
    assert json.loads((work / "haltpoll.json").read_text())["guest_halt_poll_ns"] == "0"
    # a second, concurrent run neither saves nor restores
    other = vcpu.enable(2_000_000, work, params)
    assert other.state == "shared"
    vcpu.restore(other, params)
    assert _values(params)["guest_halt_poll_ns"] == "1000000"
    vcpu.restore(hp, params)
    assert _values(params) == {"guest_halt_poll_ns": "0", "guest_halt_poll_allow_shrink": "Y"}
    assert not (work / "haltpoll.json").exists()


def test_off_and_unavailable_touch_nothing(params, tmp_path):
    assert vcpu.enable(None, tmp_path, params).state == "off"
    missing = vcpu.enable(1_000_000, tmp_path, tmp_path / "nope")
    assert missing.state == "unavailable" and "haltpoll" in missing.detail
    assert _values(params)["guest_halt_poll_ns"] == "0"
    assert not (tmp_path / "haltpoll.json").exists()


def test_restore_after_a_crash(params, tmp_path):
    vcpu.enable(500_000, tmp_path, params)  # the run dies without restoring
    assert _values(params)["guest_halt_poll_ns"] == "500000"
    assert vcpu.restore_from(tmp_path / "haltpoll.json", params)
    assert _values(params)["guest_halt_poll_ns"] == "0"
    assert not vcpu.restore_from(tmp_path / "haltpoll.json", params)


def test_config_and_flag_validate_the_poll_time(capsys):
    from bufsize.cli import main
    from bufsize.testbed.config import TestbedConfig

    cfg = TestbedConfig.dumbbell(rate="50Mbps", rtt="40ms", buffer="1bdp")
    assert cfg.halt_poll_ns == 1_000_000
    with pytest.raises(ValueError, match="halt_poll"):
        cfg.replace(halt_poll_ns=-1)
    assert main(["testbed", "run", "--halt-poll", "soon"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("bufsize: error: --halt-poll") and "\n" not in err
