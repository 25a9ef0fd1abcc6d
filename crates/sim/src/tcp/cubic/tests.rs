//! CUBIC's curve, its Reno-friendly region, fast convergence and Linux's whole-segment variant.

use super::*;
use crate::time::ns;

/// Drives `cc` with a constant RTT: every RTT, one ACK per segment of the window.
/// Returns (time s, cwnd) at the start of each round.
fn rounds(cc: &mut Cubic, w: &mut Window, rtt: f64, t0: f64, until: f64) -> Vec<(f64, f64)> {
    let mut out = vec![];
    let mut t = t0;
    while t < until {
        out.push((t, w.cwnd));
        let n = w.cwnd.floor() as u32;
        for _ in 0..n {
            let a = AckInfo {
                acked: 1,
                now: ns(t),
                rtt_sample: Some(ns(rtt)),
                srtt: Some(ns(rtt)),
                flight: n,
            };
            cc.on_ack(w, &a);
        }
        t += rtt;
    }
    out
}

/// A CUBIC sender that has just lost at window `w_loss` (RTT_min = `rtt`): cwnd cut to β·W.
fn after_loss(w_loss: f64, rtt: f64) -> (Cubic, Window) {
    let mut cc = Cubic::default();
    let mut w = Window {
        cwnd: w_loss,
        ssthresh: 1e9,
    };
    cc.rtt_min = Some(ns(rtt));
    w.ssthresh = cc.ssthresh_on_loss(&w, w_loss as u32, 0);
    w.cwnd = w.ssthresh;
    (cc, w)
}

#[test]
fn constants_are_rfc9438s() {
    assert!((ALPHA - 0.5294).abs() < 1e-4);
    let mut cc = Cubic::default();
    // W_max = 100: K = cbrt(100 * 0.3 / 0.4) = cbrt(75) = 4.2172 s.
    cc.w_max = 100.0;
    cc.start_epoch(
        &Window {
            cwnd: 70.0,
            ssthresh: 70.0,
        },
        0,
    );
    assert!((cc.k() - 75f64.cbrt()).abs() < 1e-12);
    assert!((cc.w_cubic(0.0) - 70.0).abs() < 1e-9);
    assert!((cc.w_cubic(cc.k()) - 100.0).abs() < 1e-9);
}

#[test]
fn linux_2_6_25_cubic_has_beta_0_8() {
    // CUBIC′ (paper 003): W = 100 at the loss, cut to 80, K = ∛(100 · 0.2 / 0.4) = ∛50.
    let mut cc = Cubic::with_beta(BETA_OLD);
    cc.rtt_min = Some(ns(0.1));
    let mut w = Window {
        cwnd: 100.0,
        ssthresh: 1e9,
    };
    w.ssthresh = cc.ssthresh_on_loss(&w, 100, 0);
    w.cwnd = w.ssthresh;
    assert!((w.cwnd - 80.0).abs() < 1e-9);
    cc.start_epoch(&w, 0);
    assert!((cc.k() - 50f64.cbrt()).abs() < 1e-12);
    assert!((cc.w_cubic(cc.k()) - 100.0).abs() < 1e-9);
    assert!((cc.alpha - 1.0 / 3.0).abs() < 1e-12);
    // Driven round by round it follows W(t) = C (t − K)³ + 100 like the β = 0.7 version.
    let (mut cc, mut w) = (
        Cubic::with_beta(BETA_OLD),
        Window {
            cwnd: 100.0,
            ssthresh: 1e9,
        },
    );
    cc.rtt_min = Some(ns(0.1));
    w.ssthresh = cc.ssthresh_on_loss(&w, 100, 0);
    w.cwnd = w.ssthresh;
    let k = 50f64.cbrt();
    for (t, cwnd) in rounds(&mut cc, &mut w, 0.1, 0.0, 6.0).into_iter().skip(5) {
        let expect = C * (t - k).powi(3) + 100.0;
        let step = 3.0 * C * (t - k).powi(2) * 0.1 + 1.0;
        assert!(
            (cwnd - expect).abs() <= step,
            "t = {t:.1}: {cwnd:.2} vs {expect:.2}"
        );
    }
}

