//! Closed-loop users (Harpoon-like, 000 §III): each user fetches a file (its size drawn from
//! the source's size distribution), and when the last byte is acknowledged thinks for a drawn
//! time before fetching the next, for the whole run. A user is one flow of the engine with a
//! fixed path and RTT; each fetch starts a fresh connection on it (slow start from the initial
//! window), once the previous one has no packet left in the network. TCP "mice" (001 §V-C:
//! 10–15 packets, then a uniform sleep) are the same source with other distributions.
use crate::rng::{source_stream, Rng, SRC_USERS};
use crate::scenario::topology::draw;
use crate::scenario::UsersPlan;

pub struct UsersSource {
    pub(crate) plan: UsersPlan,
    sizes: Rng,
    thinks: Rng,
    starts: Rng,
    draws: u64,
    thinks_drawn: u64,
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
