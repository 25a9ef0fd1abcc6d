//! Many desynchronized long flows (paper 004 §3.2 / MODELS.md A3) and two synchronized ones
//! (paper 004 §3.1, Fig. 7).
//!
//! Setting of the 400-flow tests: OC3 155 Mb/s, 1000-byte packets (so C = 19 375 packets/s),
//! RTTs uniform in 20-140 ms (mean 80 ms, BDP = 1550 packets), start times uniform in [0, 1] s,
//! NewReno, 60 s with 20 s of warm-up.
mod common;
use bufsize_sim::scenario::{Dist, QueueSpec, Scenario};
use common::*;

const C_BPS: f64 = 155e6;
const N: u32 = 400;

fn dumbbell(n: u32, b: u64, seed: u64) -> Scenario {
    let mut s = Scenario::dumbbell(
        C_BPS,
        n,
        Dist::Uniform([0.02, 0.14]),
        QueueSpec {
            limit_packets: Some(b),
            limit_bytes: None,
            discipline: None,
        },
    );
    s.duration_s = 60.0;
    s.warmup_s = 20.0;
    s.seed = seed;
    s
}

fn limits(n: u32, b: u64) -> Vec<Option<u64>> {
    let mut v = vec![Some(b), None];
    v.extend(std::iter::repeat_n(None, 2 * n as usize));
    v
}

/// erf by Abramowitz & Stegun 7.1.26 (|error| < 1.5e-7), enough for a bound check.
fn erf(x: f64) -> f64 {
    let t = 1.0 / (1.0 + 0.327_591_1 * x.abs());
    let poly = ((((1.061_405_429 * t - 1.453_152_027) * t + 1.421_413_741) * t - 0.284_496_736)
        * t
        + 0.254_829_592)
        * t;
    let y = 1.0 - poly * (-x * x).exp();
    if x >= 0.0 {
        y
    } else {
        -y
    }
}

#[test]
fn erf_matches_known_values() {
    assert!((erf(1.0) - 0.842_700_79).abs() < 1e-6);
    assert!((erf(0.5) - 0.520_499_88).abs() < 1e-6);
    assert!((erf(-1.0) + 0.842_700_79).abs() < 1e-6);
}

fn bdp_pkts() -> f64 {
    C_BPS * 0.08 / 8000.0
}

#[test]
fn sqrt_n_buffer_gives_97_percent_and_windows_add_up_independently() {
    let b = (bdp_pkts() / (N as f64).sqrt()).round() as u64; // 78
    let r = bufsize_sim::run(&dumbbell(N, b, 1)).unwrap();
    check_invariants(&r, &limits(N, b));
    let sm = &r.summary;
    // CLT with independent (desynchronized) flows: var(ΣW) = Σ var(W_i).
    let indep = r
        .flows
        .iter()
        .map(|f| f.cwnd_std * f.cwnd_std)
        .sum::<f64>()
        .sqrt();
    eprintln!(
        "n = {N}, B = {b}: utilization {:.4}, loss {:.4}, timeouts {}, σ(Σcwnd) {:.2}, sqrt(Σσ_i²) {indep:.2}, mean Σcwnd {:.1}",
        sm.utilization, sm.loss_rate, sm.timeouts, sm.cwnd_sum_std, sm.cwnd_sum_mean
    );
    assert!(sm.utilization >= 0.97, "utilization {}", sm.utilization);
    assert!(
        (sm.cwnd_sum_std - indep).abs() <= 0.30 * indep,
        "σ {} vs independent sum {indep}",
        sm.cwnd_sum_std
    );
    // Paper 004 applies eq. (5) to the queue (σ_Q = σ_W): the measured queue σ is within 30 %
    // (19.5 vs 15.7 here), and eq. (6)'s utilization lower bound holds.
    let sigma = (bdp_pkts() + b as f64) / (3.0 * 3f64.sqrt() * (N as f64).sqrt());
    let x = 3.0 * 3f64.sqrt() / (2.0 * 2f64.sqrt()) * b as f64
        / ((bdp_pkts() + b as f64) / (N as f64).sqrt());
    let bound = erf(x);
    eprintln!(
        "queue σ {:.2} vs eq. (5) {sigma:.2}; utilization {:.4} vs eq. (6) bound {bound:.4}",
        sm.queue_std_packets, sm.utilization
    );
    assert!(
        (sm.queue_std_packets - sigma).abs() <= 0.30 * sigma,
        "queue σ {} vs eq. (5) {sigma}",
        sm.queue_std_packets
    );
    assert!(sm.utilization >= bound);
    // The sum of windows covers the pipe plus the queue (paper 004 eq. (4)), plus the windows
    // of flows waiting for a timeout.
    assert!(sm.cwnd_sum_mean >= bdp_pkts() + sm.mean_queue_packets - 1.0);
    assert!(sm.jain_fairness > 0.3 && sm.jain_fairness <= 1.0);
}