#[test]
fn window_follows_the_cubic_curve_after_a_loss() {
    // W = 100 at the loss: cut to 70, back at 100 after K = 4.22 s, then convex growth.
    let rtt = 0.1;
    let (mut cc, mut w) = after_loss(100.0, rtt);
    assert_eq!(w.cwnd, 70.0);
    assert_eq!(cc.w_max(), 100.0);
    let k = 75f64.cbrt();
    let tr = rounds(&mut cc, &mut w, rtt, 0.0, 8.0);
    for &(t, cwnd) in &tr[5..] {
        // cwnd at the start of a round = the target reached during the previous round,
        // i.e. W(t) within the per-round discretisation (one round's growth).
        let expect = C * (t - k).powi(3) + 100.0;
        let step = 3.0 * C * (t - k).powi(2) * rtt + 1.0;
        assert!(
            (cwnd - expect).abs() <= step,
            "t = {t:.1}: cwnd {cwnd:.2} vs W(t) {expect:.2}"
        );
    }
    // Plateau: near t = K the window stays within 1 segment of W_max for ~1 s.
    let near: Vec<f64> = tr
        .iter()
        .filter(|(t, _)| (t - k).abs() < 0.5)
        .map(|x| x.1)
        .collect();
    assert!(near.iter().all(|&c| (c - 100.0).abs() < 1.5), "{near:?}");
}

#[test]
fn reno_friendly_region_grows_at_least_alpha_per_rtt() {
    // Small window, short RTT: the cubic curve is almost flat (K = cbrt(10*0.3/0.4) = 1.96 s
    // = 196 RTTs), so the AIMD estimate (+0.53 per RTT) drives the growth.
    let rtt = 0.01;
    let (mut cc, mut w) = after_loss(10.0, rtt);
    let tr = rounds(&mut cc, &mut w, rtt, 0.0, 0.5);
    let grown = tr.last().unwrap().1 - 7.0;
    let rtts = tr.len() as f64 - 1.0;
    let cubic_only = C * (0.5 - cc.k()).powi(3) + 10.0 - 7.0;
    assert!(
        grown >= 0.9 * ALPHA * rtts,
        "grew {grown:.2} in {rtts} RTTs"
    );
    assert!(
        grown > 2.0 * cubic_only,
        "grew {grown:.2}, cubic alone {cubic_only:.2}"
    );
}

#[test]
fn without_the_reno_friendly_region_a_small_window_follows_the_flat_curve() {
    // ns-3 3.37's TcpCubic: no Reno-friendly estimate, so the same small window at a short RTT
    // grows only as the (nearly flat) cubic curve does, continuous and integer alike.
    let rtt = 0.01;
    for integer in [false, true] {
        let (cc, mut w) = after_loss(10.0, rtt);
        let mut cc = cc.integer(integer).reno_friendly(false);
        let tr = rounds(&mut cc, &mut w, rtt, 0.0, 0.5);
        let grown = tr.last().unwrap().1 - 7.0;
        let rtts = tr.len() as f64 - 1.0;
        assert!(
            grown < 0.3 * ALPHA * rtts,
            "integer {integer}: grew {grown:.2} in {rtts} RTTs"
        );
    }
}

#[test]
fn a_timeout_keeps_the_flows_settings() {
    // Found on the ns3 profile's grid: the reset after a timeout rebuilt the control with the
    // defaults, so a flow without the Reno-friendly region got it back at its first timeout.
    for (integer, friendly) in [(false, false), (true, false), (true, true)] {
        let mut cc = Cubic::default().integer(integer).reno_friendly(friendly);
        let mut w = Window {
            cwnd: 20.0,
            ssthresh: 1e9,
        };
        cc.on_timeout(&mut w, 20, 0);
        assert_eq!((cc.integer, cc.friendly), (integer, friendly));
    }
}

