//! Closed-loop users (Harpoon-like, 000 §III): each user fetches a file (its size drawn from
//! the source's size distribution), and when the last byte is acknowledged thinks for a drawn
//! time before fetching the next, for the whole run. A user is one flow of the engine with a
//! fixed path and RTT; each fetch starts a fresh connection on it (slow start from the initial
//! window), once the previous one has no packet left in the network. TCP "mice" (001 §V-C:
//! 10–15 packets, then a uniform sleep) are the same source with other distributions.
use super::{Build, Source};
use crate::engine::{Ev, Simulation};
use crate::flows::Class;
use crate::results::SourceResult;
use crate::rng::{source_stream, Rng, SRC_USERS};
use crate::scenario::topology::draw;
use crate::scenario::UsersPlan;
use crate::time::ns;

pub struct UsersSource {
    pub(crate) plan: UsersPlan,
    sizes: Rng,
    thinks: Rng,
    starts: Rng,
    draws: u64,
    thinks_drawn: u64,
    /// Users whose first fetch time was drawn.
    firsts_drawn: u64,
    /// Counted over the measurement window: transfers started and their wire bits.
    pub window_arrivals: u64,
    pub window_bits: f64,
}

impl UsersSource {
    pub(crate) fn new(plan: UsersPlan, seed: u64, idx: usize) -> UsersSource {
        // purpose 0 is the users' RTT draws (made when the scenario is expanded)
        let st = |p| Rng::stream(seed, source_stream(SRC_USERS, idx as u64, p));
        UsersSource {
            plan,
            sizes: st(1),
            thinks: st(2),
            starts: st(3),
            draws: 0,
            thinks_drawn: 0,
            firsts_drawn: 0,
            window_arrivals: 0,
            window_bits: 0.0,
        }
    }

    /// When user `k` fetches its first file (seconds): the `start_s` distribution, or one think
    /// time.
    pub fn first_start(&mut self, k: usize) -> f64 {
        match &self.plan.start {
            Some(d) => draw(d, k, &mut self.starts),
            None => self.think(),
        }
    }

    /// A think time, seconds.
    pub fn think(&mut self) -> f64 {
        let i = self.thinks_drawn as usize;
        self.thinks_drawn += 1;
        draw(&self.plan.think, i, &mut self.thinks)
    }

    /// The size of the next file, segments.
    pub fn size(&mut self, mss: u32) -> u32 {
        let i = self.draws as usize;
        self.draws += 1;
        let x = draw(&self.plan.size, i, &mut self.sizes);
        super::segments_of(x, self.plan.size_in_packets, mss)
    }
}

impl Source for UsersSource {
    fn build(b: &mut Build) -> Vec<UsersSource> {
        let seed = b.seed;
        b.plan
            .users
            .iter()
            .enumerate()
            .map(|(i, p)| UsersSource::new(p.clone(), seed, i))
            .collect()
    }

    fn reuses_flows(&self) -> bool {
        true
    }

    /// The next user's first fetch.
    fn first_start(&mut self) -> f64 {
        let k = self.firsts_drawn as usize;
        self.firsts_drawn += 1;
        UsersSource::first_start(self, k)
    }

    fn flow_start(sim: &mut Simulation, k: usize, f: usize) -> bool {
        sim.user_fetch(f, k)
    }

    fn transfer_done(sim: &mut Simulation, k: usize, f: usize) {
        sim.user_done(f, k)
    }

    fn result(&self, classes: &[Class], span: f64) -> SourceResult {
        SourceResult {
            name: classes[self.plan.class as usize].name.clone(),
            kind: "users".into(),
            target_bps: f64::NAN,
            offered_bps: self.window_bits / span,
            arrivals: self.window_arrivals,
            packets_sent: 0,
            packets_received: 0,
            packets_dropped: 0,
        }
    }
}

impl Simulation {
    /// User flow f of source u wakes to fetch its next file: unless its previous connection
    /// still has packets in the network (then it waits for them to drain), draw the size and
    /// begin the transfer. True when the transfer began.
    pub(crate) fn user_fetch(&mut self, f: usize, u: usize) -> bool {
        let fl = &mut self.flows[f];
        if !fl.finished {
            return false;
        }
        if fl.in_net > 0 {
            fl.pending_start = true;
            return false;
        }
        let (mss, pkt) = (fl.mss, fl.data_bytes);
        let src = &mut self.src.users[u];
        let segs = src.size(mss);
        if self.now >= self.warm && self.now < self.end {
            src.window_arrivals += 1;
            src.window_bits += 8.0 * pkt as f64 * segs as f64;
        }
        self.begin_transfer(f, segs);
        true
    }

    /// User flow f of source u finished a fetch: it thinks, then fetches the next.
    pub(crate) fn user_done(&mut self, f: usize, u: usize) {
        let think = self.src.users[u].think();
        self.cold[f].tr_think = think;
        let t = self.now.saturating_add(ns(think));
        if t < self.end {
            self.cal.push(t, Ev::Start(f as u32));
        }
    }
}
