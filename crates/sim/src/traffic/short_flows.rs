//! Open-loop short flows (004 §4–5): transfers arrive as a Poisson process of rate λ, each with
//! a size and an RTT drawn independently, and run once from a fresh connection (slow start from
//! the initial window). The engine keeps a pool of flow slots per source: a finished transfer's
//! slot is reused once none of its packets is left in the network, so a run with millions of
//! arrivals holds only as many flows as are active at once.
use crate::rng::{source_stream, Rng, SRC_SHORT};
use crate::scenario::topology::draw;
use crate::scenario::ShortPlan;
use crate::time::{ns, Ns};

pub struct ShortSource {
    pub(crate) plan: ShortPlan,
    arrivals: Rng,
    sizes: Rng,
    rtts: Rng,
    /// Transfers started so far (the index of the next draw).
    pub started: u64,
    /// Free flow slots (indices into the engine's flows).
    pub free: Vec<u32>,
    stop: Ns,
    /// Counted over the measurement window.
    pub window_arrivals: u64,
    pub window_bits: f64,
}

impl ShortSource {
    pub(crate) fn new(plan: ShortPlan, seed: u64, idx: usize) -> ShortSource {
        let st = |p| Rng::stream(seed, source_stream(SRC_SHORT, idx as u64, p));
        let stop = ns(plan.stop_s);
        ShortSource {
            plan,
            arrivals: st(0),
            sizes: st(1),
            rtts: st(2),
            started: 0,
            free: Vec::new(),
            stop,
            window_arrivals: 0,
            window_bits: 0.0,
        }
    }

    /// The first arrival: one exponential gap after `start_s` (None if past the stop).
    pub fn first(&mut self) -> Option<Ns> {
        let t0 = ns(self.plan.start_s);
        self.next_after(t0)
    }

    /// The arrival after one at `t`.
    pub fn next_after(&mut self, t: Ns) -> Option<Ns> {
        let gap = -(1.0 - self.arrivals.next_f64()).ln() / self.plan.arrivals_per_s;
        let next = t.saturating_add(ns(gap).max(1));
        (next < self.stop).then_some(next)
    }

    /// Draw the next transfer: (segments, RTT in seconds).
    pub fn draw(&mut self, mss: u32) -> (u32, f64) {
        let i = self.started as usize;
        self.started += 1;
        let x = draw(&self.plan.size, i, &mut self.sizes);
        let rtt = draw(&self.plan.rtt, i, &mut self.rtts);
        (super::segments_of(x, self.plan.size_in_packets, mss), rtt)
    }
}
