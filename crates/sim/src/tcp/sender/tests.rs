//! Unit tests of the sender's recovery and timer rules.
use super::*;
use crate::tcp::reno::Reno;

fn sender(sack: bool, recovery: Recovery) -> Sender {
    let cfg = TcpParams {
        sack,
        initial_window: 10,
        ..TcpParams::default()
    };
    Sender::new(&cfg, recovery, u32::MAX)
}

fn sent(s: &mut Sender, f: impl FnOnce(&mut Sender, &mut Vec<u32>)) -> Vec<u32> {
    let mut v = vec![];
    f(s, &mut v);
    v
}

#[test]
fn rto_backs_off_exponentially_up_to_the_cap() {
    let mut s = sender(false, Recovery::NewReno);
    let mut cc = Reno::default();
    let first = sent(&mut s, |s, v| s.fill(0, |q| v.push(q)));
    assert_eq!(first, (0..10).collect::<Vec<_>>());
    assert_eq!(s.rto_deadline, 1_000_000_000); // initial RTO 1 s
    let mut now = s.rto_deadline;
    let mut gaps = vec![];
    for _ in 0..8 {
        let re = sent(&mut s, |s, v| {
            s.on_timeout(now, &mut cc, |q| v.push(q));
        });
        assert_eq!(
            re,
            vec![0],
            "go-back-N starts with the first unacked segment"
        );
        assert_eq!(s.w.cwnd, 1.0);
        gaps.push(s.rto_deadline - now);
        now = s.rto_deadline;
    }
    assert_eq!(gaps[0], 2_000_000_000);
    assert_eq!(gaps[1], 4_000_000_000);
    assert_eq!(*gaps.last().unwrap(), 60_000_000_000); // max_rto
    assert_eq!(s.timeouts, 8);
    assert_eq!(s.w.ssthresh, 2.0); // repeated timeouts: FlightSize is the one retransmission
}

#[test]
fn newreno_partial_acks_retransmit_each_hole_then_exit_at_recover() {
    let mut s = sender(false, Recovery::NewReno);
    let mut cc = Reno::default();
    sent(&mut s, |s, v| s.fill(0, |q| v.push(q)));
    // Segments 0 and 3 lost; receiver ACKs 1, 2 (dupacks for 0), then 4..9 (dupacks).
    let mut out = vec![];
    for _ in 0..3 {
        s.on_ack(10, 0, u32::MAX, &mut cc, |q| out.push(q));
    }
    assert!(s.in_recovery);
    assert_eq!(out[0], 0, "fast retransmit of the first hole");
    assert_eq!(s.w.ssthresh, 5.0);
    assert_eq!(s.fast_retransmits, 1);
    // Retransmitted 0 arrives: cumulative ACK 3 is partial (recover = 9).
    out.clear();
    s.on_ack(20, 3, u32::MAX, &mut cc, |q| out.push(q));
    assert!(s.in_recovery);
    assert_eq!(
        out.first(),
        Some(&3),
        "partial ACK retransmits the next hole"
    );
    // Full ACK.
    s.on_ack(30, 10, u32::MAX, &mut cc, |_| {});
    assert!(!s.in_recovery);
    assert_eq!(s.w.cwnd, 5.0);
    assert_eq!(s.fast_retransmits, 1, "one recovery for both losses");
}

#[test]
fn timeout_in_recovery_keeps_its_ssthresh_and_ignores_dupacks_at_recover() {
    let mut s = sender(false, Recovery::NewReno);
    let mut cc = Reno::default();
    sent(&mut s, |s, v| s.fill(0, |q| v.push(q)));
    for _ in 0..3 {
        s.on_ack(10, 0, u32::MAX, &mut cc, |_| {});
    }
    // 40 more duplicate ACKs inflate cwnd (and send new data) in the recovery.
    for _ in 0..40 {
        s.on_ack(11, 0, u32::MAX, &mut cc, |_| {});
    }
    assert!(s.in_recovery && s.w.cwnd > 40.0 && s.flight() > 40);
    let now = s.rto_deadline;
    s.on_timeout(now, &mut cc, |_| {});
    // ssthresh stays the recovery's (10 / 2), not half the inflated flight.
    assert_eq!(s.w.ssthresh, 5.0);
    assert_eq!(s.w.cwnd, 1.0);
    // Go-back-N: the cumulative ACK reaches recover + 1 = snd_max, then three duplicate
    // ACKs from segments resent needlessly: not a new loss (RFC 6582 §3.2 step 1).
    let top = s.snd_max;
    s.on_ack(now + 10, top, u32::MAX, &mut cc, |_| {});
    for _ in 0..3 {
        s.on_ack(now + 11, top, u32::MAX, &mut cc, |_| {});
    }
    assert!(!s.in_recovery);
    assert_eq!(s.fast_retransmits, 1);
    // Beyond recover + 1 duplicate ACKs mean a loss again.
    let una = s.snd_una + 1;
    s.on_ack(now + 20, una, u32::MAX, &mut cc, |_| {});
    for _ in 0..3 {
        s.on_ack(now + 21, una, u32::MAX, &mut cc, |_| {});
    }
    assert!(s.in_recovery);
    assert_eq!(s.fast_retransmits, 2);
}