#[test]
fn fast_convergence_and_timeout_reset() {
    let mut cc = Cubic::default();
    let w = Window {
        cwnd: 100.0,
        ssthresh: 1e9,
    };
    assert_eq!(cc.ssthresh_on_loss(&w, 100, 0), 70.0);
    // The next loss comes below W_max = 100: W_max = 80 * 1.7 / 2 = 68.
    let w = Window {
        cwnd: 80.0,
        ssthresh: 70.0,
    };
    assert!((cc.ssthresh_on_loss(&w, 80, 0) - 56.0).abs() < 1e-9);
    assert!((cc.w_max() - 68.0).abs() < 1e-9);
    // A timeout forgets W_max; growth then starts at >= 5 % per RTT.
    let mut w = Window {
        cwnd: 60.0,
        ssthresh: 1e9,
    };
    cc.on_timeout(&mut w, 60, 0);
    assert_eq!(w.ssthresh, 42.0);
    assert_eq!(cc.w_max(), 0.0);
    w.cwnd = 50.0;
    w.ssthresh = 42.0;
    let tr = rounds(&mut cc, &mut w, 0.05, 0.0, 0.2);
    assert!(tr[1].1 >= 50.0 * 1.045, "{tr:?}");
    // ssthresh never below 2.
    assert_eq!(
        cc.ssthresh_on_loss(
            &Window {
                cwnd: 2.0,
                ssthresh: 2.0
            },
            2,
            0
        ),
        2.0
    );
}

#[test]
fn growth_per_ack_is_at_most_half_a_segment() {
    // Far above W_max (convex region, t >> K), the target runs away; cwnd still grows by
    // at most acked/2 per ACK.
    let mut cc = Cubic::default();
    let mut w = Window {
        cwnd: 20.0,
        ssthresh: 10.0,
    };
    cc.w_max = 10.0;
    cc.rtt_min = Some(ns(0.1));
    cc.on_ack(
        &mut w,
        &AckInfo {
            acked: 1,
            now: 0,
            rtt_sample: None,
            srtt: None,
            flight: 20,
        },
    );
    let before = w.cwnd;
    cc.on_ack(
        &mut w,
        &AckInfo {
            acked: 2,
            now: ns(60.0),
            rtt_sample: None,
            srtt: None,
            flight: 20,
        },
    );
    assert!(
        (w.cwnd - before - 1.0).abs() < 1e-9,
        "{before} -> {}",
        w.cwnd
    );
}

fn one_ack(cc: &mut Cubic, w: &mut Window, acked: u32, t: f64) {
    cc.on_ack(
        w,
        &AckInfo {
            acked,
            now: ns(t),
            rtt_sample: Some(ns(0.01)),
            srtt: Some(ns(0.01)),
            flight: w.cwnd as u32,
        },
    );
}

#[test]
fn integer_cubic_rounds_ssthresh_and_w_max_down() {
    let mut cc = Cubic::default().integer(true);
    let w = Window {
        cwnd: 13.0,
        ssthresh: 1e9,
    };
    // ⌊13 · 717 / 1024⌋ = ⌊9.10⌋ = 9 (continuous: 9.1).
    assert_eq!(cc.ssthresh_on_loss(&w, 13, 0), 9.0);
    assert_eq!(cc.w_max(), 13.0);
    // Fast convergence below W_max: ⌊12 · 1741 / 2048⌋ = ⌊10.2⌋ = 10, ssthresh ⌊8.40⌋ = 8.
    let w = Window {
        cwnd: 12.0,
        ssthresh: 9.0,
    };
    assert_eq!(cc.ssthresh_on_loss(&w, 12, 0), 8.0);
    assert_eq!(cc.w_max(), 10.0);
    let mut cont = Cubic::default();
    cont.ssthresh_on_loss(
        &Window {
            cwnd: 13.0,
            ssthresh: 1e9,
        },
        13,
        0,
    );
    assert!((cont.ssthresh_on_loss(&w, 12, 0) - 8.4).abs() < 1e-9);
}

