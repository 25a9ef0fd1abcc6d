//! Random small scenarios (buffers down to 0, byte limits, delayed ACKs, SACK, Reno, finite
//! transfers, window caps, zero delays, cross traffic, reverse-path bottlenecks, short flows,
//! closed-loop users, UDP, SOBAS): nothing panics and the invariants hold.
mod common;
#[path = "support/random_scenario.rs"]
mod random_scenario;
use bufsize_sim::rng::Rng;
use common::*;
use random_scenario::random_scenario;

#[test]
fn random_scenarios_keep_the_invariants() {
    let mut r = Rng::stream(2024, 1);
    for i in 0..150 {
        let (s, lim) = random_scenario(&mut r);
        let t0 = std::time::Instant::now();
        let res = bufsize_sim::run(&s)
            .unwrap_or_else(|e| panic!("scenario {i} rejected: {e}\n{}", s.to_json()));
        let dt = t0.elapsed().as_secs_f64();
        if dt > 2.0 {
            eprintln!(
                "slow scenario {i}: {dt:.2} s, {} events: {}",
                res.summary.events,
                s.to_json()
            );
        }
        check_invariants(&res, &lim);
        // Same scenario twice: identical.
        if i % 10 == 0 {
            assert_eq!(
                bufsize_sim::run(&s).unwrap().to_json(),
                res.to_json(),
                "scenario {i} not deterministic"
            );
        }
    }
}