#[test]
fn sparse_partial_acks_restart_the_timer_dense_ones_do_not() {
    let cfg = TcpParams {
        initial_window: 40,
        ..TcpParams::default()
    };
    let mut cc = Reno::default();
    for (hole_gap, restarts) in [(10u32, true), (1, false)] {
        let mut s = Sender::new(&cfg, Recovery::NewReno, u32::MAX);
        sent(&mut s, |s, v| s.fill(0, |q| v.push(q)));
        for _ in 0..3 {
            s.on_ack(10, 0, u32::MAX, &mut cc, |_| {});
        }
        // First partial ACK: restarts the timer (Impatient).
        s.on_ack(100, hole_gap, u32::MAX, &mut cc, |_| {});
        assert_eq!(s.rto_deadline, 100 + s.current_rto());
        // Second partial ACK: only if it covers more than DupThresh segments.
        s.on_ack(200, 2 * hole_gap, u32::MAX, &mut cc, |_| {});
        assert!(s.in_recovery);
        assert_eq!(
            s.rto_deadline == 200 + s.current_rto(),
            restarts,
            "gap {hole_gap}"
        );
    }
}

#[test]
fn reno_leaves_recovery_on_the_first_new_ack() {
    let mut s = sender(false, Recovery::Reno);
    let mut cc = Reno::default();
    sent(&mut s, |s, v| s.fill(0, |q| v.push(q)));
    for _ in 0..3 {
        s.on_ack(10, 0, u32::MAX, &mut cc, |_| {});
    }
    assert!(s.in_recovery);
    s.on_ack(20, 3, u32::MAX, &mut cc, |_| {});
    assert!(!s.in_recovery);
}

#[test]
fn sack_retransmits_only_the_holes() {
    let mut s = sender(true, Recovery::NewReno);
    let mut cc = Reno::default();
    sent(&mut s, |s, v| s.fill(0, |q| v.push(q)));
    // Segments 0, 2 and 5 lost out of 0..9: the receiver SACKs 1, 3, 4, 6, 7, 8, 9.
    let mut out = vec![];
    for q in [1, 3, 4, 6, 7, 8, 9] {
        s.on_ack(10, 0, q, &mut cc, |x| out.push(x));
    }
    assert!(s.in_recovery);
    assert_eq!(s.w.cwnd, 5.0);
    // Holes 0, 2, 5 are all "lost" (>= 3 SACKed above each): all retransmitted, in order,
    // and nothing that was SACKed is sent again.
    let retx: Vec<u32> = out.iter().copied().filter(|&q| q < 10).collect();
    assert_eq!(retx, vec![0, 2, 5]);
    assert_eq!(s.retransmits, 3);
    s.on_ack(20, 10, u32::MAX, &mut cc, |_| {});
    assert!(!s.in_recovery);
}

#[test]
fn limited_transmit_sends_one_new_segment_on_each_of_the_first_two_dupacks() {
    // RFC 3042: a window of 10 with segment 0 lost; the first two duplicate ACKs each let one new
    // segment (10, then 11) out; the third starts fast recovery with the retransmission of 0.
    // Without limited transmit the duplicate ACKs send nothing until the third.
    for lt in [true, false] {
        let cfg = TcpParams {
            initial_window: 10,
            limited_transmit: lt,
            ..TcpParams::default()
        };
        let mut s = Sender::new(&cfg, Recovery::NewReno, u32::MAX);
        let mut cc = Reno::default();
        sent(&mut s, |s, v| s.fill(0, |q| v.push(q)));
        let mut out = vec![];
        for _ in 0..2 {
            out.push(sent(&mut s, |s, v| {
                s.on_ack(10, 0, u32::MAX, &mut cc, |q| v.push(q));
            }));
        }
        let third = sent(&mut s, |s, v| {
            s.on_ack(10, 0, u32::MAX, &mut cc, |q| v.push(q));
        });
        if lt {
            assert_eq!(out, vec![vec![10], vec![11]]);
        } else {
            assert_eq!(out, vec![Vec::<u32>::new(), vec![]]);
        }
        assert_eq!(
            third.first(),
            Some(&0),
            "fast retransmit on the third duplicate ACK"
        );
        assert!(s.in_recovery);
    }
}

