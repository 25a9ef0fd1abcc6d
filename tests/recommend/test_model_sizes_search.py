"""The binary search over the models' sizes: which sizes it runs."""

from bufsize.recommendation import verification as V


class _Verdict:
    def __init__(self, meets):
        self.verdict = "meets" if meets else "fails"


def _search(need):
    """A search whose sizes meet from ``need`` packets up, recording the sizes it evaluates."""
    srch = V._Search.__new__(V._Search)
    srch.tried = []

    def evaluate(sizes, goals):
        srch.tried.extend(sizes)
        return {b: _Verdict(b >= need) for b in sizes}

    srch.evaluate = evaluate
    return srch


def test_models_that_nearly_agree_are_tried_smallest_first_and_the_others_follow_from_it():
    # 1 113 and 1 119 packets (two models half a percent apart): the smaller one meets, so the
    # larger one does too without a run of its own
    srch = _search(need=30)
    assert srch.first_meeting([502, 1113, 1119, 249143, 354166], goals=None) == (None, 502)
    assert srch.tried == [1113, 502]
    # where the smaller one fails the larger one is still run
    srch = _search(need=1116)
    assert srch.first_meeting([502, 1113, 1119, 249143, 354166], goals=None) == (1113, 1119)
    assert srch.tried == [1113, 249143, 1119]
    # sizes apart are bisected as before
    srch = _search(need=600)
    assert srch.first_meeting([100, 300, 900, 2700], goals=None) == (300, 900)
    assert srch.tried == [900, 300]
