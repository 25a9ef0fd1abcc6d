//! Traffic sources: offered load against the target, slot reuse, closed-loop users, UDP
//! patterns, per-transfer records, and the invariants with all of them mixed.
mod common;
use bufsize_sim::scenario::Scenario;
use bufsize_sim::Results;

fn run(json: &str) -> Results {
    let s = Scenario::from_json(json).unwrap();
    bufsize_sim::run(&s).unwrap()
}

fn rel(a: f64, b: f64) -> f64 {
    (a - b).abs() / b
}

/// 100 Mb/s, short flows of 2..30 packets at load 0.5, a buffer so large nothing is lost.
fn short_scenario(load: f64, seed: u64, duration: f64) -> String {
    format!(
        r#"{{"seed": {seed}, "duration_s": {duration}, "warmup_s": 5,
        "dumbbell": {{"capacity_bps": 1e8, "flows": 1, "rtt_s": {{"fixed": 0.05}},
                     "start_s": {{"fixed": 1e9}}, "buffer": {{"limit_packets": 100000}}}},
        "short_flows": [{{"load": {load}, "size_packets": {{"int_uniform": [2, 30]}},
                          "rtt_s": {{"uniform": [0.02, 0.1]}}}}]}}"#
    )
}

#[test]
fn short_flows_offer_their_load_and_reuse_slots() {
    let r = run(&short_scenario(0.5, 3, 65.0));
    common::check_invariants(&r, &[Some(100000)]);
    let src = &r.sources[0];
    assert_eq!(src.kind, "short");
    assert!(
        (src.target_bps - 0.5e8).abs() < 1.0,
        "target {}",
        src.target_bps
    );
    assert!(
        rel(src.offered_bps, src.target_bps) < 0.02,
        "offered {} vs target {}",
        src.offered_bps,
        src.target_bps
    );
    // Without losses the link carries what was offered (plus the ACK-free data path).
    assert!(
        (r.summary.utilization - 0.5).abs() < 0.02,
        "utilization {}",
        r.summary.utilization
    );
    assert_eq!(r.summary.drops, 0);
    // 60 s x ~312 arrivals/s: ~19 000 transfers on a few dozen slots.
    let done = r.transfers.iter().filter(|t| t.completed).count();
    assert!(done > 15_000, "{done} transfers");
    let slots = r
        .flows
        .iter()
        .filter(|f| r.classes[f.class as usize].kind == "short")
        .count();
    assert!(slots < 200, "{slots} slots for {done} transfers");
    for t in r.transfers.iter().filter(|t| t.completed) {
        assert_eq!(t.acked_segments, t.segments);
        assert!((2..=30).contains(&t.segments));
        assert!(t.fct_s >= t.rtt_s, "a transfer faster than its RTT: {t:?}");
        assert_eq!(t.drops, 0);
        assert_eq!(t.ss_packets + t.ca_packets, t.segments as u64);
    }
}

/// 30-segment transfers at arrivals so rare that they never overlap, on an idle 1 Gb/s link, RTT 100 ms.
const LONE_SHORT_FLOWS: &str = r#"{"seed": 1, "duration_s": 400, "warmup_s": 1,
    "dumbbell": {"capacity_bps": 1e9, "flows": 1, "rtt_s": {"fixed": 0.1},
                 "start_s": {"fixed": 1e9}},
    "short_flows": [{"arrivals_per_s": 0.05, "size_packets": {"fixed": 30},
                      "rtt_s": {"fixed": 0.1}}]}"#;

#[test]
fn one_short_flow_alone_takes_its_slow_start_rounds() {
    // Arrivals so rare that transfers never overlap: a 30-segment transfer with IW 2 and an ACK
    // per segment needs 4 rounds of slow start (2+4+8+16 >= 30) plus the last one's delivery:
    // FCT = 4 RTT + transmission of the final window, on an otherwise idle link.
    let r = run(LONE_SHORT_FLOWS);
    let done: Vec<_> = r.transfers.iter().filter(|t| t.completed).collect();
    assert!(done.len() > 5);
    for t in done {
        // 1000-byte packets at 1 Gb/s: 8 us each; the last window of 14 takes 0.112 ms.
        assert!(t.fct_s > 0.4 && t.fct_s < 0.4005, "fct {}", t.fct_s);
        assert_eq!(t.ca_packets, 0);
    }
}

