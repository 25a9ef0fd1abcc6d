"""``traffic summarize --plot``: no two tick labels of an axis overlap, judged on the rendered figure
by matplotlib's own text extents (Agg). The loopback capture's RTTs all lie within a microsecond,
which once labelled a few-microsecond axis at every tenth of one, the labels run together."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from bufsize import traffic  # noqa: E402
from bufsize.plots._ticks import overlapping_ticklabels, untangle_ticks  # noqa: E402
from bufsize.traffic import report  # noqa: E402

CAPTURES = Path(__file__).resolve().parents[1] / "data" / "captures"


@pytest.mark.parametrize("name", ["loopback_iperf3.pcap", "reno4_long.pcap", "reno3_users3.pcap"])
def test_summarize_plot_tick_labels_do_not_overlap(name):
    fig = report.figure(traffic.load(CAPTURES / name, capacity="10Mbps"))
    try:
        assert overlapping_ticklabels(fig) == []
    finally:
        plt.close(fig)


def test_crowded_labels_are_caught_and_untangled():
    fig, ax = plt.subplots(figsize=(3, 2))
    ax.plot([0.0066, 0.0074], [0, 1])
    ax.set_xticks([0.0066 + 0.0001 * k for k in range(9)])
    ax.xaxis.set_major_formatter(matplotlib.ticker.FormatStrFormatter("%.4f"))
    try:
        assert overlapping_ticklabels(fig)          # the check sees the crowding
        untangle_ticks(fig)
        assert overlapping_ticklabels(fig) == []
        assert len([t for t in ax.get_xticklabels() if t.get_text()]) >= 2
    finally:
        plt.close(fig)


def test_the_command_still_writes_the_plot(tmp_path):
    from bufsize.cli import main

    out = tmp_path / "profile.png"
    assert main(["traffic", "summarize", str(CAPTURES / "loopback_iperf3.pcap"), "--plot", str(out)]) == 0
    assert out.stat().st_size > 1000
