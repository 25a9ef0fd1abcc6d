//! Write a corpus of scenarios (JSON) covering every traffic source, congestion control and
//! measurement, for checking that engine changes leave results bit-identical:
//! `cargo run --release -p bufsize-sim --example identity_corpus -- DIR` (see
//! scripts/engine_identity.sh). The scenarios are random but fixed by the seeds below.
use bufsize_sim::rng::Rng;
use bufsize_sim::scenario::*;

// The random scenarios of tests/random_scenarios.rs, with two more draws for the traces.
#[path = "../tests/support/random_scenario.rs"]
mod random_scenario;
use random_scenario::pick;

fn random_scenario(r: &mut Rng) -> Scenario {
    let (mut s, _) = random_scenario::random_scenario(r);
    s.measure.phase_trace_interval_s = *pick(r, &[None, Some(0.1)]);
    s.measure.queue_histogram = r.next_u64().is_multiple_of(2);
    s
}

fn main() {
    let dir = std::env::args().nth(1).expect("usage: identity_corpus DIR");
    std::fs::create_dir_all(&dir).unwrap();
    let mut r = Rng::stream(20261125, 0);
    for i in 0..80 {
        let s = random_scenario(&mut r);
        std::fs::write(format!("{dir}/random_{i:03}.json"), s.to_json()).unwrap();
    }
    // Every congestion control on a dumbbell, with SACK / delayed ACKs / PRR alternating and
    // every trace on.
    for (i, cc) in bufsize_sim::tcp::cc::names().iter().enumerate() {
        let mut s = Scenario::dumbbell(
            20e6,
            12,
            Dist::Uniform([0.02, 0.14]),
            QueueSpec {
                limit_packets: Some(30),
                limit_bytes: None,
                discipline: None,
            },
        );
        s.seed = 7 + i as u64;
        s.duration_s = 6.0;
        s.warmup_s = 1.0;
        let d = s.dumbbell.as_mut().unwrap();
        d.tcp.cc = cc.to_string();
        d.tcp.sack = i % 2 == 0;
        d.tcp.prr = i % 4 == 0;
        d.tcp.delayed_ack = i % 3 == 0;
        s.measure.queue_trace_interval_s = Some(0.01);
        s.measure.cwnd_trace_flows = vec![0, 3];
        s.measure.queue_histogram = true;
        s.measure.phase_trace_interval_s = Some(0.05);
        std::fs::write(format!("{dir}/cc_{cc}.json"), s.to_json()).unwrap();
    }
}