#[test]
fn integer_cubic_grows_at_most_one_segment_per_two_acked_and_stays_whole() {
    // Far above W_max (convex region, the target runs away) for 20 s of ACKs of 1 or 2
    // segments: every step is a whole number and growth never exceeds acked / 2 overall.
    let mut cc = Cubic::default().integer(true);
    cc.w_max = 10.0;
    cc.rtt_min = Some(ns(0.1));
    let mut w = Window {
        cwnd: 20.0,
        ssthresh: 10.0,
    };
    let (mut acked_total, mut t) = (0u32, 0.0);
    let mut at_3000 = 0.0;
    for i in 0..4000u32 {
        if i == 3000 {
            at_3000 = w.cwnd;
        }
        let a = 1 + i % 2;
        let before = w.cwnd;
        one_ack(&mut cc, &mut w, a, t);
        acked_total += a;
        t += 0.005;
        assert_eq!(w.cwnd, w.cwnd.floor(), "cwnd {} not whole", w.cwnd);
        // (a step may include a credit left from an earlier ACK, as tcp_cong_avoid_ai's)
        assert!(
            w.cwnd - before <= a as f64,
            "{before} -> {} on {a} acked",
            w.cwnd
        );
        assert!(
            w.cwnd - 20.0 <= (acked_total / 2) as f64,
            "{} after {acked_total}",
            w.cwnd
        );
    }
    // ... and once the target has run away it grows at that bound: the last 1000 ACKs
    // acknowledged 1500 segments.
    assert!(w.cwnd - at_3000 >= 749.0, "{at_3000} -> {}", w.cwnd);
}

#[test]
fn integer_cubic_target_rounds_toward_the_plateau() {
    // Loss at 10: cwnd 7, K = ∛(3 / 0.4) = 1.957 s. One RTT (10 ms) into the epoch the
    // continuous target is 10 − 0.4 · 1.947³ = 7.05, Linux's is 10 − ⌊2.95⌋ = 8: cnt =
    // 7 / (8 − 7) = 7, so the window regains a whole segment after 7 acknowledged.
    let (mut cc, mut w) = after_loss(10.0, 0.01);
    let mut cc_int = Cubic::default().integer(true);
    cc_int.rtt_min = Some(ns(0.01));
    let mut wi = Window {
        cwnd: 10.0,
        ssthresh: 1e9,
    };
    wi.ssthresh = cc_int.ssthresh_on_loss(&wi, 10, 0);
    wi.cwnd = wi.ssthresh;
    assert_eq!(wi.cwnd, 7.0);
    for i in 0..7 {
        assert_eq!(wi.cwnd, 7.0, "grew after {i} acked");
        one_ack(&mut cc_int, &mut wi, 1, 0.0001 * i as f64);
        one_ack(&mut cc, &mut w, 1, 0.0001 * i as f64);
    }
    assert_eq!(wi.cwnd, 8.0);
    // The continuous CUBIC has grown a fraction of a segment (Reno-friendly estimate).
    assert!(w.cwnd < 7.5, "continuous CUBIC {}", w.cwnd);
}

#[test]
fn integer_reno_estimate_grows_one_segment_per_15_eighths_of_cwnd_acked() {
    // cwnd = W_max = 10, so the cubic target stays at 10 for over a second (cnt = 100 cwnd):
    // the Reno-friendly estimate alone grows the window, by one whole segment once more
    // than ⌊10 · 15 / 8⌋ = 18 segments have been acknowledged.
    let mut cc = Cubic::default().integer(true);
    cc.w_max = 10.0;
    cc.rtt_min = Some(ns(0.01));
    let mut w = Window {
        cwnd: 10.0,
        ssthresh: 10.0,
    };
    for i in 1..=18 {
        one_ack(&mut cc, &mut w, 1, 0.001 * i as f64);
        assert_eq!(w.cwnd, 10.0, "grew after {i} acked");
    }
    one_ack(&mut cc, &mut w, 1, 0.019);
    assert_eq!(w.cwnd, 11.0);
}

