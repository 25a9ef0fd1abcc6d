"""``bufsize fit`` and ``fit_sweep`` take a table of runs as a CSV or Parquet file, not only a
sweep directory; an unreadable file is a one-line error with exit code 2, never a traceback."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import bufsize
from bufsize.cli import main
from bufsize.errors import BufsizeError

B = np.repeat([5, 10, 20, 40, 80, 160], 3).astype(float)


def _runs() -> pd.DataFrame:
    rng = np.random.default_rng(3)
    p = 0.2 * B ** -0.5 * np.exp(0.1 * rng.standard_normal(len(B)))
    d = 0.4 * B / 1250.0
    return pd.DataFrame({"buffer_packets": B, "loss_rate": p, "queue_delay_mean_s": d, "status": "ok",
                         "capacity_pps": 1250.0, "rtt_mean_s": 0.1, "flows": 400})


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_fit_reads_a_table_file(tmp_path, capsys, suffix):
    f = tmp_path / f"results{suffix}"
    t = _runs()
    t.to_csv(f, index=False) if suffix == ".csv" else t.to_parquet(f, index=False)
    assert main(["fit", str(f), "--json", "--loss", "pl"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert res["loss"]["b"]["value"] == pytest.approx(0.5, abs=0.1)   # the exponent the runs were drawn with
    assert res["delay"]["f"]["value"] == pytest.approx(0.4, rel=1e-6)
    # and from Python, with the same result as from the DataFrame itself
    via_file = bufsize.fit_sweep(f, loss="pl", where={"flows": 400})
    via_frame = bufsize.fit_sweep(t, loss="pl")
    assert via_file.loss.b.value == pytest.approx(via_frame.loss.b.value)


def test_an_unreadable_or_wrong_table_is_one_line(tmp_path, capsys):
    bad = tmp_path / "results.csv"
    bad.write_bytes(b"\x00\x01 not a table")
    rc = main(["fit", str(bad)])
    err = capsys.readouterr().err
    assert rc == 2 and err.count("\n") == 1 and "Traceback" not in err and "no column 'buffer_packets'" in err
    pq = tmp_path / "broken.parquet"
    pq.write_bytes(b"PAR1 truncated")
    rc = main(["fit", str(pq)])
    err = capsys.readouterr().err
    assert rc == 2 and err.count("\n") == 1 and "cannot read" in err and "Parquet" in err
    other = tmp_path / "runs.xlsx"
    other.write_text("x")
    assert main(["fit", str(other)]) == 2
    assert ".csv or .parquet" in capsys.readouterr().err


def test_python_errors_name_the_keyword_not_the_cli(tmp_path):
    with pytest.raises(BufsizeError, match=r"^table: .* does not exist"):
        bufsize.fit_sweep(tmp_path / "nope.csv")
    with pytest.raises(BufsizeError, match=r"^loss: unknown loss form"):
        bufsize.fit_sweep(_runs(), loss="quadratic")
