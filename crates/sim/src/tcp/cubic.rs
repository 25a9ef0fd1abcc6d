//! CUBIC (RFC 9438), with the per-ACK mechanics of Linux's `tcp_cubic`, and β as a parameter:
//! "cubic" is RFC 9438 / Linux ≥ 2.6.26 (β = 0.7, CUBIC″ of paper 003); "cubic-0.8" is the
//! CUBIC of Linux ≤ 2.6.25 (`beta = 819` of 1024, i.e. 0.8, CUBIC′ of paper 003; same C = 0.4
//! from `bic_scale = 41`, same fast convergence and TCP-friendliness rule, whose AIMD slope
//! 3(1 − β)/(1 + β) follows β).
//!
//! After a loss at window W_max the window is cut to β·W_max and then follows
//! W(t) = C·(t − K)³ + W_max, with K = ∛(W_max·(1 − β)/C) the time to get back to W_max
//! (concave below W_max, convex above it). t counts from the first ACK after the loss.
//!
//! - β = 0.7 (or 0.8), C = 0.4 segments/s³ (RFC 9438 §5.1; Linux uses 717/1024 and 410/1024).
//! - Growth per ACK: the target is W(t + RTT_min), one minimum RTT ahead, as Linux does; cwnd
//!   grows by (acked segments)/cnt with cnt = cwnd / (target − cwnd), and by at most half a
//!   segment per acknowledged segment (cnt ≥ 2, i.e. ≤ 1.5× per RTT; RFC 9438 §4.2).
//! - Reno-friendly region (RFC 9438 §4.3): an AIMD estimate W_est grows by
//!   α = 3(1 − β)/(1 + β) segments per window of ACKs; when it is above cwnd, cwnd grows at least
//!   as fast as it.
//! - Fast convergence (§4.7): a loss below the previous W_max lowers W_max to W·(1 + β)/2.
//! - After a retransmission timeout everything is forgotten (W_max = 0, as Linux's
//!   `bictcp_reset` on entering the Loss state); with no W_max, growth is at least 5 % per RTT
//!   (Linux's cnt ≤ 20 rule), so the first epoch is not flat.
//! - ssthresh = max(β·cwnd, 2), from cwnd (Linux, ns-3), not FlightSize.
//! - Slow start as the engine's Reno (+min(acked, 2) per ACK up to ssthresh).
//!
//! - `cubic_integer` (off by default; the testbed twin may ask for it): the window in whole
//!   segments as Linux's `tcp_cubic` keeps it. ssthresh = max(⌊β·cwnd⌋, 2) and W_max (fast
//!   convergence included) rounded down; the per-ACK divisor cnt an integer quotient
//!   (cwnd / (target − cwnd), target = origin ± ⌊C·|t − K|³⌋), at least 2; cwnd grows through an
//!   ACK counter (`tcp_cong_avoid_ai`: +1 each time cnt segments have been acknowledged, the
//!   counter cleared at every window reduction); the Reno-friendly estimate is a whole number of
//!   segments that grows by one per ⌊cwnd·s/8⌋ acknowledged (s = ⌊8(1 + β)/(3(1 − β))⌋ in
//!   Linux's 1024ths: 15 for β = 0.7) and, once above cwnd, caps cnt at ⌊cwnd / (W_est − cwnd)⌋.
//!   K stays in floating point (Linux's cube-root table moves it by under 1 %), and the
//!   HZ/32 caching of cnt between ACKs is not modelled.
//!
//! Not modelled: HyStart (Linux leaves slow start early on ACK-train or delay signals; it only
//! shapes the first slow start, which the measurement window's warm-up excludes), and Linux's
//! integer arithmetic (cube-root table, jiffies), which moves K by well under 1 %.
use super::cc::{AckInfo, CcContext, CongestionControl, Window};
use super::reno::slow_start;
use crate::time::{secs, Ns};

/// Multiplicative decrease factor β of RFC 9438 / Linux ≥ 2.6.26.
pub const BETA: f64 = 0.7;
/// β of Linux ≤ 2.6.25 (819/1024 rounded as the paper does).
pub const BETA_OLD: f64 = 0.8;
/// Cubic scaling constant C, segments / s³.
pub const C: f64 = 0.4;
/// Reno-friendly additive increase per window, α = 3(1 − β)/(1 + β) (≈ 0.53 segments per RTT).
pub const ALPHA: f64 = 3.0 * (1.0 - BETA) / (1.0 + BETA);

