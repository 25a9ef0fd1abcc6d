//! SOBAS at a simulated receiver (001 §VII-A): the capacity estimate from packet trains, the
//! initial limit, rate saturation and the limit R·T on a path of its own; the congested-path rule
//! with competing flows. Path: 50 Mb/s tight link, 100 ms RTT (C·T = 625 packets of 1000 B).
mod common;
use bufsize_sim::scenario::Scenario;
use bufsize_sim::Results;

fn path(buffer: u64, cross_flows: u32, warmup: f64, duration: f64) -> Scenario {
    let mut links = String::from(
        r#"{"name": "acc", "rate_bps": 1e9, "delay_s": 0.025},
           {"name": "racc", "rate_bps": 1e9, "delay_s": 0.05},
           {"name": "tightr", "rate_bps": 5e7}"#,
    );
    links += &format!(
        r#", {{"name": "tight", "rate_bps": 5e7, "delay_s": 0.025, "queue": {{"limit_packets": {buffer}}}}}"#
    );
    let mut flows = String::from(
        r#"{"path": ["acc", "tight"], "ack_path": ["tightr", "racc"], "tcp": {"cc": "reno", "sack": true},
            "sobas": {}}"#,
    );
    for i in 0..cross_flows {
        links += &format!(
            r#", {{"name": "x{i}", "rate_bps": 1e9, "delay_s": {d}}}, {{"name": "rx{i}", "rate_bps": 1e9, "delay_s": {d}}}"#,
            d = 0.02 + 0.005 * i as f64
        );
        flows += &format!(
            r#", {{"path": ["x{i}", "tight"], "ack_path": ["tightr", "rx{i}"], "start_s": {s}, "tcp": {{"cc": "reno", "sack": true}}}}"#,
            s = 0.1 * i as f64
        );
    }
    Scenario::from_json(&format!(
        r#"{{"seed": 1, "duration_s": {duration}, "warmup_s": {warmup}, "links": [{links}],
            "bottleneck": "tight", "flows": [{flows}]}}"#
    ))
    .unwrap()
}

fn run(buffer: u64, cross: u32, warmup: f64, duration: f64) -> Results {
    bufsize_sim::run(&path(buffer, cross, warmup, duration)).unwrap()
}

#[test]
fn over_buffered_path_no_slow_start_loss_and_saturation_near_capacity() {
    let r = run(1250, 0, 0.001, 60.0);
    let sb = &r.sobas[0];
    // trains see the tight link: C̃ = 50 Mb/s; the initial limit C̃·T̃ ≈ 625 kB
    let c = sb.capacity_estimate_bps.unwrap();
    assert!((c - 5e7).abs() / 5e7 < 0.02, "capacity estimate {c}");
    let s0 = sb.initial_limit_bytes.unwrap() as f64;
    assert!(
        (s0 - 625_000.0).abs() / 625_000.0 < 0.05,
        "initial limit {s0}"
    );
    // the initial limit keeps slow start from overflowing a 2·C·T buffer: no loss at all
    assert_eq!(r.summary.drops, 0);
    assert_eq!(sb.phase, "adjusted");
    let d = &sb.decisions[0];
    assert!(!d.congested);
    // saturation at the path's goodput (50 Mb/s x 960/1000), the limit R_rs·T_rs
    assert!(
        (d.rate_bps - 48e6).abs() / 48e6 < 0.03,
        "R_rs {}",
        d.rate_bps
    );
    let rt = d.rate_bps / 8.0 * d.rtt_s;
    assert!(
        (d.limit_bytes as f64 - rt).abs() <= 1.0 + rt * 1e-9,
        "{} vs R·T {rt}",
        d.limit_bytes
    );
    assert!(r.summary.utilization > 0.9);
}

#[test]
fn under_buffered_path_saturates_and_loses_nothing_after_the_decision() {
    let r = run(313, 0, 0.001, 60.0);
    let sb = &r.sobas[0];
    assert_eq!(sb.phase, "adjusted");
    let d = &sb.decisions[0];
    assert!(!d.congested, "{d:?}");
    assert!(
        (d.rate_bps - 48e6).abs() / 48e6 < 0.05,
        "R_rs {}",
        d.rate_bps
    );
    // measured from just after the decision on: no loss of the target
    let after = run(313, 0, d.t_s + 0.5, 60.0);
    assert_eq!(after.flows[0].drops, 0);
    assert!(
        after.summary.utilization > 0.93,
        "{}",
        after.summary.utilization
    );
    // the receive rate stays at saturation after the decision
    let tail: Vec<f64> = sb
        .rate_t_s
        .iter()
        .zip(sb.rate_bps.iter())
        .filter(|(t, _)| **t > d.t_s + 1.0)
        .map(|(_, r)| *r)
        .collect();
    assert!(tail.iter().all(|&x| x > 0.95 * d.rate_bps), "{tail:?}");
}

#[test]
fn congested_path_leaves_the_buffer_at_its_maximum() {
    // Eight Reno flows keep the tight link full: the probe echoes see its losses.
    let r = run(313, 8, 0.001, 60.0);
    let sb = &r.sobas[0];
    assert!(sb.forward_losses > 0);
    let d = &sb.decisions[0];
    assert!(d.congested, "{d:?}");
    assert_eq!(sb.phase, "congested");
    assert_eq!(sb.limit_bytes, 16 << 20);
    // probes and echoes are conserved like every other packet
    common::check_invariants(&r, &[None, None, None, Some(313)]);
}
