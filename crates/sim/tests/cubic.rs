//! One CUBIC flow (RFC 9438) through a drop-tail bottleneck: the closed-form consequences of
//! W(t) = C·(t − K)³ + W_max with β = 0.7, C = 0.4.
//!
//! Setting as in single_flow.rs: 10 Mb/s, RTT 80 ms, 1000-byte packets, BDP = 100 packets.
//! A single flow loses a packet when its window passes about BDP + B; SACK recovery, no timeouts.
mod common;
use common::*;

const CT: f64 = 100.0;

fn run(b: u64, cc: &str, duration: f64, trace: bool) -> bufsize_sim::Results {
    let mut s = single_flow(10e6, 0.08, b, duration, 40.0);
    s.flows[0].tcp.sack = true;
    s.flows[0].tcp.cc = cc.to_string();
    if trace {
        s.measure.cwnd_trace_flows = vec![0];
        s.measure.cwnd_trace_interval_s = 0.01;
    }
    let r = bufsize_sim::run(&s).unwrap();
    check_invariants(&r, &[None, Some(b), None, None]);
    r
}

#[test]
fn cycles_follow_the_cubic_curve_with_fast_convergence() {
    // Cycle by cycle from a 10-ms cwnd trace: a loss at window P cuts cwnd to β·P; the plateau
    // W_max is P, or P·(1 + β)/2 when P is below the previous W_max (fast convergence: in a single
    // flow the loss point wobbles by a packet or two, so the two kinds of cycle alternate); then
    // W(t) = C·(t − K)³ + W_max with K = ∛((W_max − β·P)/C).
    let b = 50;
    let r = run(b, "cubic", 240.0, true);
    let sm = &r.summary;
    let w = CT + b as f64;
    assert_eq!(sm.timeouts, 0);
    let tr = &r.traces.cwnd[0];
    let cuts: Vec<usize> = (1..tr.cwnd.len())
        .filter(|&i| tr.t_s[i] > 40.0 && tr.cwnd[i] < 0.9 * tr.cwnd[i - 1])
        .collect();
    assert!(cuts.len() >= 20, "{} losses", cuts.len());
    let (mut fc_cycles, mut plain_cycles) = (0, 0);
    let mut w_max_prev = tr.cwnd[cuts[0] - 1];
    for k in 1..cuts.len() - 1 {
        let (i, j) = (cuts[k], cuts[k + 1]);
        let peak = tr.cwnd[i - 1];
        // the cut: β·P
        assert!(
            (tr.cwnd[i] / peak - 0.7).abs() < 0.01,
            "cut {:.3}",
            tr.cwnd[i] / peak
        );
        // the peak: BDP + B, plus what the window grew in the RTT before the loss was seen
        assert!(
            peak >= w && peak <= w + 6.0,
            "peak {peak:.1}, BDP + B = {w}"
        );
        let fc = peak < w_max_prev;
        let w_max = if fc { peak * 0.85 } else { peak };
        let k_s = ((w_max - 0.7 * peak) / 0.4).cbrt();
        let (t_i, len) = (tr.t_s[i], tr.t_s[j] - tr.t_s[i]);
        if fc {
            // plateau at W_max around t = K (flat there, so the epoch's offset of about one RTT
            // hardly matters); checked when the cycle outlasts it
            fc_cycles += 1;
            if len > k_s + 0.5 {
                let near: Vec<f64> = (i..j)
                    .filter(|&m| (tr.t_s[m] - t_i - k_s).abs() < 0.2)
                    .map(|m| tr.cwnd[m])
                    .collect();
                let mid = near[near.len() / 2];
                assert!(
                    (mid - w_max).abs() < 2.0,
                    "plateau {mid:.2} vs W_max {w_max:.2}"
                );
            }
        } else {
            // no plateau before the loss: the next loss comes when W(t) reaches the next peak
            plain_cycles += 1;
            let next_peak = tr.cwnd[j - 1];
            let d = k_s - ((w_max - next_peak).max(0.0) / 0.4).cbrt();
            assert!(
                (len - d).abs() <= 0.35,
                "cycle {len:.2} s vs W(t) = {next_peak:.1} at {d:.2} s"
            );
        }
        w_max_prev = w_max;
    }
    eprintln!(
        "CUBIC B = {b}: {} cycles ({fc_cycles} with fast convergence), utilization {:.4}",
        cuts.len() - 2,
        sm.utilization
    );
    assert!(fc_cycles >= 5 && plain_cycles >= 5);
}

#[test]
fn buffer_of_three_sevenths_bdp_fills_the_link() {
    // After a loss the window is β·(BDP + B); it stays ≥ BDP (the link never idles) iff
    // B ≥ (1 − β)/β · BDP = 0.43 BDP. Reno needs B ≥ BDP for the same.
    let full = run(50, "cubic", 200.0, false).summary.utilization;
    let short = run(25, "cubic", 200.0, false).summary.utilization;
    let reno_short = run(25, "newreno", 200.0, false).summary.utilization;
    let reno_tiny = run(10, "newreno", 200.0, false).summary.utilization;
    let tiny = run(10, "cubic", 200.0, false).summary.utilization;
    eprintln!(
        "utilization: cubic B=0.5 {full:.4}, 0.25 {short:.4}, 0.1 {tiny:.4}; newreno 0.25 {reno_short:.4}, 0.1 {reno_tiny:.4}"
    );
    assert!(full >= 0.995, "B = 0.5 BDP: {full}");
    assert!(short < full, "B = 0.25 BDP: {short} not below {full}");
    // Minimum window 0.875 BDP at 0.25 BDP, 0.77 BDP at 0.1 BDP: some idle time, but much less
    // than Reno's (minimum window 0.625 and 0.55 BDP).
    assert!(short > reno_short + 0.03 && tiny > reno_tiny + 0.05);
    assert!(tiny < short);
}
