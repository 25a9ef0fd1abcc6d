"""The verified answer is the same whichever way its runs are spread: in this process, on a local
process pool (``--workers``) or on a Dask cluster (``--scheduler``). Each run is one deterministic
simulation of a scenario with its seed, so the search sees the same numbers and takes the same steps."""

import pytest

from bufsize.recommendation import verification as V
from bufsize.recommendation import recommend

# a small link: ~830 packets/s, 10 flows, 33 packets of pipe; each run a few simulated seconds
TINY = dict(capacity="10Mbps", flows=10, rtt="40ms", target_utilization=0.95)


@pytest.fixture(scope="module", autouse=True)
def no_run_cache():
    # every run here must really run on the executor under test, not come from the run cache
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("BUFSIZE_CACHE", "off")
        yield


def _verify(**opts):
    rec = recommend(**TINY)
    return V.verify_recommendation(rec, **opts)


def _fingerprint(ver):
    curve = ver.curve()
    return (ver.status, ver.buffer_packets, ver.runs,
            [tuple(r) for r in curve[["buffer_packets", "seeds", "utilization", "loss_rate"]].itertuples(index=False)],
            {m: d["verdict"] for m, d in ver.verdicts.items()})


@pytest.fixture(scope="module")
def serial():
    ver = _verify(executor="serial")
    assert ver.status in ("verified", "lower-bound") and ver.buffer_packets >= 1
    assert ver.runs >= 3 and len(ver.sizes) >= 1
    return _fingerprint(ver)


def test_process_pool_gives_the_serial_answer(serial):
    assert _fingerprint(_verify(workers=2)) == serial


def test_dask_cluster_gives_the_serial_answer(serial):
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None) as cluster:
        ver = _verify(scheduler=cluster.scheduler_address)
    assert _fingerprint(ver) == serial


def test_recommend_api_passes_workers_to_the_verification(serial):
    rec = recommend(**TINY, verify=True, workers=2)
    assert _fingerprint(rec.verified) == serial
