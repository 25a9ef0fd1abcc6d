//! Issue 8 §0: one CUBIC flow without SACK (10 Mb/s, RTT 100 ms, B = 31 packets = 0.25 BDP,
//! 200 s, warm-up 40 s) measured 0.36 utilization with 15 timeouts where SACK gave 0.987 / 0.
//!
//! Cause: CUBIC's convex growth overshoots BDP + B by several segments in one RTT, so a window
//! loses 3–9 segments, 20–70 apart. NewReno repairs one hole per RTT, and the retransmission
//! timer was restarted on the first partial ACK only (RFC 6582 "Impatient"): with RTO = 200 ms
//! and RTT ≈ 125 ms the third hole always came after the timer. The timeout made CUBIC forget
//! W_max, its next epoch was convex from the start, overshot by more, and the cycle repeated.
//! Two smaller faults made it worse: after the timeout, go-back-N duplicates produced three
//! duplicate ACKs exactly at recover + 1 and started a spurious fast retransmit (ssthresh 9), and
//! the timeout's ssthresh came from the inflated recovery cwnd (0.7 × 443).
mod common;
use common::*;

fn cubic(sack: bool) -> bufsize_sim::Results {
    let mut s = single_flow(10e6, 0.1, 31, 200.0, 40.0);
    s.flows[0].tcp.sack = sack;
    s.flows[0].tcp.cc = "cubic".into();
    let r = bufsize_sim::run(&s).unwrap();
    check_invariants(&r, &[None, Some(31), None, None]);
    r
}

#[test]
fn cubic_without_sack_b31_at_100ms_has_no_timeouts() {
    let plain = cubic(false);
    let sack = cubic(true);
    eprintln!(
        "no SACK: {:.4} ({} timeouts), SACK: {:.4} ({} timeouts)",
        plain.summary.utilization,
        plain.summary.timeouts,
        sack.summary.utilization,
        sack.summary.timeouts
    );
    assert_eq!(plain.summary.timeouts, 0);
    assert_eq!(sack.summary.timeouts, 0);
    assert!(
        plain.summary.utilization > 0.97,
        "{}",
        plain.summary.utilization
    );
    // NewReno repairs the same holes as SACK, one per RTT: same window law, same utilization.
    assert!((plain.summary.utilization - sack.summary.utilization).abs() < 0.01);
}
