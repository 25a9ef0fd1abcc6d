//! Determinism, invariants on varied topologies, options, and scenario validation.
mod common;
use bufsize_sim::scenario::{Dist, QueueSpec, Scenario};
use bufsize_sim::{run, validate, Simulation};
use common::*;

fn small_dumbbell(seed: u64) -> Scenario {
    let mut s = Scenario::dumbbell(
        20e6,
        20,
        Dist::Uniform([0.02, 0.14]),
        QueueSpec {
            limit_packets: Some(30),
            limit_bytes: None,
            discipline: None,
        },
    );
    s.duration_s = 20.0;
    s.warmup_s = 5.0;
    s.seed = seed;
    s.measure.queue_trace_interval_s = Some(0.01);
    s.measure.cwnd_trace_flows = vec![0, 5];
    s
}

fn dumbbell_limits(n: usize, b: Option<u64>) -> Vec<Option<u64>> {
    let mut v = vec![b, None];
    v.extend(std::iter::repeat_n(None, 2 * n));
    v
}

#[test]
fn same_seed_same_results_different_seed_different_run() {
    let a = run(&small_dumbbell(7)).unwrap();
    let b = run(&small_dumbbell(7)).unwrap();
    let c = run(&small_dumbbell(8)).unwrap();
    check_invariants(&a, &dumbbell_limits(20, Some(30)));
    check_invariants(&c, &dumbbell_limits(20, Some(30)));
    assert_eq!(a.to_json(), b.to_json());
    assert_ne!(
        serde_json::to_string(&a.summary).unwrap(),
        serde_json::to_string(&c.summary).unwrap()
    );
    // Different seeds draw different RTTs and start times.
    assert_ne!(a.flows[0].rtt_s, c.flows[0].rtt_s);
    assert!(a.flows.iter().all(|f| f.rtt_s >= 0.02 && f.rtt_s <= 0.14));
    assert!(a.flows.iter().all(|f| f.start_s >= 0.0 && f.start_s <= 1.0));
}

#[test]
fn stepping_with_run_until_gives_the_same_results() {
    let s = small_dumbbell(3);
    let whole = run(&s).unwrap();
    let mut sim = Simulation::new(&s).unwrap();
    let end = sim.end_ns();
    let mut t = 0;
    while sim.now_ns() < end {
        t += 333_333_333;
        sim.run_until(t);
        assert_eq!(sim.now_ns(), t.min(end));
    }
    assert_eq!(sim.finish().to_json(), whole.to_json());
}

#[test]
fn traces_have_the_sampled_length() {
    let r = run(&small_dumbbell(1)).unwrap();
    let q = r.traces.queue.as_ref().unwrap();
    assert_eq!(q.t_s.len(), 1500); // 15 s every 10 ms
    assert!(q.packets.iter().all(|&p| p <= 30));
    assert_eq!(r.traces.cwnd.len(), 2);
    assert_eq!(r.traces.cwnd[1].flow, 5);
    assert_eq!(r.traces.cwnd[0].t_s.len(), 1500);
    assert!(r.traces.cwnd[0].cwnd.iter().any(|&w| w > 2.0));
    // Histogram covers 0..=limit.
    assert_eq!(r.queue_histogram.len(), 31);
    let f = &r.cwnd_sum_histogram;
    assert!((f.fractions.iter().sum::<f64>() - 1.0).abs() < 1e-9);
}

#[test]
fn byte_limited_queue_never_exceeds_its_bytes() {
    let mut s = small_dumbbell(2);
    s.dumbbell.as_mut().unwrap().buffer = QueueSpec {
        limit_packets: None,
        limit_bytes: Some(25_000),
        discipline: None,
    };
    let r = run(&s).unwrap();
    check_invariants(&r, &dumbbell_limits(20, None));
    assert!(r.links[0].max_queue_bytes <= 25_000);
    assert!(
        r.links[0].max_queue_bytes >= 20_000,
        "queue never filled: {}",
        r.links[0].max_queue_bytes
    );
    assert!(r.summary.drops > 0);
}

