//! Issue 8 §1: every control under a window cap; paper 002 Fig. 1's paced-vs-Reno claim; and one
//! flow of each control against paper 003 Table III (mean window / W_max and δ/μ over a cycle).
mod common;
use bufsize_sim::scenario::{Dist, QueueSpec, Scenario};
use bufsize_sim::tcp::cc;
use common::*;

#[test]
fn window_cap_holds_for_every_control() {
    // W_max = 20 segments on a path of BDP 100 (10 Mb/s, 80 ms): 20 segments per RTT, no loss.
    for name in cc::names() {
        for sack in [false, true] {
            let mut s = single_flow(10e6, 0.08, 100, 20.0, 5.0);
            s.flows[0].tcp.cc = name.to_string();
            s.flows[0].tcp.sack = sack;
            s.flows[0].tcp.max_window_packets = Some(20);
            let r = bufsize_sim::run(&s).unwrap();
            check_invariants(&r, &[None, Some(100), None, None]);
            let expect = 20.0 * 8000.0 / (0.08 + 0.0008 + 0.00008) / 10e6;
            let u = r.summary.utilization;
            assert!(
                r.flows[0].mean_cwnd <= 20.0 + 1e-9,
                "{name}: {}",
                r.flows[0].mean_cwnd
            );
            assert_eq!(r.summary.drops, 0, "{name}");
            // Poisson pacing leaves some of the window unused (a gap can outlast an RTT's worth).
            // BBR (model-based) cuts its window to 4 segments for at least 200 ms + an RTT
            // every 10 s (PROBE_RTT) even when the cap binds: about 2.5 % of the time.
            let lo = if name == "poisson-paced" {
                0.85
            } else if cc::lookup(name).is_some_and(|r| r.model) {
                0.96
            } else {
                0.99
            };
            assert!(
                u <= expect * 1.005 && u >= expect * lo,
                "{name} sack={sack}: {u} vs {expect}"
            );
        }
    }
}

/// Paper 002 Fig. 1 setting: 100 Mb/s, RTT 100 ms, W_max = 32, 1000-byte packets, 40 flows
/// (maximum offered load 1.0).
fn fig1(cc_name: &str, b: u64) -> f64 {
    let mut s = Scenario::dumbbell(
        100e6,
        40,
        Dist::Fixed(0.1),
        QueueSpec {
            limit_packets: Some(b),
            limit_bytes: None,
            discipline: None,
        },
    );
    s.duration_s = 60.0;
    s.warmup_s = 20.0;
    let d = s.dumbbell.as_mut().unwrap();
    d.tcp.cc = cc_name.to_string();
    d.tcp.max_window_packets = Some(32);
    d.tcp.packet_bytes = 1000;
    let r = bufsize_sim::run(&s).unwrap();
    assert!(r.summary.conservation_ok);
    r.summary.utilization
}

#[test]
fn paced_tcp_fills_the_link_with_ten_packets() {
    // 002 §III: paced TCP reaches 80 % with a 10-packet buffer. Its other half, "Reno needs
    // about 100 packets", is NOT reproduced here: the engine's 40 window-limited NewReno flows
    // already give 0.997 at B = 10 (they offer only 2.4 % more than C, and one flow halving at
    // a time hardly dents the sum); see docs/congestion_control.md. Printed, not asserted.
    let paced = fig1("paced", 10);
    let reno = fig1("newreno", 10);
    eprintln!("002 Fig. 1, 40 flows, B = 10: paced {paced:.4}, NewReno {reno:.4}");
    assert!(paced >= 0.80, "paced at B = 10: {paced}");
}

/// Paper 003 Table III, computed from its Table II growth functions (MODELS.md §4 H1):
/// (μ / w_max, a = δ / μ). BIC: epoch T = R as printed and 2R (which reaches w_max).
const TABLE_III: &[(&str, f64, f64)] = &[
    ("newreno", 0.75, 0.192_450_1),
    ("bic", 0.85, 0.033_961_8),
    ("cubic-0.8", 0.95, 0.059_678_6),
    ("cubic", 0.925, 0.091_937_3),
    ("ctcp", 0.728_521, 0.197_976),
];