/// Slow start from a window of 2: each round, one ACK per segment of the window, spread evenly
/// over `spread` of the round, with RTT samples `rtt(round)`. Returns (round, cwnd, ssthresh)
/// once ssthresh is no longer unbounded, or None after `max_rounds`.
fn slow_start_until_exit(
    cc: &mut Cubic,
    rtt: impl Fn(u32) -> f64,
    spread: f64,
    max_rounds: u32,
) -> Option<(u32, f64, f64)> {
    let mut w = Window {
        cwnd: 2.0,
        ssthresh: 1e9,
    };
    let mut t = 0.0;
    for round in 0..max_rounds {
        let n = w.cwnd.floor() as u32;
        let r = rtt(round);
        for k in 0..n {
            let a = AckInfo {
                acked: 1,
                now: ns(t + r * spread * k as f64 / n as f64),
                rtt_sample: Some(ns(r)),
                srtt: Some(ns(r)),
                flight: n - k,
            };
            cc.on_ack(&mut w, &a);
            if w.ssthresh < 1e9 {
                return Some((round, w.cwnd, w.ssthresh));
            }
        }
        t += r;
    }
    None
}

#[test]
fn hystart_leaves_slow_start_when_a_rounds_rtt_rises_by_an_eighth_of_the_minimum() {
    // 100 ms minimum, each round's ACKs over 40 % of it (a train never spans the 50 ms the ACK-train
    // detection needs); from round 6 (cwnd 128) the RTT is 113 ms: above 100 + 12.5 ms. Slow start
    // ends in that round, at its ninth sample, ssthresh = cwnd.
    let rtt = |r: u32| if r >= 6 { 0.113 } else { 0.100 };
    let mut cc = Cubic::default().hystart(true);
    let (round, cwnd, ssthresh) = slow_start_until_exit(&mut cc, rtt, 0.4, 12).expect("exit");
    assert_eq!(round, 6);
    // 128 + the round's first nine ACKs; the exit's own ACK then grows cwnd as congestion avoidance
    assert_eq!(ssthresh, 137.0);
    assert!(cwnd >= ssthresh && cwnd - ssthresh < 1.0, "{cwnd}");
    // 112 ms is within the threshold: no exit; without HyStart, none either
    let mut cc = Cubic::default().hystart(true);
    assert!(
        slow_start_until_exit(&mut cc, |r| if r >= 6 { 0.112 } else { 0.100 }, 0.4, 12).is_none()
    );
    let mut cc = Cubic::default();
    assert!(slow_start_until_exit(&mut cc, rtt, 0.4, 12).is_none());
}

#[test]
fn hystart_leaves_slow_start_when_a_rounds_ack_train_spans_half_the_minimum_rtt() {
    // Constant 100 ms RTT, each round's ACKs back to back over 60 % of the RTT: the train is
    // continuous (under 2 ms apart) once the window is large enough, and passes 50 ms in the first
    // round where the ACKs come within 2 ms of each other (60 ms / cwnd <= 2 ms: cwnd 32).
    let mut cc = Cubic::default().hystart(true);
    let (round, cwnd, _) = slow_start_until_exit(&mut cc, |_| 0.100, 0.6, 20).expect("exit");
    assert_eq!(round, 4);
    assert!((32.0..64.0).contains(&cwnd), "{cwnd}");
    // Below the low window (16) it never acts: ACK spacing of 60 ms / 8 is 7.5 ms anyway.
    let mut cc = Cubic::default();
    assert!(slow_start_until_exit(&mut cc, |_| 0.100, 0.6, 10).is_none());
}