/// Paper 001 Fig. 9 style: a two-hop path with cross traffic on each hop.
#[test]
fn multi_hop_with_cross_traffic() {
    let json = r#"{"seed": 4, "duration_s": 30, "warmup_s": 5,
      "links": [
        {"name": "a0", "rate_bps": 100e6, "delay_s": 0.01}, {"name": "a1", "rate_bps": 100e6, "delay_s": 0.005},
        {"name": "a2", "rate_bps": 100e6, "delay_s": 0.02},
        {"name": "l1", "rate_bps": 20e6, "delay_s": 0.005, "queue": {"limit_packets": 40}},
        {"name": "l2", "rate_bps": 10e6, "delay_s": 0.005, "queue": {"limit_packets": 40}},
        {"name": "rev", "rate_bps": 100e6, "delay_s": 0.01}],
      "bottleneck": "l2",
      "flows": [
        {"path": ["a0", "l1", "l2"], "ack_path": ["rev"]},
        {"path": ["a1", "l1"], "ack_path": ["rev"], "start_s": 0.2},
        {"path": ["a2", "l2"], "ack_path": ["rev"], "start_s": 0.4}]}"#;
    let s = Scenario::from_json(json).unwrap();
    let r = run(&s).unwrap();
    check_invariants(&r, &[None, None, None, Some(40), Some(40), None]);
    assert!(
        r.summary.utilization > 0.9,
        "l2 utilization {}",
        r.summary.utilization
    );
    assert!(r.flows.iter().all(|f| f.goodput_bps > 1e5), "{:?}", r.flows);
    // The cross flow on l1 alone gets l1's spare capacity (well above l2's share).
    assert!(r.flows[1].goodput_bps > r.flows[0].goodput_bps);
    // Paths are exact: one-way delays add up.
    assert!((r.flows[0].rtt_s - (0.01 + 0.005 + 0.005 + 0.01)).abs() < 1e-12);
}

#[test]
fn window_cap_limits_throughput() {
    // Wmax = 10 segments, RTT 80 ms: 125 packets/s = 1 Mb/s of a 10 Mb/s link.
    let mut s = single_flow(10e6, 0.08, 100, 30.0, 5.0);
    s.flows[0].tcp.max_window_packets = Some(10);
    let r = run(&s).unwrap();
    check_invariants(&r, &[None, Some(100), None, None]);
    // The RTT includes the serialization times (0.8 ms at the bottleneck + 0.08 ms access).
    let expect = 10.0 * 1000.0 * 8.0 / (0.08 + 0.0008 + 0.00008) / 10e6;
    assert!(
        (r.summary.utilization - expect).abs() < 0.005,
        "{} vs {expect}",
        r.summary.utilization
    );
    assert_eq!(r.summary.drops, 0);
    assert!(r.flows[0].mean_cwnd <= 10.0 + 1e-9);
}

#[test]
fn finite_transfer_completes_exactly() {
    let mut s = single_flow(10e6, 0.05, 50, 30.0, 0.0);
    s.flows[0].bytes = Some(1_000_000);
    let r = run(&s).unwrap();
    check_invariants(&r, &[None, Some(50), None, None]);
    let mss = 960u64;
    assert_eq!(r.flows[0].bytes_acked, 1_000_000u64.div_ceil(mss) * mss);
    assert_eq!(r.summary.in_flight, 0);
}

#[test]
fn delayed_acks_halve_the_ack_count() {
    let mut s = single_flow(10e6, 0.08, 100, 30.0, 5.0);
    let plain = run(&s).unwrap();
    s.flows[0].tcp.delayed_ack = true;
    let del = run(&s).unwrap();
    check_invariants(&del, &[None, Some(100), None, None]);
    let ratio = del.links[2].packets as f64 / del.links[1].packets as f64;
    let ratio_plain = plain.links[2].packets as f64 / plain.links[1].packets as f64;
    assert!(
        (ratio_plain - 1.0).abs() < 0.01,
        "plain ACK/data {ratio_plain}"
    );
    assert!((ratio - 0.5).abs() < 0.05, "delayed ACK/data {ratio}");
    assert!(del.summary.utilization > 0.95);
}

