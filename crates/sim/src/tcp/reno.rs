//! Reno AIMD (RFC 5681): slow start below ssthresh, +1 segment per window in congestion
//! avoidance, halve on loss.
//!
//! Growth counts the segments an ACK covers, limited to L = 2 per ACK (appropriate byte
//! counting, RFC 3465): slow start adds min(acked, 2), congestion avoidance min(acked, 2)/cwnd.
//! With an ACK per segment this is exactly ns-2's +1 / +1/cwnd per ACK; with delayed ACKs it
//! grows like Linux; and a cumulative ACK that jumps over a repaired hole cannot make cwnd jump
//! (RFC 5681 §3.1 limits slow start to one SMSS per ACK; L = 2 is RFC 3465's allowance).
//! Registered twice: "reno" (RFC 5681 fast recovery) and "newreno" (RFC 6582 recovery).
use super::cc::{AckInfo, CcContext, CongestionControl, Window};
use crate::time::Ns;

/// `limit`: the segments one ACK may count (`TcpParams::abc_limit`: 2 is RFC 3465's L, 1 is ns-3's
/// TcpNewReno and ns-2, which grow per ACK whatever it covers).
pub struct Reno {
    pub limit: u32,
}

impl Default for Reno {
    fn default() -> Self {
        Reno { limit: 2 }
    }
}

pub fn make(ctx: &CcContext) -> Box<dyn CongestionControl> {
    Box::new(Reno {
        limit: ctx.tcp.abc_limit.max(1),
    })
}

/// Reno growth with pacing (registered as "newreno-paced"): new segments leave at
/// gain x cwnd / SRTT, gain 2 in slow start and 1.2 in congestion avoidance (the ratios Linux
/// uses for its pacing rate, `tcp_pacing_ss_ratio` / `tcp_pacing_ca_ratio` in tcp_input.c);
/// unpaced until the first RTT sample. Paper 002's paced TCP (gain 1, evenly over the RTT) is
/// "paced" in `paced.rs`.
pub struct PacedReno(Reno);

pub fn make_paced(ctx: &CcContext) -> Box<dyn CongestionControl> {
    Box::new(PacedReno(Reno {
        limit: ctx.tcp.abc_limit.max(1),
    }))
}

impl CongestionControl for PacedReno {
    fn on_ack(&mut self, w: &mut Window, ack: &AckInfo) {
        self.0.on_ack(w, ack)
    }
    fn ssthresh_on_loss(&mut self, w: &Window, flight: u32, now: Ns) -> f64 {
        self.0.ssthresh_on_loss(w, flight, now)
    }
    fn pacing_rate(&self, w: &Window, srtt: Option<Ns>) -> Option<f64> {
        let gain = if w.cwnd < w.ssthresh { 2.0 } else { 1.2 };
        srtt.filter(|&s| s > 0)
            .map(|s| gain * w.cwnd / (s as f64 / 1e9))
    }
}

/// Slow start: +min(acked, 2) segments per ACK, not beyond ssthresh in one step (RFC 5681 §3.1
/// lets either phase handle cwnd == ssthresh). Shared by the loss-based controls.
#[inline]
pub fn slow_start(w: &mut Window, acked: u32) {
    let n = acked.min(2) as f64;
    w.cwnd = (w.cwnd + n).min(w.ssthresh.max(w.cwnd + 1.0));
}

impl CongestionControl for Reno {
    fn on_ack(&mut self, w: &mut Window, ack: &AckInfo) {
        let acked = ack.acked.min(self.limit);
        if w.cwnd < w.ssthresh {
            slow_start(w, acked);
        } else {
            w.cwnd += acked.min(2) as f64 / w.cwnd;
        }
    }

    fn ssthresh_on_loss(&mut self, _w: &Window, flight: u32, _now: Ns) -> f64 {
        // RFC 5681 eq. (4): ssthresh = max(FlightSize / 2, 2 * SMSS).
        (flight as f64 / 2.0).max(2.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ack(acked: u32) -> AckInfo {
        AckInfo {
            acked,
            now: 0,
            rtt_sample: None,
            srtt: None,
            flight: 10,
        }
    }

    #[test]
    fn slow_start_doubles_per_window_and_ca_adds_one() {
        let mut r = Reno::default();
        let mut w = Window {
            cwnd: 2.0,
            ssthresh: 1e9,
        };
        for _ in 0..2 {
            r.on_ack(&mut w, &ack(1));
        }
        assert_eq!(w.cwnd, 4.0);
        let mut w = Window {
            cwnd: 10.0,
            ssthresh: 5.0,
        };
        // One window of ACKs grows cwnd by about one segment.
        for _ in 0..10 {
            r.on_ack(&mut w, &ack(1));
        }
        assert!((w.cwnd - 11.0).abs() < 0.05, "{}", w.cwnd);
        assert_eq!(r.ssthresh_on_loss(&w, 20, 0), 10.0);
        // An ACK covering 100 segments (a repaired hole) adds at most 2.
        let mut w = Window {
            cwnd: 10.0,
            ssthresh: 1e9,
        };
        r.on_ack(&mut w, &ack(100));
        assert_eq!(w.cwnd, 12.0);
        assert_eq!(r.ssthresh_on_loss(&w, 3, 0), 2.0);
    }

    #[test]
    fn per_ack_growth_counts_one_segment_per_delayed_ack() {
        // ns-3's TcpNewReno (abc_limit 1): an ACK for two segments grows cwnd as one does, so a
        // window of delayed ACKs (5 ACKs for 10 segments) adds half a segment in congestion
        // avoidance and 5 (not 10) in slow start; RFC 3465's L = 2 counts both segments.
        let (mut per_ack, mut abc) = (Reno { limit: 1 }, Reno::default());
        let ca = || Window {
            cwnd: 10.0,
            ssthresh: 5.0,
        };
        let (mut a, mut b) = (ca(), ca());
        for _ in 0..5 {
            per_ack.on_ack(&mut a, &ack(2));
            abc.on_ack(&mut b, &ack(2));
        }
        assert!(
            (a.cwnd - 10.5).abs() < 0.02 && (b.cwnd - 11.0).abs() < 0.05,
            "{} {}",
            a.cwnd,
            b.cwnd
        );
        let ss = || Window {
            cwnd: 10.0,
            ssthresh: 1e9,
        };
        let (mut a, mut b) = (ss(), ss());
        for _ in 0..5 {
            per_ack.on_ack(&mut a, &ack(2));
            abc.on_ack(&mut b, &ack(2));
        }
        assert_eq!((a.cwnd, b.cwnd), (15.0, 20.0));
    }
}
