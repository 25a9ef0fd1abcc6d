//! Reno AIMD (RFC 5681): slow start below ssthresh, +1 segment per window in congestion
//! avoidance (cwnd += acked/cwnd per ACK, as ns-2 and Linux count it), halve on loss.
//! Registered twice: "reno" (RFC 5681 fast recovery) and "newreno" (RFC 6582 recovery).
use super::cc::{AckInfo, CongestionControl, Window};
use crate::scenario::TcpConfig;
use crate::time::Ns;

pub struct Reno;

pub fn make(_cfg: &TcpConfig) -> Box<dyn CongestionControl> {
    Box::new(Reno)
}

impl CongestionControl for Reno {
    fn on_ack(&mut self, w: &mut Window, ack: &AckInfo) {
        if w.cwnd < w.ssthresh {
            // Slow start: one segment per segment acknowledged, but not beyond ssthresh in
            // one step (RFC 5681 §3.1 lets either phase handle cwnd == ssthresh).
            w.cwnd = (w.cwnd + ack.acked as f64).min(w.ssthresh.max(w.cwnd + 1.0));
        } else {
            w.cwnd += ack.acked as f64 / w.cwnd;
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
        AckInfo { acked, now: 0, rtt_sample: None, srtt: None, flight: 10 }
    }

    #[test]
    fn slow_start_doubles_per_window_and_ca_adds_one() {
        let mut r = Reno;
        let mut w = Window { cwnd: 2.0, ssthresh: 1e9 };
        for _ in 0..2 {
            r.on_ack(&mut w, &ack(1));
        }
        assert_eq!(w.cwnd, 4.0);
        let mut w = Window { cwnd: 10.0, ssthresh: 5.0 };
        // One window of ACKs grows cwnd by about one segment.
        for _ in 0..10 {
            r.on_ack(&mut w, &ack(1));
        }
        assert!((w.cwnd - 11.0).abs() < 0.05, "{}", w.cwnd);
        assert_eq!(r.ssthresh_on_loss(&w, 20, 0), 10.0);
        assert_eq!(r.ssthresh_on_loss(&w, 3, 0), 2.0);
    }
}
