//! BIC — Binary Increase Congestion control (Xu, Harfoush, Rhee, "Binary Increase Congestion
//! Control for Fast, Long Distance Networks", INFOCOM 2004), with the parameters and per-ACK
//! rules of Linux's `net/ipv4/tcp_bic.c` (the BIC of paper 003; behaviour learnt from that file,
//! code written here):
//!
//! - β = 819/1024 (≈ 0.8): on a loss ssthresh = β·cwnd (cwnd/2 at or below `low_window`), and
//!   W_max = cwnd, or cwnd·(1 + β)/2 when the loss comes below the previous W_max (fast
//!   convergence).
//! - At or below `low_window` = 14 segments: Reno (+1 segment per RTT).
//! - Below W_max, binary search: each RTT the window moves a quarter of the way to W_max
//!   (Linux's `BICTCP_B` = 4: +dist with dist = (W_max − cwnd)/4), at most `max_increment`
//!   (Smax) = 16 segments per RTT (additive increase far from W_max); within 4 segments of
//!   W_max the step is `BICTCP_B / smooth_part` = 4/20 = 0.2 segment per RTT (Smin, smoothing).
//! - Above W_max, max probing: 0.2 segment per RTT within 4 segments of W_max, then
//!   (cwnd − W_max)/3 per RTT (slow-start-like), and Smax = 16 per RTT beyond W_max + 48.
//! - With no W_max (start, or after a timeout, which forgets it), at least 5 % per RTT.
//!
//! The step is applied per ACK as acked/cnt, cnt = cwnd / (step per RTT), as Linux does.
//! Not modelled: Linux's integer arithmetic (cwnd and dist are integers there, which makes
//! steps below one segment coarser) and its estimate of the delayed-ACK ratio (growth here
//! counts acknowledged segments instead, L = 2 per ACK as everywhere in the engine).
use super::cc::{AckInfo, CcContext, CongestionControl, Window};
use super::reno::slow_start;
use crate::time::Ns;

/// Multiplicative decrease, 819/1024.
pub const BETA: f64 = 819.0 / 1024.0;
/// Below this window BIC behaves like Reno (`low_window`).
pub const LOW_WINDOW: f64 = 14.0;
/// Largest step per RTT, segments (`max_increment`, Smax).
pub const MAX_INCREMENT: f64 = 16.0;
/// Binary search divisor (`BICTCP_B`): each RTT goes 1/B of the way to W_max.
pub const B: f64 = 4.0;
/// `smooth_part`: near W_max the step is B / SMOOTH_PART segment per RTT (Smin).
pub const SMOOTH_PART: f64 = 20.0;

#[derive(Debug, Clone, Default)]
pub struct Bic {
    /// Window before the last loss (after fast convergence); 0 = unknown.
    w_max: f64,
}

pub fn make(_ctx: &CcContext) -> Box<dyn CongestionControl> {
    Box::new(Bic::default())
}

impl Bic {
    pub fn w_max(&self) -> f64 {
        self.w_max
    }

    /// Segments added per RTT at window `cwnd` (Linux computes cnt = cwnd / this).
    pub fn step_per_rtt(&self, cwnd: f64) -> f64 {
        let w_max = self.w_max;
        if cwnd <= LOW_WINDOW {
            return 1.0;
        }
        let step = if cwnd < w_max {
            let dist = (w_max - cwnd) / B;
            if dist > MAX_INCREMENT {
                MAX_INCREMENT
            } else if dist <= 1.0 {
                B / SMOOTH_PART
            } else {
                dist
            }
        } else if cwnd < w_max + B {
            B / SMOOTH_PART
        } else if cwnd < w_max + MAX_INCREMENT * (B - 1.0) {
            (cwnd - w_max) / (B - 1.0)
        } else {
            MAX_INCREMENT
        };
        if w_max == 0.0 {
            step.max(cwnd / 20.0)
        } else {
            step
        }
    }
}

impl CongestionControl for Bic {
    fn on_ack(&mut self, w: &mut Window, ack: &AckInfo) {
        if w.cwnd < w.ssthresh {
            slow_start(w, ack.acked);
            return;
        }
        let step = self.step_per_rtt(w.cwnd);
        // cnt = cwnd / step ACKed segments per +1 segment (never below 1: at most +1 per segment)
        let cnt = (w.cwnd / step).max(1.0);
        w.cwnd += ack.acked.min(2) as f64 / cnt;
    }