#[test]
fn bad_scenarios_name_the_field() {
    let cases: &[(&str, &str)] = &[
        (
            r#"{"dumbbell": {"capacity_bps": 1e6, "flows": 2, "rtt_s": {"fixed": 0.1}, "bufer": {}}}"#,
            "bufer",
        ),
        (
            r#"{"dumbbell": {"capacity_bps": -1, "flows": 2, "rtt_s": {"fixed": 0.1}}}"#,
            "dumbbell.capacity_bps",
        ),
        (
            r#"{"dumbbell": {"capacity_bps": 1e6, "flows": 0, "rtt_s": {"fixed": 0.1}}}"#,
            "dumbbell.flows",
        ),
        (
            r#"{"dumbbell": {"capacity_bps": 1e6, "flows": 2, "rtt_s": {"uniform": [0.2, 0.1]}}}"#,
            "dumbbell.rtt_s.uniform",
        ),
        (
            r#"{"dumbbell": {"capacity_bps": 1e6, "flows": 2, "rtt_s": {"fixed": 0.1}, "buffer": {"limit_packets": 5, "limit_bytes": 5}}}"#,
            "dumbbell.buffer",
        ),
        (
            r#"{"dumbbell": {"capacity_bps": 1e6, "flows": 2, "rtt_s": {"fixed": 0.1}, "tcp": {"cc": "vegas"}}}"#,
            "dumbbell.tcp.cc",
        ),
        (
            r#"{"dumbbell": {"capacity_bps": 1e6, "flows": 2, "rtt_s": {"fixed": 0.1}, "tcp": {"packet_bytes": 40}}}"#,
            "dumbbell.tcp.packet_bytes",
        ),
        (
            r#"{"duration_s": 5, "warmup_s": 5, "dumbbell": {"capacity_bps": 1e6, "flows": 2, "rtt_s": {"fixed": 0.1}}}"#,
            "warmup_s",
        ),
        (
            r#"{"measure": {"cwnd_trace_flows": [2]}, "dumbbell": {"capacity_bps": 1e6, "flows": 2, "rtt_s": {"fixed": 0.1}}}"#,
            "measure.cwnd_trace_flows[0]",
        ),
        (
            r#"{"links": [{"name": "x", "rate_bps": 1e6}], "bottleneck": "x", "flows": [{"path": ["x", "y"], "ack_path": ["x"]}]}"#,
            "flows[0].path[1]",
        ),
        (
            r#"{"links": [{"name": "x", "rate_bps": 1e6}], "bottleneck": "z", "flows": [{"path": ["x"], "ack_path": ["x"]}]}"#,
            "bottleneck",
        ),
        (
            r#"{"links": [{"name": "x", "rate_bps": 1e6}], "flows": [{"path": ["x"], "ack_path": ["x"]}]}"#,
            "bottleneck",
        ),
        (
            r#"{"links": [{"name": "x", "rate_bps": 1e6}, {"name": "x", "rate_bps": 1e6}], "bottleneck": "x", "flows": [{"path": ["x"], "ack_path": ["x"]}]}"#,
            "links[1].name",
        ),
        (
            r#"{"links": [{"name": "x", "rate_bps": 1e6, "delay_s": -1}], "bottleneck": "x", "flows": [{"path": ["x"], "ack_path": ["x"]}]}"#,
            "links[0].delay_s",
        ),
        (
            r#"{"links": [{"name": "x", "rate_bps": 1e6}], "bottleneck": "x", "flows": []}"#,
            "flows",
        ),
        (r#"{"seed": 1}"#, "flows"),
        (
            r#"{"duration_s": 900000, "warmup_s": 0, "dumbbell": {"capacity_bps": 100e9, "flows": 1, "rtt_s": {"fixed": 0.1}}}"#,
            "duration_s",
        ),
    ];
    for (json, field) in cases {
        let err = Scenario::from_json(json)
            .and_then(|s| validate(&s).map(|_| s))
            .and_then(|s| Simulation::new(&s).map(|_| ()));
        let e = err.expect_err(json);
        let shown = e.to_string();
        assert!(
            e.field == *field || (e.field == "scenario" && shown.contains(field)),
            "{json}: expected field {field}, got {shown}"
        );
        assert!(!e.reason.is_empty());
    }
}

/// The bits column of the queue trace: it starts at zero at the warm-up's end, never decreases,
/// no interval carries more than the link can serialize, an interval that starts with a backlog
/// longer than itself is exactly full, and the last
/// sample plus the final stretch adds up to the window's utilization.
#[test]
fn queue_trace_bits_give_the_utilization_of_each_interval() {
    let s = small_dumbbell(3);
    let r = run(&s).unwrap();
    let q = r.traces.queue.as_ref().unwrap();
    let rate = q.rate_bps;
    assert_eq!(rate, 20e6);
    assert_eq!(q.bits.len(), q.t_s.len());
    assert!(
        q.bits[0].abs() < 1.0,
        "first sample at the warm-up's end: {}",
        q.bits[0]
    );
    let mut full = 0;
    for k in 1..q.bits.len() {
        let dt = q.t_s[k] - q.t_s[k - 1];
        let u = (q.bits[k] - q.bits[k - 1]) / (rate * dt);
        assert!(
            u >= -1e-9 && u <= 1.0 + 1e-6,
            "interval {k}: utilization {u}"
        );
        // A backlog at the interval's start (1000-byte packets) that takes longer than the
        // interval to serialize keeps the link busy throughout.
        if q.packets[k - 1] as f64 * 1000.0 * 8.0 / rate > dt {
            assert!(
                (u - 1.0).abs() < 1e-6,
                "interval {k} was busy throughout: {u}"
            );
            full += 1;
        }
    }
    let total = r.summary.utilization * rate * (s.duration_s - s.warmup_s);
    let last = *q.bits.last().unwrap();
    let tail = s.duration_s - q.t_s.last().unwrap();
    assert!(last <= total + 1e-6 && total - last <= rate * tail + 1e-6);
    assert!(
        full > 0,
        "no interval with a backlog longer than itself: the exact check never ran"
    );
}

/// The flight column of a window trace counts what is on the path: for one flow whose link is
/// busy, segments sent and not yet acknowledged = those queued at the bottleneck + the pipe
/// C·RTT (004 eq. (4) for n = 1), while cwnd overstates it during fast recovery.
#[test]
fn traced_flight_minus_queue_is_the_pipe_while_the_link_is_busy() {
    let mut s = Scenario::dumbbell(
        10e6,
        1,
        Dist::Fixed(0.1),
        QueueSpec {
            limit_packets: Some(125),
            limit_bytes: None,
            discipline: None,
        },
    );
    s.duration_s = 60.0;
    s.warmup_s = 10.0;
    s.measure.queue_trace_interval_s = Some(0.01);
    s.measure.cwnd_trace_flows = vec![0];
    s.measure.cwnd_trace_interval_s = 0.01;
    let r = run(&s).unwrap();
    let q = r.traces.queue.as_ref().unwrap();
    let c = &r.traces.cwnd[0];
    assert_eq!(c.flight.len(), c.t_s.len());
    // Pipe in 1000-byte packets: 10 Mb/s x 100 ms = 125 (plus the few packet times of the access
    // links' and the bottleneck's serialization that the RTT adds).
    let pipe = 10e6 * 0.1 / 8000.0;
    let mut busy = 0;
    let mut near = 0;
    for (k, &t) in c.t_s.iter().enumerate() {
        let j = q
            .t_s
            .iter()
            .position(|&x| (x - t).abs() < 1e-9)
            .expect("same sampling instants");
        if q.packets[j] > 2 {
            busy += 1;
            let d = c.flight[k] as f64 - q.packets[j] as f64;
            if (d - pipe).abs() <= 4.0 {
                near += 1;
            }
        }
    }
    assert!(busy > 1000, "too few busy samples: {busy}");
    assert!(
        near as f64 >= 0.9 * busy as f64,
        "flight - queue within 4 of the pipe in {near} of {busy} busy samples"
    );
}
