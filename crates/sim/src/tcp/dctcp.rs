//! DCTCP (RFC 8257; Alizadeh et al., SIGCOMM 2010): Reno growth, and a window reduction in
//! proportion to the extent of congestion instead of a halving. The sender estimates the
//! fraction of its segments that were marked, α ← (1 − g)·α + g·F, once per window of data (F:
//! the segments acknowledged with ECE over those acknowledged in that window; g = 1/16; α starts
//! at 1, as Linux's `dctcp_alpha_on_init` and ns-3's `TcpDctcp`), and answers ECE, at most once
//! per window (the sender's rule), with cwnd ← cwnd·(1 − α/2), never below 2 segments. A loss is
//! handled as Reno (RFC 8257 §3.4): ssthresh = max(FlightSize/2, 2). The receiver's echo (ECE
//! repeats the CE bit, with an immediate ACK when it changes) is in `receiver.rs`.
//!
//! Growth counts the segments each ACK covers (RFC 3465's L = 2), whatever the profile's Reno
//! counts: Linux's dctcp grows by `tcp_reno_cong_avoid` (segments acknowledged), and ns-3's
//! `TcpDctcp` derives from `TcpLinuxReno`, which counts them too, not from `TcpNewReno`, which
//! grows once per ACK (the `ns3` profile's `abc_limit` = 1 describes TcpNewReno only). With
//! delayed ACKs the per-ACK rule would grow half as fast and need half the marks.
use super::cc::{AckInfo, CcContext, CongestionControl, Window};
use super::reno::Reno;
use crate::time::Ns;

/// The EWMA weight g (RFC 8257 §4.2, Linux's `dctcp_shift_g` = 4).
pub const G: f64 = 1.0 / 16.0;

pub struct Dctcp {
    reno: Reno,
    alpha: f64,
    /// The current observation window ends when snd_una reaches this (snd_max at its start).
    window_end: u32,
    acked: u64,
    marked: u64,
}

pub fn make(_ctx: &CcContext) -> Box<dyn CongestionControl> {
    Box::new(Dctcp::new(GROWTH_ABC_LIMIT))
}

/// The segments one ACK may count towards growth: RFC 3465's L, as Linux and ns-3 count them.
const GROWTH_ABC_LIMIT: u32 = 2;

impl Dctcp {
    pub fn new(abc_limit: u32) -> Dctcp {
        Dctcp {
            reno: Reno { limit: abc_limit },
            alpha: 1.0,
            window_end: 0,
            acked: 0,
            marked: 0,
        }
    }

    /// The current estimate α of the fraction of marked segments.
    pub fn alpha(&self) -> f64 {
        self.alpha
    }
}

impl CongestionControl for Dctcp {
    fn on_ack(&mut self, w: &mut Window, ack: &AckInfo) {
        self.reno.on_ack(w, ack)
    }

    fn ssthresh_on_loss(&mut self, w: &Window, flight: u32, now: Ns) -> f64 {
        self.reno.ssthresh_on_loss(w, flight, now)
    }

    fn ssthresh_on_ece(&mut self, w: &Window, _flight: u32, _now: Ns) -> f64 {
        (w.cwnd * (1.0 - self.alpha / 2.0)).max(2.0)
    }

    fn on_ecn_ack(&mut self, acked: u32, ece: bool, snd_una: u32, snd_max: u32) {
        self.acked += acked as u64;
        if ece {
            self.marked += acked as u64;
        }
        if snd_una >= self.window_end {
            let f = if self.acked == 0 {
                0.0
            } else {
                self.marked as f64 / self.acked as f64
            };
            self.alpha = (1.0 - G) * self.alpha + G * f;
            self.acked = 0;
            self.marked = 0;
            self.window_end = snd_max;
        }
    }

    fn needs_dctcp_ecn(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Windows of `w` segments, one ACK per segment, every `every`-th ACK carrying ECE
    /// (marked fraction 1/every), `n` windows: α after them.
    fn steady(every: u32, w: u32, n: u32) -> f64 {
        let mut d = Dctcp::new(2);
        let mut una = 0;
        for _ in 0..n {
            let end = una + w;
            while una < end {
                una += 1;
                d.on_ecn_ack(1, una % every == 0, una, end + w);
            }
        }
        d.alpha()
    }

    #[test]
    fn alpha_converges_to_the_marked_fraction() {
        for (every, f) in [(4u32, 0.25), (10, 0.1), (2, 0.5)] {
            let a = steady(every, 40, 400);
            assert!((a - f).abs() < 1e-3, "1/{every}: alpha {a}");
        }
        // No marks: α decays from 1 by (1 − g) per window.
        let a = steady(u32::MAX, 40, 10);
        assert!((a - (1.0 - G).powi(10)).abs() < 0.07, "{a}");
    }

    #[test]
    fn growth_counts_both_segments_of_a_delayed_ack_under_every_profile() {
        // The ns3 profile's TcpNewReno rule (one count per ACK) must not reach DCTCP: ns-3's
        // TcpDctcp grows as TcpLinuxReno, Linux's dctcp as tcp_reno_cong_avoid.
        let tcp = crate::tcp::params::TcpParams {
            abc_limit: 1,
            ..Default::default()
        };
        let mut d = make(&CcContext {
            tcp: &tcp,
            seed: 0,
            flow: 0,
        });
        let mut w = Window {
            cwnd: 50.0,
            ssthresh: 10.0,
        };
        let ack = AckInfo {
            acked: 2,
            now: 0,
            rtt_sample: None,
            srtt: None,
            flight: 50,
        };
        // A window of 50 segments acknowledged two at a time: one segment more.
        for _ in 0..25 {
            d.on_ack(&mut w, &ack);
        }
        assert!((w.cwnd - 51.0).abs() < 0.02, "cwnd {}", w.cwnd);
    }

    #[test]
    fn alpha_moves_once_per_window_by_g() {
        // One window all marked after α = 0 (forced): α = g exactly, not g per ACK.
        let mut d = Dctcp::new(2);
        d.alpha = 0.0;
        d.window_end = 10;
        for una in 1..=10 {
            d.on_ecn_ack(1, true, una, 20);
        }
        assert!((d.alpha() - G).abs() < 1e-12, "{}", d.alpha());
    }

    #[test]
    fn an_ece_reduction_scales_by_one_minus_alpha_over_two_and_a_loss_halves() {
        let mut d = Dctcp::new(2);
        let w = Window {
            cwnd: 100.0,
            ssthresh: f64::INFINITY,
        };
        d.alpha = 0.2;
        assert!((d.ssthresh_on_ece(&w, 100, 0) - 90.0).abs() < 1e-12);
        assert_eq!(d.ssthresh_on_loss(&w, 100, 0), 50.0);
        d.alpha = 1.0;
        let small = Window { cwnd: 3.0, ..w };
        assert_eq!(d.ssthresh_on_ece(&small, 3, 0), 2.0);
    }
}