#[test]
fn a_repeated_timeout_holds_ssthresh_when_asked() {
    // RFC 5681 §3.1: the timer firing again for a segment it already retransmitted keeps
    // ssthresh. Off (the default, ns-2's rule), the repeat halves the one retransmission: 2.
    for hold in [false, true] {
        let cfg = TcpParams {
            initial_window: 10,
            repeat_rto_holds_ssthresh: hold,
            ..TcpParams::default()
        };
        let mut s = Sender::new(&cfg, Recovery::NewReno, u32::MAX);
        let mut cc = Reno::default();
        sent(&mut s, |s, v| s.fill(0, |q| v.push(q)));
        let t1 = s.rto_deadline;
        sent(&mut s, |s, v| {
            s.on_timeout(t1, &mut cc, |q| v.push(q));
        });
        assert_eq!(
            s.w.ssthresh, 5.0,
            "the first timeout halves the 10 outstanding"
        );
        let t2 = s.rto_deadline;
        sent(&mut s, |s, v| {
            s.on_timeout(t2, &mut cc, |q| v.push(q));
        });
        assert_eq!(s.w.ssthresh, if hold { 5.0 } else { 2.0 });
    }
}

#[test]
fn linux_keeps_the_minimum_rto_above_srtt_rfc6298_floors_the_whole_rto() {
    // Steady 100-ms RTT samples: RTTVAR decays towards 0, so RFC 6298's RTO falls to the 200-ms
    // floor, while Linux's stays at SRTT + 200 ms.
    for (linux, want_ms) in [(false, 200.0), (true, 300.0)] {
        let cfg = TcpParams {
            min_rto_s: 0.2,
            rto_min_above_srtt: linux,
            ..TcpParams::default()
        };
        let mut s = Sender::new(&cfg, Recovery::NewReno, u32::MAX);
        for _ in 0..60 {
            s.rtt_sample(100_000_000);
        }
        let got = s.rto as f64 / 1e6;
        assert!(
            (got - want_ms).abs() < 1.0,
            "linux {linux}: RTO {got} ms, want {want_ms}"
        );
    }
}

/// A SACK recovery with PRR from a window of 200 segments of 1448 B, segment 0 lost and the
/// next `n` segments SACKed one per ACK: what the sender sends on each of those ACKs.
fn prr_sends(wraps: bool, n: u32) -> (Vec<usize>, f64) {
    let cfg = TcpParams {
        sack: true,
        prr: true,
        packet_bytes: 1500,
        header_bytes: 52,
        initial_window: 200,
        prr_wraps_32bit: wraps,
        ..TcpParams::default()
    };
    let mut s = Sender::new(&cfg, Recovery::NewReno, u32::MAX);
    let mut cc = Reno::default();
    s.w.ssthresh = s.w.cwnd;
    s.fill(0, |_| {});
    assert_eq!(s.snd_max, 200);
    let mut per_ack = vec![];
    for k in 1..=n {
        let mut out = 0;
        s.on_ack(k as Ns, 0, k, &mut cc, |_| out += 1);
        per_ack.push(out);
    }
    assert!(s.in_recovery);
    (per_ack, s.w.ssthresh)
}

#[test]
fn ns3_337s_prr_product_wraps_at_32_bits_and_stops_sending_until_pipe_reaches_ssthresh() {
    // RFC 6937 (and ns-3 after 3.37): about ssthresh / RecoverFS = 1/2 segment per segment
    // delivered, all through the recovery's first RTT.
    let (plain, ssthresh) = prr_sends(false, 120);
    assert!((99.0..=100.5).contains(&ssthresh), "ssthresh {ssthresh}");
    let late: usize = plain[30..90].iter().sum();
    assert!(
        (28..=32).contains(&late),
        "RFC 6937 sends {late} on ACKs 31-90"
    );
    // ns-3 3.37: prr_delivered × ssthresh in bytes passes 2^32 after ~20 segments delivered
    // (20 × 1448 × 100 × 1448 ≈ 4.19e9); the wrapped product is below what was sent, so
    // nothing leaves until pipe has fallen to ssthresh (~100 deliveries), then one per ACK.
    let (wrapped, _) = prr_sends(true, 120);
    let early: usize = wrapped[..18].iter().sum();
    assert!(
        (8..=10).contains(&early),
        "sent {early} on the first 18 ACKs"
    );
    let silent: usize = wrapped[30..90].iter().sum();
    assert_eq!(silent, 0, "ns-3 3.37 sends nothing on ACKs 31-90");
    assert!(
        wrapped[110..].iter().all(|&n| n == 1),
        "one per ACK at ssthresh: {:?}",
        &wrapped[100..]
    );
}

