"""Suite-wide settings: the verification's run cache (bufsize.experiments.runcache) lives in a
directory of this test session, so no result of an earlier session or of the user's own runs is read."""

import os
import tempfile

import pytest


def pytest_configure(config):
    if "BUFSIZE_CACHE_DIR" not in os.environ:
        d = tempfile.mkdtemp(prefix="bufsize-test-runcache-")
        os.environ["BUFSIZE_CACHE_DIR"] = d
        config._bufsize_cache_dir = d


def pytest_unconfigure(config):
    d = getattr(config, "_bufsize_cache_dir", None)
    if d:
        import shutil

        shutil.rmtree(d, ignore_errors=True)


@pytest.fixture
def empty_run_cache(tmp_path, monkeypatch):
    """A run cache of the test's own (on even where the caller's environment switched it off)."""
    monkeypatch.delenv("BUFSIZE_CACHE", raising=False)
    monkeypatch.setenv("BUFSIZE_CACHE_DIR", str(tmp_path / "runcache"))
    return tmp_path / "runcache"
