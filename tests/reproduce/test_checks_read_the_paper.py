"""Checks revised to the papers' own sentences (issue 35, "Checks that misread the paper"): each is fed the
value the sentence allows and the value that must fail it."""

from __future__ import annotations

import pandas as pd


def test_003_fig11_checks_the_lowest_drop_rate_below_phi_as_section_viii_says():
    from bufsize.reproduce import fig_003_11 as f

    pr = pd.DataFrame({"setting": ["BDP1", "BDP2", "BDP3"], "loss_rate": [0.021, 0.0040, 0.0062]})
    c = f.lowest_drop_check(pr, 0.01)
    assert c.passed and c.ours == 0.0040 and c.paper == 0.005 and "BDP2" in c.claim
    assert "lowest packet drop rate achieved is 0.005" in c.tolerance
    assert "BDP1 0.0210" in c.claim    # the others are shown, not hidden
    bad = f.lowest_drop_check(pr.assign(loss_rate=[0.021, 0.011, 0.015]), 0.01)
    assert not bad.passed and bad.ours == 0.011
