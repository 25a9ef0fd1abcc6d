//! The simulation loop (work in progress: the event loop lands in the next commit).
use crate::results::Results;
use crate::scenario::{expand, Plan, Scenario, ScenarioError};
use crate::time::{ns, Ns};

pub struct Simulation {
    #[allow(dead_code)]
    plan: Plan,
    now: Ns,
    end: Ns,
}

impl Simulation {
    pub fn new(s: &Scenario) -> Result<Simulation, ScenarioError> {
        let plan = expand(s)?;
        Ok(Simulation { plan, now: 0, end: ns(s.duration_s) })
    }
    pub fn run_until(&mut self, t_ns: u64) {
        self.now = t_ns.min(self.end).max(self.now);
    }
    pub fn now_ns(&self) -> u64 {
        self.now
    }
    pub fn end_ns(&self) -> u64 {
        self.end
    }
    pub fn finish(self) -> Results {
        unimplemented!("event loop not yet committed")
    }
}
