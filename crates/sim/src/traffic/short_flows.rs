//! Open-loop short flows (004 §4–5): transfers arrive as a Poisson process of rate λ, each with
//! a size and an RTT drawn independently, and run once from a fresh connection (slow start from
//! the initial window). The engine keeps a pool of flow slots per source: a finished transfer's
//! slot is reused once none of its packets is left in the network, so a run with millions of
//! arrivals holds only as many flows as are active at once.
use super::{Build, Registered, Source};
use crate::engine::{Ev, Simulation};
use crate::flows::{add_route, Class, Flow, Owner};
use crate::results::SourceResult;
use crate::rng::{source_stream, Rng, SRC_SHORT};
use crate::scenario::topology::draw;
use crate::scenario::ShortPlan;
use crate::time::{ns, secs, Ns};

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

impl Source for ShortSource {
    fn build(b: &mut Build) -> Vec<ShortSource> {
        let seed = b.seed;
        b.plan
            .short
            .iter()
            .enumerate()
            .map(|(i, p)| ShortSource::new(p.clone(), seed, i))
            .collect()
    }

    /// Its transfers overlap, so its paths count twice (its links are never private).
    fn paths<'a>(&'a self, out: &mut Vec<(&'a [usize], &'a [usize])>) {
        for _ in 0..2 {
            out.push((self.plan.path.as_slice(), self.plan.ack_path.as_slice()));
        }
    }

    fn reuses_flows(&self) -> bool {
        true
    }

    fn first_wake(&mut self) -> Option<Ns> {
        self.first()
    }

    fn wake(sim: &mut Simulation, k: usize) {
        sim.on_arrival(k)
    }

    fn transfer_done(sim: &mut Simulation, k: usize, f: usize) {
        sim.slot_done(f, k)
    }

    fn drained(sim: &mut Simulation, k: usize, f: usize) {
        sim.src.short[k].free.push(f as u32);
    }

    fn result(&self, classes: &[Class], span: f64) -> SourceResult {
        SourceResult {
            name: classes[self.plan.class as usize].name.clone(),
            kind: "short".into(),
            target_bps: self.plan.offered_bps,
            offered_bps: self.window_bits / span,
            arrivals: self.window_arrivals,
            packets_sent: 0,
            packets_received: 0,
            packets_dropped: 0,
        }
    }
}

impl Simulation {
    /// An open-loop short flow arrives: take a free slot (or make one) and start it.
    pub(crate) fn on_arrival(&mut self, k: usize) {
        let now = self.now;
        let class = self.src.short[k].plan.class;
        let c = &self.classes[class as usize];
        let (mss, pkt) = (c.mss(), c.packet_bytes());
        let src = &mut self.src.short[k];
        let (segs, rtt) = src.draw(mss);
        if now >= self.warm && now < self.end {
            src.window_arrivals += 1;
            src.window_bits += 8.0 * pkt as f64 * segs as f64;
        }
        let extra = 0.5 * (rtt - src.plan.link_delay_s).max(0.0);
        let f = match src.free.pop() {
            Some(f) => f as usize,
            None => {
                let routes = [
                    add_route(&mut self.hops, &src.plan.path),
                    add_route(&mut self.hops, &src.plan.ack_path),
                ];
                let (fl, cold) = Flow::new(
                    routes,
                    c,
                    class,
                    Owner::Source(ShortSource::KIND, k as u32),
                    0,
                    secs(now),
                    rtt,
                    extra,
                );
                self.flows.push(fl);
                self.cold.push(cold);
                self.ccs
                    .push(c.build_cc(self.seed, (1 << 47) | self.flows.len() as u64));
                self.flows.len() - 1
            }
        };
        self.flows[f].extra = ns(extra);
        let cold = &mut self.cold[f];
        cold.rtt_s = rtt;
        cold.tr_think = f64::NAN;
        self.begin_transfer(f, segs);
        self.launch(f);
        if let Some(t) = self.src.short[k].next_after(now) {
            self.cal.push(t, Ev::Source(ShortSource::KIND, k as u32));
        }
    }

    /// The transfer of short-flow slot f of source k completed: free the slot once none of its
    /// packets is left in the network.
    pub(crate) fn slot_done(&mut self, f: usize, k: usize) {
        let fl = &mut self.flows[f];
        if fl.in_net == 0 {
            self.src.short[k].free.push(f as u32);
        } else {
            fl.draining = true;
        }
    }
}
