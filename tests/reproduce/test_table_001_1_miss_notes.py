"""001 Table I's miss notes speak of the cell and column they are about (issue 35, "Defects in the items")."""

from __future__ import annotations

import pandas as pd

from bufsize.reproduce import table_001_1 as t
from bufsize.reproduce._core import Check

CELLS = (("30", 625), ("70", 313), ("100", 1250))


def _inputs():
    rows, paths, runs = [], {}, []
    for load, bt in CELLS:
        paper = t.PAPER[load, bt]
        row = {"load_pct": int(load), "buffer_packets": bt, "MFT_socket_buffer_packets": 300,
               "sobas_congested": False, "sobas_limit_bytes": 300e3}
        row.update({c: (float("nan") if pv is None else pv * 0.5) for c, pv in zip(t.COLUMNS, paper)})
        rows.append(row)
        paths[load, bt] = {"A_mbps": 14.3, "Te_ms": 118.0, "BTC_mbps": 7.7, "Ta_ms": 140.0, "max_Wc_packets": 412.0,
                           "target_loss_rate_unlimited": 0.0123, "BDP1": 625.0, "BDP2": 740.0, "BDP3": 179.0,
                           "BDP4": 211.0, "BDP5": 130.0}
        for name in ("BDP1", "BDP2", "BDP3", "BDP4", "BDP5", "SOBAS"):
            runs.append({"load": load, "buffer_packets": bt, "scheme": name, "socket_buffer_packets": None,
                         "target_drops": 33, "sobas_congested": False, "sobas_limit_bytes": 300e3})
        for s in (250, 300, 400):
            runs.append({"load": load, "buffer_packets": bt, "scheme": "sweep", "socket_buffer_packets": s,
                         "target_drops": 0 if s < 400 else 5, "sobas_congested": None, "sobas_limit_bytes": None})
    return rows, pd.DataFrame(runs), paths


def _miss(load, bt, col):
    pv = t.PAPER[load, bt][t.COLUMNS.index(col)]
    return Check(f"ρt {load} %, Bt = {bt}: {col} = {pv} Mb/s", pv, pv * 0.5, "t", False)


def _note(load, bt, col):
    rows, runs, paths = _inputs()
    (n,) = t._miss_notes([_miss(load, bt, col)], rows, runs, paths)
    return n


def test_c_tm_miss_quotes_the_no_reverse_run_of_its_own_cell_only():
    n = _note("70", 313, "C·Tm")
    assert "this cell's C·Tm measured 19.5 Mb/s" in n and "26.1" not in n
    n = _note("30", 625, "C·Tm")   # never measured without reverse traffic
    assert "26.1" not in n and "19.5" not in n and "not measured without it" in n
    n = _note("100", 1250, "C·Te")
    assert "26.1" not in n and "19.5" not in n and "C·Te was not measured without it" in n


def test_s_above_max_wc_miss_is_not_called_a_computed_cap():
    n = _note("70", 313, "S>maxWc")
    assert "computed from the measured" not in n.lower()
    assert "no socket-buffer limit" in n and "max Wc = 412" in n and "1.23%" in n and "19.4 Mb/s" in n


def test_a_tm_miss_names_the_inputs_of_its_cap():
    n = _note("70", 313, "A·Tm")
    assert "A·Tm = 179 packets is computed from the measured A = 14.3 Mb/s and Tm = 100 ms" in n
    n = _note("70", 313, "A·Te")
    assert "A·Te = 211 packets is computed from the measured A = 14.3 Mb/s and Te = 118 ms" in n
