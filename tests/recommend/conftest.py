"""Fixtures of the recommendation tests."""

import pytest

from bufsize.recommendation import verification as V


@pytest.fixture
def interrupted_after(monkeypatch):
    """``interrupted_after(n)``: every verification run after the first ``n`` raises KeyboardInterrupt
    (Ctrl-C in the middle of a search); ``restore()`` puts the real run back."""
    real = V._task

    def arm(n):
        calls = {"n": 0}

        def dies(job):
            calls["n"] += 1
            if calls["n"] > n:
                raise KeyboardInterrupt
            return real(job)

        monkeypatch.setattr(V, "_task", dies)

    arm.restore = lambda: monkeypatch.setattr(V, "_task", real)
    return arm