#[derive(Debug, Clone)]
pub struct Cubic {
    /// Multiplicative decrease factor β.
    beta: f64,
    /// Reno-friendly slope α = 3(1 − β)/(1 + β), segments per RTT.
    alpha: f64,
    /// Window at the last loss (after fast convergence); 0 = none (start, or after a timeout).
    w_max: f64,
    /// Start of the current congestion-avoidance epoch; None until the first ACK after a loss.
    epoch_start: Option<Ns>,
    /// Time from the epoch start to W_max, seconds.
    k: f64,
    /// The plateau the cubic function is centred on (W_max, or cwnd if cwnd ≥ W_max at the epoch start).
    origin: f64,
    /// Reno-friendly window estimate W_est.
    w_est: f64,
    /// Smallest RTT sample seen, ns.
    rtt_min: Option<Ns>,
    /// Linux's integer arithmetic (`TcpParams::cubic_integer`).
    integer: bool,
    /// Integer mode: segments acknowledged since the Reno estimate last grew (Linux `ack_cnt`),
    /// the estimate itself (`tcp_cwnd`), and the ACK counter of `tcp_cong_avoid_ai`
    /// (`snd_cwnd_cnt`).
    ack_cnt: u64,
    tcp_cwnd: u64,
    cwnd_cnt: u64,
}

impl Default for Cubic {
    fn default() -> Cubic {
        Cubic::with_beta(BETA)
    }
}

pub fn make(ctx: &CcContext) -> Box<dyn CongestionControl> {
    Box::new(Cubic::with_beta(BETA).integer(ctx.tcp.cubic_integer))
}

pub fn make_08(ctx: &CcContext) -> Box<dyn CongestionControl> {
    Box::new(Cubic::with_beta(BETA_OLD).integer(ctx.tcp.cubic_integer))
}

impl Cubic {
    pub fn with_beta(beta: f64) -> Cubic {
        Cubic {
            beta,
            alpha: 3.0 * (1.0 - beta) / (1.0 + beta),
            w_max: 0.0,
            epoch_start: None,
            k: 0.0,
            origin: 0.0,
            w_est: 0.0,
            rtt_min: None,
            integer: false,
            ack_cnt: 0,
            tcp_cwnd: 0,
            cwnd_cnt: 0,
        }
    }

    /// Linux's integer arithmetic on (`true`) or the continuous CUBIC (`false`, the default).
    pub fn integer(mut self, on: bool) -> Cubic {
        self.integer = on;
        self
    }

    /// β in Linux's 1024ths (717 for 0.7, 819 for 0.8).
    fn beta_1024(&self) -> u64 {
        (self.beta * 1024.0).round() as u64
    }

    /// Integer mode, congestion avoidance: Linux's `bictcp_update` then `tcp_cong_avoid_ai`.
    fn on_ack_integer(&mut self, w: &mut Window, ack: &AckInfo) {
        let cwnd = (w.cwnd.floor() as u64).max(1);
        let acked = ack.acked as u64;
        self.ack_cnt += acked;
        if self.epoch_start.is_none() {
            self.start_epoch(
                &Window {
                    cwnd: cwnd as f64,
                    ..*w
                },
                ack.now,
            );
            self.ack_cnt = acked;
            self.tcp_cwnd = cwnd;
        }
        let t =
            secs(ack.now - self.epoch_start.unwrap_or(ack.now)) + self.rtt_min.map_or(0.0, secs);
        let d = t - self.k;
        let delta = (C * d.abs().powi(3)).floor();
        let target = if d < 0.0 {
            (self.origin - delta).max(0.0)
        } else {
            self.origin + delta
        } as u64;
        let mut cnt = if target > cwnd {
            cwnd / (target - cwnd)
        } else {
            100 * cwnd
        };
        if self.w_max == 0.0 && cnt > 20 {
            cnt = 20;
        }
        // Reno-friendly estimate: one whole segment per ⌊cwnd·s/8⌋ acknowledged.
        let b = self.beta_1024();
        let scale = 8 * (1024 + b) / 3 / (1024 - b);
        let per = ((cwnd * scale) >> 3).max(1);
        while self.ack_cnt > per {
            self.ack_cnt -= per;
            self.tcp_cwnd += 1;
        }
        if self.tcp_cwnd > cwnd {
            cnt = cnt.min(cwnd / (self.tcp_cwnd - cwnd));
        }
        let cnt = cnt.max(2);
        // tcp_cong_avoid_ai: credits from a larger cnt first, then this ACK's.
        let mut c = cwnd;
        if self.cwnd_cnt >= cnt {
            self.cwnd_cnt = 0;
            c += 1;
        }
        self.cwnd_cnt += acked;
        if self.cwnd_cnt >= cnt {
            let d = self.cwnd_cnt / cnt;
            self.cwnd_cnt -= d * cnt;
            c += d;
        }
        w.cwnd = c as f64;
    }