/// One flow (20 Mb/s, RTT 100 ms, BDP 250 packets, B = 25 < γ so CTCP's delay window is never
/// stopped by its backlog rule), 400 s with 100 s warm-up, cwnd sampled every 10 ms. Between the
/// first and the last loss after the warm-up: the time mean of cwnd over the mean peak (the
/// window just before each cut, W_max) and δ/μ.
fn table_iii_cell(name: &str) -> (f64, f64, usize) {
    let mut s = single_flow(20e6, 0.1, 25, 400.0, 100.0);
    s.flows[0].tcp.cc = name.to_string();
    // SACK (as the Linux and Windows stacks of paper 003): a window that loses several segments
    // is repaired in one RTT. Without it NewReno takes one RTT per hole, and the fast growers
    // (CTCP adds about 8 segments per RTT at the peak here) sit for up to 9 RTTs at the cut
    // window, which the formula's instantaneous decrease does not have.
    s.flows[0].tcp.sack = true;
    s.measure.cwnd_trace_flows = vec![0];
    s.measure.cwnd_trace_interval_s = 0.01;
    let r = bufsize_sim::run(&s).unwrap();
    assert_eq!(r.summary.timeouts, 0, "{name}");
    let tr = &r.traces.cwnd[0];
    let cuts: Vec<usize> = (1..tr.cwnd.len())
        .filter(|&i| tr.t_s[i] >= 100.0 && tr.cwnd[i] < 0.97 * tr.cwnd[i - 1])
        .collect();
    assert!(cuts.len() >= 4, "{name}: {} losses", cuts.len());
    let (a, b) = (cuts[0], *cuts.last().unwrap());
    let xs = &tr.cwnd[a..b];
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let sd = (xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n).sqrt();
    let peaks: Vec<f64> = cuts[1..].iter().map(|&i| tr.cwnd[i - 1]).collect();
    let w_max = peaks.iter().sum::<f64>() / peaks.len() as f64;
    (mean / w_max, sd / mean, cuts.len() - 1)
}

#[test]
fn single_flows_against_paper_003_table_iii() {
    let mut rows = vec![];
    for &(name, mu_f, a_f) in TABLE_III {
        let (mu, a, cycles) = table_iii_cell(name);
        let line = format!(
            "| {name} | {cycles} | {mu:.3} | {mu_f:.3} | {:+.1} % | {a:.4} | {a_f:.4} | {:+.1} % |",
            100.0 * (mu / mu_f - 1.0),
            100.0 * (a / a_f - 1.0)
        );
        eprintln!("{line}");
        rows.push((name, mu, mu_f, a, a_f));
    }
    for (name, mu, mu_f, a, a_f) in rows {
        // Mean window within 10 % of the formula for every control (CUBIC is 7 % low: half of
        // its cycles are fast-convergence ones, whose plateau is 0.85 of the peak).
        assert!(
            (mu / mu_f - 1.0).abs() < 0.10,
            "{name}: μ/w_max {mu:.3} vs {mu_f:.3}"
        );
        if name == "bic" {
            // Table II's BIC is a linear ramp (0.1 w_max per RTT) for T = R (reaching 0.9 w_max)
            // or 2R (reaching w_max): a = 0.0340 or 0.0642. The real binary search is concave
            // with a plateau at W_max; its δ/μ must lie between the two ramps' values.
            assert!(a > 0.0340 && a < 0.0642, "bic: δ/μ {a:.4}");
        } else {
            assert!(
                (a / a_f - 1.0).abs() < 0.20,
                "{name}: δ/μ {a:.4} vs {a_f:.4}"
            );
        }
    }
}
