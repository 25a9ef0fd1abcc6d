"""001-TableI's per-cell SOBAS note: it states the train estimate, the initial limit, the early losses and the
decision, and says why a non-congested path got no limit only when the measurements show it."""

from __future__ import annotations

import pandas as pd

from bufsize.reproduce import table_001_1 as t

PATH = {"A_mbps": 14.3, "cross_loss_rate": 0.0}


def _runs(*, congested: bool, probes_lost: int, early_losses: int, t_dec: float, consistent: bool = True):
    base = {"load": "70", "buffer_packets": 313, "socket_buffer_packets": None, "goodput_mbps": 15.0}
    sob = dict(base, scheme="SOBAS", target_drops=150, sobas_phase="congested" if congested else "adjusted",
               sobas_capacity_estimate_mbps=33.0, sobas_initial_limit_bytes=430e3, sobas_forward_losses=probes_lost,
               sobas_congested=congested, sobas_limit_bytes=16 << 20 if congested else 250e3,
               sobas_decision_t_s=t_dec, sobas_probes_lost=probes_lost, sobas_rate_mbps=15.0, sobas_rtt_ms=130.0,
               early_consistent=None)
    early = dict(sob, scheme="SOBAS-early", target_drops=120, sobas_forward_losses=early_losses,
                 sobas_decision_t_s=None, early_consistent=consistent)
    sweep = [dict(base, scheme="sweep", socket_buffer_packets=s, target_drops=d, early_consistent=None)
             for s, d in ((250, 0), (300, 4), (400, 40))]
    return pd.DataFrame([sob, early] + sweep)


def test_note_blames_the_targets_own_slow_start_when_every_lost_echo_fell_in_it():
    note = t.sobas_cell_note("70", 313, _runs(congested=True, probes_lost=3, early_losses=3, t_dec=58.0), PATH)
    assert "C̃ = 33.0 Mb/s" in note and "430 KB" in note and "lost packets: 300" in note
    assert "120 packets and 3 forward probe echo(es)" in note
    assert "every lost echo (3) fell in the target's first 5 s" in note and "cannot get a limit" in note


def test_note_does_not_blame_slow_start_for_losses_outside_it():
    # a decision 30 s after the start: the 20-s memory no longer covers the first 5 s
    note = t.sobas_cell_note("70", 313, _runs(congested=True, probes_lost=2, early_losses=3, t_dec=80.0), PATH)
    assert "cannot get a limit" not in note and "none of the 3 echoes lost" in note
    note = t.sobas_cell_note("70", 313, _runs(congested=True, probes_lost=4, early_losses=1, t_dec=58.0), PATH)
    assert "cannot get a limit" not in note and "1 of the 4 lost echoes" in note
    # an early run that did not reproduce the full run's history is not used
    note = t.sobas_cell_note("70", 313, _runs(congested=True, probes_lost=3, early_losses=3, t_dec=58.0,
                                              consistent=False), PATH)
    assert "cannot get a limit" not in note and "not available" in note


def test_note_gives_the_limit_when_sobas_set_one():
    note = t.sobas_cell_note("70", 313, _runs(congested=False, probes_lost=0, early_losses=0, t_dec=61.0), PATH)
    assert "not congested, limit R_rs·T_rs = 250 KB" in note
