"""A partial link description is refused (naming what is missing), never completed with the example link."""

import pytest

from bufsize.cli import main
from bufsize.errors import BufsizeError
from bufsize.recommendation import DEFAULTS, parse_input, recommend


@pytest.mark.parametrize("kwargs, missing", [
    (dict(capacity="1Gbps", rtt="40ms"), "--flows"),
    (dict(capacity="1Gbps", flows=50), "--rtt"),
    (dict(rtt="40ms", flows=50), "--capacity"),
    (dict(flows=50), "--capacity"),
    (dict(mix="cubic=1"), "--capacity"),
    (dict(max_window="64pkt", paced=True), "--capacity"),
])
def test_missing_link_quantity_is_an_error_naming_it(kwargs, missing):
    with pytest.raises(BufsizeError) as exc:
        recommend(**kwargs)
    assert str(exc.value).startswith(missing + ": missing")


@pytest.mark.parametrize("args, missing", [
    (["--capacity", "1Gbps", "--rtt", "40ms"], "--flows"),
    (["--capacity", "1Gbps", "--flows", "50"], "--rtt"),
    (["--rtt", "10ms..40ms", "--flows", "50", "--max-delay", "5ms"], "--capacity"),
])
def test_cli_partial_description_exits_2_with_one_line(args, missing, capsys):
    assert main(["recommend", *args]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"bufsize: error: {missing}: missing") and "\n" not in err


def test_a_bad_value_is_named_before_a_missing_quantity():
    with pytest.raises(BufsizeError, match="^--mix"):
        recommend(mix="reno=0.5,cubic=0.4")
    with pytest.raises(BufsizeError, match="^--capacity"):
        recommend(capacity="0bps", flows=5)


def test_bare_call_uses_the_example_link_and_says_so():
    inp = parse_input()
    assert inp.example_link
    assert inp.capacity_bps == 1e9 and inp.flows == DEFAULTS["flows"] == 100
    assert (inp.rtt_min_s, inp.rtt_max_s) == pytest.approx((0.010, 0.050))
    assert any("no link described: the example link" in a and "--capacity 1Gbps" in a for a in inp.assumed)


def test_goals_alone_still_mean_the_example_link():
    inp = parse_input(max_delay="5ms")
    assert inp.example_link and inp.max_delay_s == pytest.approx(0.005)


def test_short_flows_alone_need_no_flow_count():
    inp = parse_input(capacity="100Mbps", rtt="50ms", short_flows="14pkt", short_load=0.2)
    assert inp.flows is None and not inp.example_link


def test_sound_defaults_are_printed_as_assumed(capsys):
    assert main(["recommend", "--capacity", "1Gbps", "--flows", "50", "--rtt", "10ms..40ms"]) == 0
    err = capsys.readouterr().err
    assert "assumed 1500-byte packets" in err and "assumed a utilization goal of 99%" in err
    assert main(["recommend", "--capacity", "1Gbps", "--flows", "50", "--rtt", "10ms..40ms", "--packet-size",
                 "1500B", "--target-utilization", "0.98"]) == 0
    assert "assumed" not in capsys.readouterr().err


def test_complete_description_is_not_the_example():
    inp = parse_input(capacity="1Gbps", flows=50, rtt="40ms", packet_size="9000B", target_utilization=0.95)
    assert not inp.example_link and inp.assumed == ()
