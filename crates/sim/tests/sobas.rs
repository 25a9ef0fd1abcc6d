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

/// The SOBAS target alone with constant-rate UDP cross traffic of `udp_bps` on the tight link
/// (buffer `buffer` packets): the available bandwidth is A = C − udp_bps, and the cross traffic
/// alone never queues more than one packet, so the path is not congested before the target.
/// `udp_bps` 0: no cross traffic.
fn udp_path(buffer: u64, udp_bps: f64, duration: f64) -> Scenario {
    udp_bursts_path(buffer, if udp_bps > 0.0 { 1 } else { 0 }, udp_bps, duration)
}

/// As `udp_path`, with `sources` constant-rate UDP sources of `each_bps` that start together, so
/// their packets reach the tight link in bursts of `sources` back to back.
fn udp_bursts_path(buffer: u64, sources: usize, each_bps: f64, duration: f64) -> Scenario {
    let one = format!(
        r#"{{"path": ["ux", "tight"], "rate_bps": {each_bps}, "packet_bytes": 1000, "pattern": "cbr"}}"#
    );
    let udp = format!("[{}]", vec![one; sources].join(", "));
    Scenario::from_json(&format!(
        r#"{{"seed": 1, "duration_s": {duration}, "warmup_s": 0.001,
            "links": [{{"name": "acc", "rate_bps": 1e9, "delay_s": 0.025}},
                      {{"name": "tight", "rate_bps": 5e7, "delay_s": 0.025, "queue": {{"limit_packets": {buffer}}}}},
                      {{"name": "tightr", "rate_bps": 5e7}},
                      {{"name": "racc", "rate_bps": 1e9, "delay_s": 0.05}},
                      {{"name": "ux", "rate_bps": 1e9, "delay_s": 0.01}}],
            "bottleneck": "tight",
            "flows": [{{"path": ["acc", "tight"], "ack_path": ["tightr", "racc"], "start_s": 1.0,
                        "tcp": {{"cc": "reno", "sack": true}}, "sobas": {{}}}}],
            "udp": {udp}}}"#
    ))
    .unwrap()
}

/// The asymptotic dispersion rate of the first five slow-start rounds in the fluid model: round 1
/// (two segments back to back) leaves at C; round k+1 enters the tight link at twice the rate of
/// round k (two segments per ACK) and leaves at C·Ri/(Ri + Rc) while cross traffic arrives at Rc.
/// The median of the five, as the controller takes it.
fn fluid_round_dispersion_rate(c: f64, rc: f64) -> f64 {
    let mut x = vec![c];
    for _ in 1..5 {
        let ri = 2.0 * x[x.len() - 1];
        x.push(c * ri / (ri + rc));
    }
    x.sort_by(|a, b| a.total_cmp(b));
    x[2]
}

#[test]
fn train_estimate_is_the_dispersion_rate_of_slow_start_rounds_between_available_bandwidth_and_capacity(
) {
    // Cross traffic that enters the tight link while a slow-start round crosses it lengthens the
    // round's dispersion: the trains measure the asymptotic dispersion rate, below the capacity
    // and above the available bandwidth, and fall as the cross traffic grows.
    let c = 5e7;
    let mut last = c;
    for rc in [1e7, 2e7, 3.5e7] {
        let r = bufsize_sim::run(&udp_path(2000, rc, 4.0)).unwrap();
        let est = r.sobas[0].capacity_estimate_bps.unwrap();
        let a = c - rc;
        assert!(
            est > a && est < c,
            "Rc {rc}: estimate {est} outside (A, C) = ({a}, {c})"
        );
        // packets are whole (a round of 4 segments holds one cross packet or none), so the
        // estimate follows the fluid value to within a few percent of C
        let fluid = fluid_round_dispersion_rate(c, rc);
        assert!(
            (est - fluid).abs() < 0.07 * c,
            "Rc {rc}: estimate {est}, fluid {fluid}"
        );
        assert!(
            est < last,
            "Rc {rc}: estimate {est} does not fall with more cross traffic ({last})"
        );
        last = est;
    }
    // without cross traffic every round leaves the tight link back to back: the capacity
    let r = bufsize_sim::run(&udp_path(2000, 0.0, 4.0)).unwrap();
    let est = r.sobas[0].capacity_estimate_bps.unwrap();
    assert!((est - c).abs() / c < 0.02, "idle path: estimate {est}");
}

#[test]
fn cross_traffic_in_bursts_does_not_split_a_round_and_counts_in_its_dispersion() {
    // Four (five) sources of 6 Mb/s put bursts of four (five) back-to-back packets on the tight
    // link every 1.33 ms: a round's packets arrive with gaps of five or more service times where a
    // burst sits between them. The round is still one train and its dispersion includes the
    // bursts (cutting the train at those gaps would measure only the pieces between them, spaced
    // at the capacity).
    let c = 5e7;
    for k in [4usize, 5] {
        let rc = k as f64 * 6e6;
        let r = bufsize_sim::run(&udp_bursts_path(2000, k, 6e6, 4.0)).unwrap();
        let est = r.sobas[0].capacity_estimate_bps.unwrap();
        assert!(
            est > c - rc && est < 0.85 * c,
            "bursts of {k}: estimate {est}"
        );
        let fluid = fluid_round_dispersion_rate(c, rc);
        assert!(
            (est - fluid).abs() < 0.07 * c,
            "bursts of {k}: estimate {est}, fluid {fluid}"
        );
    }
}

#[test]
fn initial_limit_from_the_trains_avoids_slow_start_loss_on_a_loaded_path_and_sobas_sets_a_limit() {
    // UDP at 25 Mb/s leaves A = 25 Mb/s, A·T = 312 packets. The UDP packets share the queue, so a
    // window W queues (W − A·T)·C/A packets: a 600-packet buffer holds W up to 612 segments.
    // The capacity's pipe C·T̃ (about 650 segments) would overflow it in slow start; the trains'
    // estimate (between A and C) keeps the window and its linear increase below that, so the
    // target loses nothing, no probe echo is lost, and at rate saturation SOBAS sets the limit
    // R·T at the available bandwidth.
    let r = bufsize_sim::run(&udp_path(600, 2.5e7, 30.0)).unwrap();
    let sb = &r.sobas[0];
    let s0 = sb.initial_limit_bytes.unwrap() as f64;
    // well below the capacity's pipe C·T = 625 kB
    assert!(s0 < 0.9 * 625_000.0, "initial limit {s0}");
    assert_eq!(sb.forward_losses, 0);
    assert_eq!(r.flows[0].drops, 0);
    assert_eq!(sb.phase, "adjusted");
    let d = &sb.decisions[0];
    assert!(!d.congested);
    // the target's goodput at saturation: A × 960/1000
    assert!(
        (d.rate_bps - 24e6).abs() / 24e6 < 0.05,
        "R_rs {}",
        d.rate_bps
    );
    let rt = d.rate_bps / 8.0 * d.rtt_s;
    assert!((d.limit_bytes as f64 - rt).abs() <= 1.0 + rt * 1e-9);
}