/// Reno (RFC 5681 recovery) from a window of 10, segments 0 and 3 lost: the first new ACK ends the
/// recovery; then three duplicate ACKs for the second hole, whose ACK is still below the recovery
/// point (9). Returns the fast retransmits made.
fn reno_second_hole_fast_retransmits(careful: bool) -> u64 {
    let cfg = TcpParams {
        initial_window: 10,
        reno_careful: careful,
        ..TcpParams::default()
    };
    let mut s = Sender::new(&cfg, Recovery::Reno, u32::MAX);
    let mut cc = Reno::default();
    s.fill(0, |_| {});
    for _ in 0..3 {
        s.on_ack(10, 0, u32::MAX, &mut cc, |_| {});
    }
    assert_eq!(s.fast_retransmits, 1);
    // The retransmission of 0 arrives: ACK 3, below recover; Reno leaves recovery on it.
    s.on_ack(20, 3, u32::MAX, &mut cc, |_| {});
    assert!(!s.in_recovery);
    for _ in 0..3 {
        s.on_ack(30, 3, u32::MAX, &mut cc, |_| {});
    }
    s.fast_retransmits
}

#[test]
fn careful_reno_waits_for_the_timeout_on_a_second_hole_in_the_same_window() {
    // RFC 5681 Reno halves again on the second hole; ns-2's Reno (bugfix_) does not retransmit
    // until the ACKs pass the recovery point, and leaves the hole to the timer.
    assert_eq!(reno_second_hole_fast_retransmits(false), 2);
    assert_eq!(reno_second_hole_fast_retransmits(true), 1);
}

/// Reno at cwnd 9.5 with 10 segments out, ns-2's window rule (`flight_size` cwnd): ssthresh
/// after a fast retransmit, the window once the recovery's new ACK has come, and ssthresh after
/// a timeout instead.
fn reno_halving_at_cwnd_9_5(ns2: bool) -> (f64, f64, f64) {
    let cfg = TcpParams {
        initial_window: 10,
        flight_size: FlightSize::Cwnd,
        ns2_halving: ns2,
        ..TcpParams::default()
    };
    let mut fast = Sender::new(&cfg, Recovery::Reno, u32::MAX);
    let mut cc = Reno::default();
    fast.fill(0, |_| {});
    fast.w.cwnd = 9.5;
    for _ in 0..3 {
        fast.on_ack(10, 0, u32::MAX, &mut cc, |_| {});
    }
    assert_eq!(fast.fast_retransmits, 1);
    let ssthresh = fast.w.ssthresh;
    fast.on_ack(20, 10, u32::MAX, &mut cc, |_| {});
    assert!(!fast.in_recovery);
    let mut rto = Sender::new(&cfg, Recovery::Reno, u32::MAX);
    rto.fill(0, |_| {});
    rto.w.cwnd = 9.5;
    rto.on_timeout(rto.rto_deadline, &mut cc, |_| {});
    (ssthresh, fast.w.cwnd, rto.w.ssthresh)
}

#[test]
fn ns2_halving_keeps_the_fraction_of_the_halved_window() {
    // ns-2 (slowdown, Agent/TCP/Reno): ssthresh ⌊9.5 / 2⌋ = 4, the recovery ends at 4.75 and its
    // last ACK adds 1/4.75; a timeout's ssthresh is 4 too. Without it: ⌈9.5⌉ / 2 = 5, and the
    // recovery ends at ssthresh.
    let (ss, cwnd, rto) = reno_halving_at_cwnd_9_5(true);
    assert_eq!((ss, rto), (4.0, 4.0));
    assert!(
        (cwnd - (4.75 + 1.0 / 4.75)).abs() < 1e-12,
        "window after the recovery {cwnd}"
    );
    assert_eq!(reno_halving_at_cwnd_9_5(false), (5.0, 5.0, 5.0));
}
