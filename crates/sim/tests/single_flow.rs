//! One Reno/NewReno flow through a drop-tail bottleneck against the sawtooth models
//! (paper 001 appendix eqs. (14)-(17), paper 004 appendix B / MODELS.md A4).
//!
//! Setting: C = 10 Mb/s, RTT = 80 ms, 1000-byte packets, so C = 1250 packets/s and the
//! bandwidth-delay product CT = 100 packets; access links 10x faster.
mod common;
use common::*;

const C_BPS: f64 = 10e6;
const C_PPS: f64 = 1250.0;
const RTT: f64 = 0.08;
const CT: f64 = 100.0;

fn run(b: u64, duration: f64) -> bufsize_sim::Results {
    let s = single_flow(C_BPS, RTT, b, duration, 40.0);
    let r = bufsize_sim::run(&s).unwrap();
    check_invariants(&r, &[None, Some(b), None, None]);
    r
}

#[test]
fn full_buffer_keeps_link_busy_and_queue_touches_zero_each_sawtooth() {
    let b = CT as u64;
    let mut s = single_flow(C_BPS, RTT, b, 200.0, 40.0);
    s.measure.queue_trace_interval_s = Some(0.001);
    let r = bufsize_sim::run(&s).unwrap();
    check_invariants(&r, &[None, Some(b), None, None]);
    let sm = &r.summary;
    eprintln!(
        "B = BDP: utilization {:.5}, {} sawteeth",
        sm.utilization, sm.fast_retransmits
    );
    assert!(sm.utilization >= 0.995, "utilization {}", sm.utilization);
    // Sawteeth = losses, one per cycle (>= 10 in the window).
    let cycles = sm.fast_retransmits;
    assert!(cycles >= 10, "only {cycles} sawteeth");
    assert_eq!(sm.timeouts, 0);
    // Split the queue trace at its peaks (queue within 2 of full) and check each complete
    // sawtooth between two peaks reaches zero exactly once (one empty episode).
    let q = &r.traces.queue.as_ref().unwrap().packets;
    let mut peaks = vec![];
    let mut i = 0;
    while i < q.len() {
        if q[i] + 2 >= b {
            peaks.push(i);
            // Skip to the end of this peak episode (the queue drains after the loss).
            while i < q.len() && q[i] * 2 >= b {
                i += 1;
            }
        }
        i += 1;
    }
    assert!(
        peaks.len() as u64 + 1 >= cycles,
        "{} peaks for {cycles} losses",
        peaks.len()
    );
    for w in peaks.windows(2) {
        // An empty episode ends when the queue has climbed back above B/4 (at packet level
        // the queue flickers between 0 and 1 while the window passes the pipe size).
        let mut armed = true;
        let mut episodes = 0;
        for &x in &q[w[0]..w[1]] {
            if x == 0 && armed {
                episodes += 1;
                armed = false;
            } else if x * 4 > b {
                armed = true;
            }
        }
        assert_eq!(
            episodes, 1,
            "queue emptied {episodes} times in one sawtooth"
        );
    }
}

#[test]
fn under_buffered_utilization_and_loss_match_eq17_eq14() {
    for frac in [0.1, 0.25, 0.5] {
        let b = (frac * CT) as u64;
        let r = run(b, 300.0);
        let sm = &r.summary;
        let bt = b as f64;
        let u = eq17_utilization(CT, bt);
        let p = eq14_loss(CT, bt);
        eprintln!(
            "B = {b}: utilization {:.4} (eq. 17: {u:.4}), loss {:.3e} (eq. 14: {p:.3e})",
            sm.utilization, sm.loss_rate
        );
        assert!(
            (sm.utilization - u).abs() <= 0.02,
            "B = {b}: utilization {} vs eq. (17) {u}",
            sm.utilization
        );
        assert!(
            (sm.loss_rate - p).abs() <= 0.15 * p,
            "B = {b}: loss {} vs eq. (14) {p}",
            sm.loss_rate
        );
        assert_eq!(sm.timeouts, 0, "B = {b}");
        assert!(
            sm.fast_retransmits >= 10,
            "B = {b}: {} sawteeth",
            sm.fast_retransmits
        );
    }
}

#[test]
fn sawtooth_period_matches_fluid_model() {
    for frac in [0.25, 0.5, 1.0, 2.0] {
        let b = (frac * CT) as u64;
        let r = run(b, 400.0);
        let sm = &r.summary;
        // Losses come one per sawtooth: period = window / number of loss events.
        let measured = sm.measure_seconds / sm.fast_retransmits as f64;
        let model = cycle_seconds(C_PPS, CT, b as f64);
        eprintln!(
            "B = {b}: period {measured:.3} s, model {model:.3} s, utilization {:.4}",
            sm.utilization
        );
        assert!(
            (measured - model).abs() <= 0.10 * model,
            "B = {b}: period {measured:.3} s vs model {model:.3} s"
        );
    }
}

#[test]
fn queue_rise_time_matches_a4() {
    // MODELS.md A4: with B = 2TpC the queue grows from 0 to B in T = B^2/(2C) + 2Tp·B.
    let b = CT as u64;
    let mut s = single_flow(C_BPS, RTT, b, 200.0, 40.0);
    s.measure.queue_trace_interval_s = Some(0.001);
    let r = bufsize_sim::run(&s).unwrap();
    let tr = r.traces.queue.as_ref().unwrap();
    let (t, q) = (&tr.t_s, &tr.packets);
    let bf = b as f64;
    let model = bf * bf / (2.0 * C_PPS) + RTT * bf;
    let mut rises = vec![];
    let mut last_zero: Option<f64> = None;
    for i in 0..q.len() {
        if q[i] == 0 {
            last_zero = Some(t[i]);
        } else if q[i] >= b {
            if let Some(z) = last_zero.take() {
                rises.push(t[i] - z);
            }
        }
    }
    assert!(rises.len() >= 5, "{} rises", rises.len());
    let mean = rises.iter().sum::<f64>() / rises.len() as f64;
    eprintln!(
        "queue rise 0 -> B: {mean:.3} s over {} sawteeth, A4 {model:.3} s",
        rises.len()
    );
    assert!(
        (mean - model).abs() <= 0.10 * model,
        "rise {mean:.3} s vs A4 {model:.3} s"
    );
}

#[test]
fn reno_and_newreno_both_sawtooth() {
    for cc in ["reno", "newreno"] {
        let mut s = single_flow(C_BPS, RTT, 50, 200.0, 40.0);
        s.flows[0].tcp.cc = cc.into();
        let r = bufsize_sim::run(&s).unwrap();
        check_invariants(&r, &[None, Some(50), None, None]);
        let u = eq17_utilization(CT, 50.0);
        assert!(
            (r.summary.utilization - u).abs() <= 0.02,
            "{cc}: {} vs {u}",
            r.summary.utilization
        );
    }
}