/// Paper 004 eq. (5): σ(ΣW) = (2TpC + B)/(3√3·√n), which takes each window as uniform on
/// [2/3, 4/3] of its mean (σ_i/W̄_i = 1/(3√3) = 0.19). At this operating point (mean window
/// 4.7 packets, loss ≈ 8 %, as Mathis' formula predicts for 48 packets/s per flow at RTT
/// 80 ms) 43 % of the loss events end in a retransmission timeout (cwnd back to 1), and the
/// measured per-flow σ_i/W̄_i is 0.55. So σ(Σcwnd) ≈ 40 packets against the formula's 15.7,
/// while the flows still add up like independent ones (see the test above). Kept as a record
/// of the gap; run with --ignored. ns-3 3.37 measures the same (38.9 with the same RTT and
/// start lists and the same sampling rule; bench/ns3/results.md, cwnd_sigma.py), so the gap is
/// the model's idealization, not this engine's TCP.
#[test]
#[ignore = "eq. (5) assumes pure AIMD sawteeth; measured σ(Σcwnd) ≈ 40 vs 15.7, ns-3 38.9 (bench/ns3/results.md)"]
fn sqrt_n_buffer_sigma_matches_eq5() {
    let b = (bdp_pkts() / (N as f64).sqrt()).round() as u64;
    let r = bufsize_sim::run(&dumbbell(N, b, 1)).unwrap();
    let sigma = (bdp_pkts() + b as f64) / (3.0 * 3f64.sqrt() * (N as f64).sqrt());
    let sm = &r.summary;
    eprintln!(
        "σ(Σcwnd) {:.2} vs eq. (5) {sigma:.2}; queue σ {:.2}",
        sm.cwnd_sum_std, sm.queue_std_packets
    );
    assert!(
        (sm.cwnd_sum_std - sigma).abs() <= 0.30 * sigma,
        "σ {} vs {sigma}",
        sm.cwnd_sum_std
    );
}

#[test]
fn twice_sqrt_n_buffer_gives_99_5_percent() {
    let b = (2.0 * bdp_pkts() / (N as f64).sqrt()).round() as u64; // 155
    let r = bufsize_sim::run(&dumbbell(N, b, 2)).unwrap();
    check_invariants(&r, &limits(N, b));
    eprintln!(
        "n = {N}, B = {b}: utilization {:.4}, loss {:.4}",
        r.summary.utilization, r.summary.loss_rate
    );
    assert!(
        r.summary.utilization >= 0.995,
        "utilization {}",
        r.summary.utilization
    );
}

/// Instants (s) where a cwnd trace falls by more than a third between samples.
fn halvings(t: &[f64], w: &[f64]) -> Vec<f64> {
    (1..w.len())
        .filter(|&i| w[i] < 0.67 * w[i - 1])
        .map(|i| t[i])
        .collect()
}

#[test]
fn two_flows_with_equal_rtt_synchronize() {
    // 10 Mb/s, both RTTs 80 ms (BDP 100 packets), B = BDP.
    let mut s = Scenario::dumbbell(
        10e6,
        2,
        Dist::Fixed(0.08),
        QueueSpec {
            limit_packets: Some(100),
            limit_bytes: None,
            discipline: None,
        },
    );
    s.duration_s = 300.0;
    s.warmup_s = 50.0;
    s.measure.cwnd_trace_flows = vec![0, 1];
    s.measure.cwnd_trace_interval_s = 0.01;
    let r = bufsize_sim::run(&s).unwrap();
    check_invariants(&r, &limits(2, 100));
    let tr = &r.traces.cwnd;
    let h0 = halvings(&tr[0].t_s, &tr[0].cwnd);
    let h1 = halvings(&tr[1].t_s, &tr[1].cwnd);
    assert!(
        h0.len() >= 10 && h1.len() >= 10,
        "{} and {} halvings",
        h0.len(),
        h1.len()
    );
    // A loss of flow 0 is matched by one of flow 1 within two RTTs.
    let matched = h0
        .iter()
        .filter(|&&a| h1.iter().any(|&b| (a - b).abs() <= 0.16))
        .count();
    eprintln!(
        "halvings: flow 0 {}, flow 1 {}, coincident {matched}",
        h0.len(),
        h1.len()
    );
    assert!(
        matched as f64 >= 0.9 * h0.len() as f64,
        "only {matched} of {} losses coincide",
        h0.len()
    );
    assert!((h0.len() as f64 - h1.len() as f64).abs() <= 0.1 * h0.len() as f64 + 1.0);
}
