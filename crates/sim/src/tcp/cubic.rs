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
}

impl Default for Cubic {
    fn default() -> Cubic {
        Cubic::with_beta(BETA)
    }
}

pub fn make(_ctx: &CcContext) -> Box<dyn CongestionControl> {
    Box::new(Cubic::with_beta(BETA))
}

pub fn make_08(_ctx: &CcContext) -> Box<dyn CongestionControl> {
    Box::new(Cubic::with_beta(BETA_OLD))
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
        }
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
            ..Cubic::with_beta(self.beta)
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
}