    fn ssthresh_on_loss(&mut self, w: &Window, _flight: u32, _now: Ns) -> f64 {
        self.w_max = if w.cwnd < self.w_max {
            w.cwnd * (1.0 + BETA) / 2.0
        } else {
            w.cwnd
        };
        if w.cwnd <= LOW_WINDOW {
            (w.cwnd / 2.0).max(2.0)
        } else {
            (w.cwnd * BETA).max(2.0)
        }
    }

    fn on_timeout(&mut self, w: &mut Window, flight: u32, now: Ns) {
        w.ssthresh = self.ssthresh_on_loss(w, flight, now);
        self.w_max = 0.0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One RTT of per-segment ACKs at a constant window.
    fn round(cc: &mut Bic, w: &mut Window) {
        let n = w.cwnd.floor() as u32;
        for _ in 0..n {
            let a = AckInfo {
                acked: 1,
                now: 0,
                rtt_sample: None,
                srtt: None,
                flight: n,
            };
            cc.on_ack(w, &a);
        }
    }

    #[test]
    fn binary_search_halves_the_distance_to_w_max_by_quarters() {
        // Loss at 1000: cwnd 800 (β = 0.8), W_max = 1000.
        let mut cc = Bic::default();
        let mut w = Window {
            cwnd: 1000.0,
            ssthresh: 1e9,
        };
        w.ssthresh = cc.ssthresh_on_loss(&w, 1000, 0);
        w.cwnd = w.ssthresh;
        assert!((w.cwnd - 1000.0 * 819.0 / 1024.0).abs() < 1e-9);
        assert_eq!(cc.w_max(), 1000.0);
        // Far from W_max (dist = 50 > Smax): additive increase of 16 per RTT.
        let before = w.cwnd;
        round(&mut cc, &mut w);
        assert!((w.cwnd - before - 16.0).abs() < 0.5, "{}", w.cwnd - before);
        // Closer: each RTT removes about a quarter of the remaining distance (binary search
        // with B = 4), the per-ACK application adding a little within the round.
        let mut w = Window {
            cwnd: 960.0,
            ssthresh: 1.0,
        };
        let mut prev = 1000.0 - w.cwnd;
        for _ in 0..6 {
            round(&mut cc, &mut w);
            let d = 1000.0 - w.cwnd;
            if prev / B > 1.0 {
                let expect = prev * (1.0 - 1.0 / B);
                assert!(
                    (d - expect).abs() < 0.05 * prev,
                    "distance {d:.2} vs {expect:.2}"
                );
            }
            prev = d;
        }
        // Within 4 segments of W_max: 0.2 per RTT (Smin), on both sides of it.
        let mut w = Window {
            cwnd: 998.0,
            ssthresh: 1.0,
        };
        round(&mut cc, &mut w);
        assert!((w.cwnd - 998.2).abs() < 0.01, "{}", w.cwnd);
        let mut w = Window {
            cwnd: 1001.0,
            ssthresh: 1.0,
        };
        round(&mut cc, &mut w);
        assert!((w.cwnd - 1001.2).abs() < 0.01);
        // Max probing: (cwnd − W_max)/3 per RTT, then Smax.
        assert!((cc.step_per_rtt(1030.0) - 10.0).abs() < 1e-9);
        assert_eq!(cc.step_per_rtt(1100.0), 16.0);
    }

    #[test]
    fn fast_convergence_low_window_and_timeout() {
        let mut cc = Bic::default();
        let w = Window {
            cwnd: 100.0,
            ssthresh: 1e9,
        };
        cc.ssthresh_on_loss(&w, 100, 0);
        // A loss below W_max = 100 lowers it to 90 · (1 + β)/2.
        let w = Window {
            cwnd: 90.0,
            ssthresh: 80.0,
        };
        cc.ssthresh_on_loss(&w, 90, 0);
        assert!((cc.w_max() - 90.0 * (1.0 + BETA) / 2.0).abs() < 1e-9);
        // Small windows: Reno's halving and +1 per RTT.
        let w = Window {
            cwnd: 12.0,
            ssthresh: 1e9,
        };
        assert_eq!(cc.ssthresh_on_loss(&w, 12, 0), 6.0);
        assert_eq!(cc.step_per_rtt(12.0), 1.0);
        // A timeout forgets W_max; growth is then >= 5 % per RTT.
        let mut w = Window {
            cwnd: 200.0,
            ssthresh: 1e9,
        };
        cc.on_timeout(&mut w, 200, 0);
        assert_eq!(cc.w_max(), 0.0);
        assert!((cc.step_per_rtt(200.0) - 16.0).abs() < 1e-9);
        assert!((cc.step_per_rtt(1000.0) - 50.0).abs() < 1e-9);
    }
}
