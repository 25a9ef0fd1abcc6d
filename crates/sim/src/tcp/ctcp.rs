//! Compound TCP (K. Tan, J. Song, Q. Zhang, M. Sridharan, "A Compound TCP Approach for
//! High-Speed and Long Distance Networks", INFOCOM 2006; also draft-sridharan-tcpm-ctcp-02):
//! the sending window is win = lwnd + dwnd, a Reno loss window plus a delay window.
//!
//! - lwnd: Reno, +acked/win per ACK (one segment per RTT of the whole window).
//! - dwnd, once per round (an SRTT), from the Vegas-style backlog estimate
//!   diff = win · (1 − baseRTT / RTT) (segments queued in the network), baseRTT the smallest
//!   RTT sample seen and RTT the mean of the round's samples:
//!   diff < γ: dwnd += max(α·win^k − 1, 0) (so win grows by α·win^k per RTT);
//!   diff ≥ γ: dwnd = max(dwnd − ζ·diff, 0).
//!   Published values α = 1/8, k = 3/4, γ = 30 packets, ζ = 1. The increase is spread over the
//!   round's ACKs (as many small steps as ACKs, not one burst); the decrease applies at once.
//! - Loss (fast retransmit): win → (1 − β)·win with β = 1/2: lwnd halves and
//!   dwnd = max(win·(1 − β) − lwnd/2, 0); ssthresh = the new win.
//! - Slow start and timeouts as Reno (dwnd = 0 after a timeout).
//!
//! Paper 003's Table II uses the pure delay-window law, w(t) = (t/32 + (β w_max)^¼)⁴ with t in
//! RTTs, i.e. dw/dt = w^¾/8: the growth of this control while the backlog stays below γ.
use super::cc::{AckInfo, CcContext, CongestionControl, Window};
use super::reno::slow_start;
use crate::time::{secs, Ns};

pub const ALPHA: f64 = 0.125;
pub const BETA: f64 = 0.5;
pub const K: f64 = 0.75;
/// Backlog threshold γ, segments.
pub const GAMMA: f64 = 30.0;
/// Decrease factor ζ of the delay window per segment of backlog.
pub const ZETA: f64 = 1.0;

#[derive(Debug, Clone, Default)]
pub struct Ctcp {
    /// Delay window, segments.
    dwnd: f64,
    /// Smallest RTT sample, seconds.
    base_rtt: Option<f64>,
    /// End of the current round.
    round_end: Ns,
    /// RTT samples of the current round (sum, count).
    rtt_sum: f64,
    rtt_n: u32,
    /// Per-RTT growth of dwnd decided at the last round end (spread over this round's ACKs).
    dwnd_step: f64,
}

pub fn make(_ctx: &CcContext) -> Box<dyn CongestionControl> {
    Box::new(Ctcp::default())
}

impl Ctcp {
    pub fn dwnd(&self) -> f64 {
        self.dwnd
    }

    /// The published per-round dwnd update, for window `win` and backlog `diff` (segments):
    /// returns the new dwnd.
    pub fn dwnd_update(dwnd: f64, win: f64, diff: f64) -> f64 {
        if diff < GAMMA {
            dwnd + (ALPHA * win.powf(K) - 1.0).max(0.0)
        } else {
            (dwnd - ZETA * diff).max(0.0)
        }
    }

    fn end_round(&mut self, w: &Window, now: Ns, srtt: Option<Ns>) {
        let rtt = if self.rtt_n > 0 {
            Some(self.rtt_sum / self.rtt_n as f64)
        } else {
            srtt.map(secs)
        };
        self.dwnd_step = 0.0;
        if let (Some(rtt), Some(base)) = (rtt, self.base_rtt) {
            let diff = w.cwnd * (1.0 - base / rtt).max(0.0);
            let next = Self::dwnd_update(self.dwnd, w.cwnd, diff);
            if next >= self.dwnd {
                self.dwnd_step = next - self.dwnd;
            } else {
                self.dwnd = next;
            }
        }
        self.rtt_sum = 0.0;
        self.rtt_n = 0;
        let len = rtt.map_or(0, crate::time::ns).max(1);
        self.round_end = now + len;
    }
}

impl CongestionControl for Ctcp {
    fn on_ack(&mut self, w: &mut Window, ack: &AckInfo) {
        if let Some(s) = ack.rtt_sample {
            let s = secs(s);
            self.base_rtt = Some(self.base_rtt.map_or(s, |b| b.min(s)));
            self.rtt_sum += s;
            self.rtt_n += 1;
        }
        if w.cwnd < w.ssthresh {
            self.dwnd = 0.0;
            slow_start(w, ack.acked);
            return;
        }
        // The sender owns cwnd (recovery, timeouts and the window cap change it): the loss
        // window is what is not delay window.
        if self.dwnd > w.cwnd - 1.0 {
            self.dwnd = (w.cwnd - 1.0).max(0.0);
        }
        if ack.now >= self.round_end {
            let before = self.dwnd;
            self.end_round(w, ack.now, ack.srtt);
            w.cwnd -= before - self.dwnd;
        }
        let acked = ack.acked.min(2) as f64;
        let lwnd_inc = acked / w.cwnd;
        let dwnd_inc = self.dwnd_step * acked / w.cwnd;
        self.dwnd += dwnd_inc;
        w.cwnd += lwnd_inc + dwnd_inc;
    }

