//! bufsize-sim: the packet-level engine of bufsize (pure Rust, no Python inside).
//!
//! A scenario ([`Scenario`], plain serde data) goes in, [`Results`] come out:
//! ```no_run
//! let s = bufsize_sim::Scenario::from_json(r#"{"dumbbell": {"capacity_bps": 155e6,
//!     "flows": 10, "rtt_s": {"fixed": 0.08}, "buffer": {"limit_packets": 100}}}"#).unwrap();
//! let r = bufsize_sim::run(&s).unwrap();
//! println!("{}", r.summary.utilization);
//! ```
//! Or step by step (progress, interruption): [`Simulation::new`], [`Simulation::run_until`],
//! [`Simulation::finish`].
pub mod calendar;
mod endpoints;
mod engine;
mod flows;
mod measure;
pub mod metrics;
pub mod net;
mod ports;
pub mod results;
pub mod rng;
pub mod scenario;
mod sobas;
pub mod tcp;
pub mod time;
pub mod traffic;

pub use engine::{state_bytes, Simulation};
pub use measure::WindowSoFar;
pub use results::Results;
pub use scenario::{Scenario, ScenarioError};

/// Version of the engine crate, reported in results so runs can be traced to code.
pub const ENGINE_VERSION: &str = env!("CARGO_PKG_VERSION");

/// Check a scenario without running it (expands the dumbbell to check the links and flows).
pub fn validate(s: &Scenario) -> Result<(), ScenarioError> {
    scenario::expand(s).map(|_| ())
}

/// Run a scenario to the end.
pub fn run(s: &Scenario) -> Result<Results, ScenarioError> {
    Ok(Simulation::new(s)?.finish())
}
