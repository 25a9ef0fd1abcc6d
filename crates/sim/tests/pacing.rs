//! The pacing hook of the congestion-control trait ("newreno-paced" uses it).
mod common;
use bufsize_sim::scenario::{Dist, QueueSpec, Scenario};
use common::*;

fn run(cc: &str) -> bufsize_sim::Results {
    let mut s = Scenario::dumbbell(
        155e6,
        100,
        Dist::Uniform([0.02, 0.14]),
        QueueSpec {
            limit_packets: Some(155),
            limit_bytes: None,
            discipline: None,
        },
    );
    s.duration_s = 30.0;
    s.dumbbell.as_mut().unwrap().tcp.cc = cc.into();
    let r = bufsize_sim::run(&s).unwrap();
    let mut lim = vec![Some(155), None];
    lim.extend(std::iter::repeat_n(None, 200));
    check_invariants(&r, &lim);
    r
}

#[test]
fn pacing_spreads_bursts_and_avoids_timeouts() {
    // 100 flows, B = BDP/sqrt(n): unpaced windows leave in bursts at the access rate (10 C),
    // paced ones at about cwnd/SRTT, so fewer packets arrive together at a full queue.
    let plain = run("newreno");
    let paced = run("newreno-paced");
    let (a, b) = (&plain.summary, &paced.summary);
    eprintln!(
        "newreno: util {:.4} loss {:.4} timeouts {}; paced: util {:.4} loss {:.4} timeouts {}",
        a.utilization, a.loss_rate, a.timeouts, b.utilization, b.loss_rate, b.timeouts
    );
    assert!(b.timeouts * 4 < a.timeouts);
    assert!(b.loss_rate < a.loss_rate);
    assert!(b.utilization >= 0.97);
}