    fn ssthresh_on_loss(&mut self, w: &Window, _flight: u32, _now: Ns) -> f64 {
        let win = w.cwnd;
        let lwnd = (win - self.dwnd).max(1.0);
        self.dwnd = (win * (1.0 - BETA) - lwnd / 2.0).max(0.0);
        self.dwnd_step = 0.0;
        self.round_end = 0;
        (lwnd / 2.0 + self.dwnd).max(2.0)
    }

    fn on_timeout(&mut self, w: &mut Window, flight: u32, _now: Ns) {
        // Reno's rule on the whole window; the delay window is dropped.
        w.ssthresh = (flight as f64 / 2.0).max(2.0);
        self.dwnd = 0.0;
        self.dwnd_step = 0.0;
        self.round_end = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::ns;

    /// Rounds of one ACK per segment at RTT `rtt` (seconds), `n` rounds from time t0.
    fn rounds(cc: &mut Ctcp, w: &mut Window, rtt: f64, t0: f64, n: usize) -> (Vec<f64>, f64) {
        let mut out = vec![w.cwnd];
        let mut t = t0;
        for _ in 0..n {
            let m = w.cwnd.floor() as u32;
            for i in 0..m {
                let a = AckInfo {
                    acked: 1,
                    now: ns(t + rtt * i as f64 / m as f64),
                    rtt_sample: if i == 0 { Some(ns(rtt)) } else { None },
                    srtt: Some(ns(rtt)),
                    flight: m,
                };
                cc.on_ack(w, &a);
            }
            t += rtt;
            out.push(w.cwnd);
        }
        (out, t)
    }

    #[test]
    fn no_backlog_grows_alpha_win_to_the_k_per_rtt() {
        // RTT = baseRTT: diff = 0 < γ, so win(n+1) = win(n) + α·win(n)^k (Reno's +1 included).
        let mut cc = Ctcp::default();
        let mut w = Window {
            cwnd: 100.0,
            ssthresh: 50.0,
        };
        let (tr, _) = rounds(&mut cc, &mut w, 0.1, 0.0, 12);
        // The first round only measures (its update needs a round's RTT); from then on each
        // round adds α·win^k, the delay part spread over the round's ACKs.
        for i in 2..tr.len() - 1 {
            let grow = tr[i + 1] - tr[i];
            let expect = ALPHA * tr[i].powf(K);
            assert!(
                (grow - expect).abs() < 0.12 * expect,
                "round {i}: +{grow:.3} vs {expect:.3}"
            );
        }
        assert!(cc.dwnd() > 20.0, "dwnd {}", cc.dwnd());
    }

    #[test]
    fn backlog_above_gamma_shrinks_dwnd_by_diff() {
        let mut cc = Ctcp::default();
        let mut w = Window {
            cwnd: 100.0,
            ssthresh: 50.0,
        };
        let (_, t) = rounds(&mut cc, &mut w, 0.1, 0.0, 6);
        let (win, dwnd) = (w.cwnd, cc.dwnd());
        // RTT 0.15 s against base 0.1 s: diff = win/3 >= γ = 30 (win ≈ 116).
        let (_, _) = rounds(&mut cc, &mut w, 0.15, t, 2);
        let diff = win * (1.0 - 0.1 / 0.15);
        assert!(diff >= GAMMA);
        assert!(
            cc.dwnd() <= (dwnd - diff).max(0.0) + 1.0,
            "{} -> {}",
            dwnd,
            cc.dwnd()
        );
        assert_eq!(Ctcp::dwnd_update(50.0, 120.0, 40.0), 10.0);
        assert_eq!(Ctcp::dwnd_update(10.0, 120.0, 40.0), 0.0);
        assert!((Ctcp::dwnd_update(10.0, 256.0, 5.0) - (10.0 + 0.125 * 64.0 - 1.0)).abs() < 1e-12);
    }

    #[test]
    fn loss_halves_the_whole_window() {
        let mut cc = Ctcp::default();
        cc.dwnd = 60.0;
        let w = Window {
            cwnd: 100.0,
            ssthresh: 50.0,
        };
        // lwnd = 40: win·(1 − β) = 50 = lwnd/2 + dwnd with dwnd = 50 − 20 = 30.
        assert_eq!(cc.ssthresh_on_loss(&w, 100, 0), 50.0);
        assert_eq!(cc.dwnd(), 30.0);
        // dwnd never negative: mostly loss window.
        cc.dwnd = 2.0;
        assert_eq!(cc.ssthresh_on_loss(&w, 100, 0), 50.0);
        assert_eq!(cc.dwnd(), 1.0);
    }
}