#[test]
fn a_transfer_is_delivered_when_its_last_segment_reaches_the_receiver() {
    // The same idle-link transfers: the receiver holds the last segment one ACK trip before the
    // sender learns it, so delivery precedes the end by the return half of the RTT (50 ms here).
    let r = run(LONE_SHORT_FLOWS);
    let done: Vec<_> = r.transfers.iter().filter(|t| t.completed).collect();
    assert!(done.len() > 5);
    for t in &done {
        let gap = t.end_s - t.delivered_s;
        assert!(gap > 0.0499 && gap < 0.0501, "end - delivered {gap}: {t:?}");
    }
    // a transfer still running has neither time
    assert!(r.transfers.iter().filter(|t| !t.completed).all(|t| t.end_s.is_nan()));
}

#[test]
fn closed_loop_users_fetch_think_and_fetch_again() {
    let json = r#"{"seed": 5, "duration_s": 120, "warmup_s": 10,
        "dumbbell": {"capacity_bps": 2e7, "flows": 1, "rtt_s": {"fixed": 0.05},
                     "start_s": {"fixed": 1e9}, "buffer": {"limit_packets": 50}},
        "users": [{"count": 40, "access_rate_bps": 2e6, "rtt_s": {"uniform": [0.04, 0.12]},
                   "think_s": {"exponential": 0.5},
                   "size_bytes": {"pareto": {"shape": 1.5, "mean": 30000}}}]}"#;
    let r = run(json);
    let n = r.links.len();
    let mut limits = vec![None; n];
    limits[0] = Some(50);
    common::check_invariants(&r, &limits);
    let users: Vec<_> = r
        .flows
        .iter()
        .filter(|f| r.classes[f.class as usize].kind == "users")
        .collect();
    assert_eq!(users.len(), 40);
    // Every user keeps fetching: several transfers each.
    for f in &users {
        assert!(
            f.transfers >= 5,
            "user {} did {} transfers",
            f.id,
            f.transfers
        );
    }
    // Each user's fetches do not overlap, and the think time between them is the one drawn.
    for f in &users {
        let mine: Vec<_> = r
            .transfers
            .iter()
            .filter(|t| t.flow == f.id && t.completed)
            .collect();
        for w in mine.windows(2) {
            let gap = w[1].start_s - w[0].end_s;
            assert!(
                gap >= w[1].think_s - 1e-9,
                "gap {gap} think {}",
                w[1].think_s
            );
            // (later only if the previous connection still had packets in the network)
            assert!(gap < w[1].think_s + 2.0, "gap {gap} think {}", w[1].think_s);
        }
    }
    // Access links of 2 Mb/s: no transfer beats its access rate.
    for t in r
        .transfers
        .iter()
        .filter(|t| t.completed && t.segments > 10)
    {
        assert!(t.goodput_bps < 2e6, "{t:?}");
    }
}

