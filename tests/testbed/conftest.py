"""Live testbed tests run only where ``bufsize testbed check`` passes; elsewhere they are skipped
with the check's reasons."""

from __future__ import annotations

import pytest

_REPORT = None


def _report():
    global _REPORT
    if _REPORT is None:
        from bufsize.testbed.check import check

        _REPORT = check()
    return _REPORT


@pytest.fixture(autouse=True)
def _skip_without_testbed(request):
    if request.node.get_closest_marker("testbed") is not None:
        rep = _report()
        if not rep.ok:
            pytest.skip("testbed not usable here ('bufsize testbed check'): " + "; ".join(rep.reasons))
