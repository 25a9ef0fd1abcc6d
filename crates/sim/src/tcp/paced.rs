//! Paced TCP of paper 002 (Enachescu, Ganjali, Goel, McKeown, Roughgarden, "Routers with Very
//! Small Buffers", INFOCOM 2006): NewReno's window law and recovery, but new segments do not
//! leave in bursts as ACKs arrive.
//!
//! - "paced" (002 §III, the paced TCP of its simulations): segments are spread evenly over the
//!   RTT, one every RTT/cwnd, i.e. at rate cwnd/RTT (gain 1 in slow start and congestion
//!   avoidance alike; RTT = the latest sample, see `pacing_rate`).
//! - "poisson-paced" (002 §II, the arrival model of Theorem 1): the gaps are independent
//!   exponential draws with mean RTT/cwnd, so a flow's segments form a Poisson process of rate
//!   cwnd/SRTT while the window allows. The draws come from a stream of the scenario seed and
//!   the flow's index (`rng::Rng::stream`), so a run is reproducible and flows are independent.
//!
//! Both are unpaced until the first RTT sample; retransmissions are not paced (the sender's
//! rule for every paced control). `"newreno-paced"` (reno.rs) is a different thing: Linux's
//! pacing gains (2 in slow start, 1.2 in avoidance), which keep ACK clocking the binding limit.
use super::cc::{AckInfo, CcContext, CongestionControl, Window};
use super::reno::Reno;
use crate::rng::Rng;
use crate::time::Ns;
use std::cell::RefCell;

/// Stream numbers of the per-flow pacing draws: this base plus the flow index (far from the
/// small stream numbers of `rng.rs`, so they never collide with another purpose).
pub const STREAM_PACING_BASE: u64 = 0x5041_4345_0000_0000;

pub struct Paced {
    /// Exponential gap draws (Poisson pacing); None = even spacing.
    draws: Option<RefCell<Rng>>,
    /// The latest RTT sample, ns (the pacing interval's RTT; see `pacing_rate`).
    last_rtt: Option<Ns>,
}

pub fn make_even(_ctx: &CcContext) -> Box<dyn CongestionControl> {
    Box::new(Paced {
        draws: None,
        last_rtt: None,
    })
}

pub fn make_poisson(ctx: &CcContext) -> Box<dyn CongestionControl> {
    Box::new(Paced::poisson(ctx.seed, ctx.flow))
}

impl Paced {
    pub fn poisson(seed: u64, flow: u64) -> Paced {
        Paced {
            draws: Some(RefCell::new(Rng::stream(
                seed,
                STREAM_PACING_BASE.wrapping_add(flow),
            ))),
            last_rtt: None,
        }
    }
}

impl CongestionControl for Paced {
    fn on_ack(&mut self, w: &mut Window, ack: &AckInfo) {
        if ack.rtt_sample.is_some() {
            self.last_rtt = ack.rtt_sample;
        }
        Reno::default().on_ack(w, ack)
    }
    fn ssthresh_on_loss(&mut self, w: &Window, flight: u32, now: Ns) -> f64 {
        Reno::default().ssthresh_on_loss(w, flight, now)
    }
    /// cwnd per RTT, the RTT being the latest sample (SRTT before the first one reaches the
    /// control). The sender times one segment per RTT, so SRTT (gain 1/8 per sample) lags
    /// about eight RTTs behind a queue that drains after a loss, and pacing at cwnd/SRTT would
    /// leave the link idle for those RTTs (Linux, with a sample per ACK, has no such lag).
    fn pacing_rate(&self, w: &Window, srtt: Option<Ns>) -> Option<f64> {
        self.last_rtt
            .or(srtt)
            .filter(|&s| s > 0)
            .map(|s| w.cwnd / (s as f64 / 1e9))
    }
    fn pacing_gap_scale(&self) -> f64 {
        match &self.draws {
            None => 1.0,
            // Exponential with mean 1: −ln(1 − U), U uniform on [0, 1).
            Some(r) => -(1.0 - r.borrow_mut().next_f64()).ln(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn even_rate_is_cwnd_per_srtt() {
        let p = Paced {
            draws: None,
            last_rtt: None,
        };
        let w = Window {
            cwnd: 50.0,
            ssthresh: 10.0,
        };
        assert_eq!(p.pacing_rate(&w, Some(100_000_000)), Some(500.0));
        assert_eq!(p.pacing_rate(&w, None), None);
        assert_eq!(p.pacing_gap_scale(), 1.0);
    }

    #[test]
    fn poisson_gaps_are_exponential_and_reproducible() {
        let a = Paced::poisson(7, 3);
        let b = Paced::poisson(7, 3);
        let c = Paced::poisson(7, 4);
        let xa: Vec<f64> = (0..20_000).map(|_| a.pacing_gap_scale()).collect();
        let xb: Vec<f64> = (0..20_000).map(|_| b.pacing_gap_scale()).collect();
        let xc: Vec<f64> = (0..5).map(|_| c.pacing_gap_scale()).collect();
        assert_eq!(xa, xb);
        assert_ne!(&xa[..5], &xc[..]);
        let n = xa.len() as f64;
        let mean = xa.iter().sum::<f64>() / n;
        let var = xa.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n;
        // Exp(1): mean 1, variance 1, P(X > 1) = e^-1, P(X > 3) = e^-3.
        assert!((mean - 1.0).abs() < 0.03, "mean {mean}");
        assert!((var - 1.0).abs() < 0.08, "var {var}");
        let p1 = xa.iter().filter(|&&x| x > 1.0).count() as f64 / n;
        let p3 = xa.iter().filter(|&&x| x > 3.0).count() as f64 / n;
        assert!((p1 - (-1f64).exp()).abs() < 0.01, "P(X>1) {p1}");
        assert!((p3 - (-3f64).exp()).abs() < 0.005, "P(X>3) {p3}");
    }
}