    pub fn beta(&self) -> f64 {
        self.beta
    }

    /// The cubic window W(t) of the current epoch, t seconds after its start.
    pub fn w_cubic(&self, t: f64) -> f64 {
        let d = t - self.k;
        C * d * d * d + self.origin
    }

    /// K of the current epoch, seconds.
    pub fn k(&self) -> f64 {
        self.k
    }

    /// W_max remembered from the last loss (0 after a timeout or before any loss).
    pub fn w_max(&self) -> f64 {
        self.w_max
    }

    fn start_epoch(&mut self, w: &Window, now: Ns) {
        self.epoch_start = Some(now);
        self.w_est = w.cwnd;
        if self.w_max <= w.cwnd {
            self.k = 0.0;
            self.origin = w.cwnd;
        } else {
            self.k = ((self.w_max - w.cwnd) / C).cbrt();
            self.origin = self.w_max;
        }
    }
}

impl CongestionControl for Cubic {
    fn on_ack(&mut self, w: &mut Window, ack: &AckInfo) {
        if let Some(s) = ack.rtt_sample {
            self.rtt_min = Some(self.rtt_min.map_or(s, |m| m.min(s)));
        }
        if w.cwnd < w.ssthresh {
            slow_start(w, ack.acked);
            return;
        }
        if self.integer {
            self.on_ack_integer(w, ack);
            return;
        }
        if self.epoch_start.is_none() {
            self.start_epoch(w, ack.now);
        }
        let acked = ack.acked as f64;
        let t =
            secs(ack.now - self.epoch_start.unwrap_or(ack.now)) + self.rtt_min.map_or(0.0, secs);
        let target = self.w_cubic(t);
        // cwnd grows by acked / cnt; cnt = number of ACKed segments per +1 segment.
        let mut cnt = if target > w.cwnd {
            w.cwnd / (target - w.cwnd)
        } else {
            100.0 * w.cwnd
        };
        if self.w_max == 0.0 && cnt > 20.0 {
            cnt = 20.0;
        }
        self.w_est += self.alpha * acked / w.cwnd;
        if self.w_est > w.cwnd {
            cnt = cnt.min(w.cwnd / (self.w_est - w.cwnd));
        }
        w.cwnd += acked / cnt.max(2.0);
    }

    fn ssthresh_on_loss(&mut self, w: &Window, _flight: u32, _now: Ns) -> f64 {
        self.epoch_start = None;
        if self.integer {
            // Linux: W_max and ssthresh in whole segments, rounded down; the ACK counter restarts.
            let cwnd = (w.cwnd.floor() as u64).max(1);
            let b = self.beta_1024();
            self.w_max = if (cwnd as f64) < self.w_max {
                (cwnd * (1024 + b) / 2048) as f64
            } else {
                cwnd as f64
            };
            self.cwnd_cnt = 0;
            return ((cwnd * b / 1024) as f64).max(2.0);
        }
        self.w_max = if w.cwnd < self.w_max {
            w.cwnd * (1.0 + self.beta) / 2.0
        } else {
            w.cwnd
        };
        (w.cwnd * self.beta).max(2.0)
    }

    fn on_timeout(&mut self, w: &mut Window, flight: u32, now: Ns) {
        w.ssthresh = self.ssthresh_on_loss(w, flight, now);
        *self = Cubic {
            rtt_min: self.rtt_min,
            ..Cubic::with_beta(self.beta).integer(self.integer)
        };
    }
}

#[cfg(test)]
mod tests {
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
}