#[test]
fn udp_sources_keep_their_mean_rate() {
    for pattern in [
        r#""cbr""#,
        r#""poisson""#,
        r#"{"pareto": {"shape": 1.9}}"#,
        r#"{"pareto_on_off": {"shape": 1.5, "on_s": 0.05, "off_s": 0.05}}"#,
    ] {
        let json = format!(
            r#"{{"seed": 2, "duration_s": 400, "warmup_s": 0,
            "links": [{{"name": "l", "rate_bps": 1e8}}], "bottleneck": "l",
            "udp": [{{"path": ["l"], "rate_bps": 2e7, "pattern": {pattern}}}]}}"#
        );
        let r = run(&json);
        common::check_invariants(&r, &[None]);
        let s = &r.sources[0];
        // Pareto on/off with shape 1.5 converges slowly: a wider band.
        let tol = if pattern.contains("on_off") {
            0.05
        } else {
            0.02
        };
        assert!(
            rel(s.offered_bps, 2e7) < tol,
            "{pattern}: {} bit/s",
            s.offered_bps
        );
        assert!(
            rel(r.summary.utilization, 0.2) < tol,
            "{pattern}: util {}",
            r.summary.utilization
        );
        assert_eq!(
            s.packets_received + s.packets_dropped + r.summary.in_flight,
            s.packets_sent
        );
    }
}

#[test]
fn a_mix_of_everything_conserves_packets_and_is_deterministic() {
    let json = r#"{"seed": 9, "duration_s": 30, "warmup_s": 5,
        "dumbbell": {"capacity_bps": 5e7, "flows": 10, "rtt_s": {"uniform": [0.02, 0.2]},
                     "buffer": {"limit_packets": 60},
                     "mix": [{"flows": 4, "tcp": {"cc": "reno"}},
                             {"flows": 6, "tcp": {"cc": "cubic", "sack": true}}]},
        "short_flows": [{"load": 0.2, "size_bytes": {"pareto": {"shape": 1.2, "mean": 20000}},
                          "rtt_s": {"uniform": [0.02, 0.2]}, "tcp": {"sack": true}}],
        "users": [{"count": 20, "access_rate_bps": 5e6, "inputs": 4,
                   "rtt_s": {"fixed": 0.08}}],
        "udp": [{"rate_bps": 5e6, "pattern": {"pareto_on_off": {"shape": 1.5, "on_s": 0.1, "off_s": 0.2}}}]}"#;
    let a = run(json);
    let b = run(json);
    // (as JSON: NaN fields, e.g. a running transfer's end, compare equal there as null)
    assert!(a.to_json() == b.to_json(), "same scenario, same results");
    let mut limits = vec![None; a.links.len()];
    limits[0] = Some(60);
    common::check_invariants(&a, &limits);
    let names: Vec<&str> = a.classes.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["reno", "cubic", "users0", "short0"]);
    assert_eq!(a.classes[0].flows, 4);
    assert_eq!(a.classes[1].flows, 6);
    assert_eq!(a.classes[2].flows, 20);
    assert!(a.summary.drops > 0);
    // Per-flow window counters are consistent: every drop belongs to some flow or UDP source.
    let flow_drops: u64 = a.flows.iter().map(|f| f.drops).sum();
    assert!(flow_drops > 0);
    // The series of flows in slow start / congestion avoidance covers the window.
    let ph = a.traces.phases.as_ref().unwrap();
    assert_eq!(ph.t_s.len(), 250);
    assert!(ph.congestion_avoidance.iter().any(|&x| x > 0));
    assert!(ph.slow_start.iter().any(|&x| x > 0));
    for (s, c) in ph.slow_start.iter().zip(ph.congestion_avoidance.iter()) {
        assert!(s + c <= a.flows.len() as u64);
    }
}

#[test]
fn long_lived_results_are_unchanged_by_an_idle_source() {
    // A UDP source that starts after the run ends changes nothing for the long flows.
    let base = r#"{"seed": 4, "duration_s": 20, "warmup_s": 5,
        "dumbbell": {"capacity_bps": 2e7, "flows": 5, "rtt_s": {"uniform": [0.02, 0.1]},
                     "buffer": {"limit_packets": 30}}"#;
    let a = run(&format!("{base}}}"));
    let b = run(&format!(
        r#"{base}, "udp": [{{"rate_bps": 1e6, "start_s": 50}}]}}"#
    ));
    assert_eq!(a.summary.utilization, b.summary.utilization);
    assert_eq!(a.summary.drops, b.summary.drops);
    assert_eq!(a.flows, b.flows);
}
