//! Fuzzing the engine's scenario reader: mutated copies of the example scenarios (hostile values,
//! deleted and extra fields, emptied lists, numbers scaled by orders of magnitude, damaged JSON
//! text) go through `Scenario::from_json` and, when it accepts them and they are small,
//! `Simulation::new`. The property: an answer (Ok or a `ScenarioError`), never a panic.
//!
//! `cargo test -p bufsize-sim --release --test scenario_reader_fuzz` runs 512 cases;
//! `PROPTEST_CASES=20000` (as `make fuzz` does) runs more.
use bufsize_sim::scenario::Scenario;
use bufsize_sim::Simulation;
use proptest::prelude::*;
use serde_json::{json, Value};

/// The engine's SI form of examples/*.toml (`bufsize simulate FILE --show-scenario`), run length
/// shortened to 1 s.
const BASES: &[&str] = &[
    // examples/cross_traffic.toml
    r#"{"seed": 1, "duration_s": 1.0, "warmup_s": 0.25, "short_flows": [], "users": [], "udp": [], "links": [{"name": "h0", "rate_bps": 1000000000.0, "delay_s": 0.005, "queue": {}}, {"name": "r1", "rate_bps": 100000000.0, "delay_s": 0.01, "queue": {"limit_packets": 200}}, {"name": "h1", "rate_bps": 1000000000.0, "delay_s": 0.002, "queue": {}}, {"name": "r2", "rate_bps": 50000000.0, "delay_s": 0.01, "queue": {"limit_packets": 100}}, {"name": "ack", "rate_bps": 1000000000.0, "delay_s": 0.025, "queue": {}}, {"name": "ackx", "rate_bps": 1000000000.0, "delay_s": 0.012, "queue": {}}], "flows": [{"path": ["h0", "r1", "r2"], "ack_path": ["ack"], "start_s": 0.0, "kind": "bulk", "tcp": {"cc": "newreno", "sack": true, "packet_bytes": 1500, "header_bytes": 40, "initial_window": 2, "min_rto_s": 0.2, "max_rto_s": 60.0, "initial_rto_s": 1.0, "max_window_packets": null, "delayed_ack": false, "delayed_ack_timeout_s": 0.2, "ack_bytes": 40, "dupack_threshold": 3, "prr": true}}, {"path": ["h1", "r2"], "ack_path": ["ackx"], "start_s": 0.5, "kind": "bulk", "tcp": {"cc": "newreno", "sack": true, "packet_bytes": 1500, "header_bytes": 40, "initial_window": 2, "min_rto_s": 0.2, "max_rto_s": 60.0, "initial_rto_s": 1.0, "max_window_packets": null, "delayed_ack": false, "delayed_ack_timeout_s": 0.2, "ack_bytes": 40, "dupack_threshold": 3, "prr": true}}, {"path": ["h1", "r2"], "ack_path": ["ackx"], "start_s": 1.0, "kind": "bulk", "tcp": {"cc": "newreno", "sack": true, "packet_bytes": 1500, "header_bytes": 40, "initial_window": 2, "min_rto_s": 0.2, "max_rto_s": 60.0, "initial_rto_s": 1.0, "max_window_packets": null, "delayed_ack": false, "delayed_ack_timeout_s": 0.2, "ack_bytes": 40, "dupack_threshold": 3, "prr": true}}], "bottleneck": "r2", "measure": {"queue_trace_interval_s": null, "cwnd_trace_flows": [], "cwnd_trace_interval_s": 0.01, "queue_histogram": true, "cwnd_sum_interval_s": 0.001, "phase_trace_interval_s": 0.1}}"#,
    // examples/mixed_traffic.toml
    r#"{"seed": 1, "duration_s": 1.0, "warmup_s": 0.25, "dumbbell": {"capacity_bps": 50000000.0, "flows": 10, "rtt_s": {"uniform": [0.02, 0.2]}, "buffer": {"limit_packets": 60}, "access_rate_bps": null, "access_queue": {}, "bottleneck_delay_s": 0.0, "start_s": {"uniform": [0.0, 1.0]}, "tcp": {"cc": "newreno", "sack": true, "packet_bytes": 1500, "header_bytes": 40, "initial_window": 2, "min_rto_s": 0.2, "max_rto_s": 60.0, "initial_rto_s": 1.0, "max_window_packets": null, "delayed_ack": false, "delayed_ack_timeout_s": 0.2, "ack_bytes": 40, "dupack_threshold": 3, "prr": true}, "mix": [{"flows": 4, "tcp": {"cc": "reno", "sack": true, "packet_bytes": 1500, "header_bytes": 40, "initial_window": 2, "min_rto_s": 0.2, "max_rto_s": 60.0, "initial_rto_s": 1.0, "max_window_packets": null, "delayed_ack": false, "delayed_ack_timeout_s": 0.2, "ack_bytes": 40, "dupack_threshold": 3, "prr": true}, "name": "reno"}, {"flows": 6, "tcp": {"cc": "cubic", "sack": true, "packet_bytes": 1500, "header_bytes": 40, "initial_window": 2, "min_rto_s": 0.2, "max_rto_s": 60.0, "initial_rto_s": 1.0, "max_window_packets": null, "delayed_ack": false, "delayed_ack_timeout_s": 0.2, "ack_bytes": 40, "dupack_threshold": 3, "prr": true}, "name": "cubic"}]}, "short_flows": [{"load": 0.2, "size_bytes": {"pareto": {"shape": 1.2, "mean": 20000.0}}, "rtt_s": {"uniform": [0.02, 0.2]}, "start_s": 0.0, "tcp": {"cc": "newreno", "sack": true, "packet_bytes": 1500, "header_bytes": 40, "initial_window": 2, "min_rto_s": 0.2, "max_rto_s": 60.0, "initial_rto_s": 1.0, "max_window_packets": null, "delayed_ack": false, "delayed_ack_timeout_s": 0.2, "ack_bytes": 40, "dupack_threshold": 3, "prr": true}}], "users": [{"count": 20, "access_rate_bps": 5000000.0, "inputs": 4, "rtt_s": {"fixed": 0.08}, "tcp": {"cc": "newreno", "sack": true, "packet_bytes": 1500, "header_bytes": 40, "initial_window": 2, "min_rto_s": 0.2, "max_rto_s": 60.0, "initial_rto_s": 1.0, "max_window_packets": null, "delayed_ack": false, "delayed_ack_timeout_s": 0.2, "ack_bytes": 40, "dupack_threshold": 3, "prr": true}}, {"count": 10, "name": "mice", "size_packets": {"int_uniform": [10, 15]}, "think_s": {"uniform": [0.5, 1.5]}, "rtt_s": {"fixed": 0.05}, "tcp": {"cc": "newreno", "sack": true, "packet_bytes": 1500, "header_bytes": 40, "initial_window": 2, "min_rto_s": 0.2, "max_rto_s": 60.0, "initial_rto_s": 1.0, "max_window_packets": null, "delayed_ack": false, "delayed_ack_timeout_s": 0.2, "ack_bytes": 40, "dupack_threshold": 3, "prr": true}}], "udp": [{"rate_bps": 5000000.0, "pattern": {"pareto_on_off": {"shape": 1.5, "on_s": 0.1, "off_s": 0.2}}, "start_s": 0.0}], "links": [], "flows": [], "bottleneck": "bn", "measure": {"queue_trace_interval_s": null, "cwnd_trace_flows": [], "cwnd_trace_interval_s": 0.01, "queue_histogram": true, "cwnd_sum_interval_s": 0.001, "phase_trace_interval_s": 0.1}}"#,
    // examples/oc3_400.toml
    r#"{"seed": 1, "duration_s": 1.0, "warmup_s": 0.25, "dumbbell": {"capacity_bps": 155000000.0, "flows": 400, "rtt_s": {"uniform": [0.02, 0.14]}, "buffer": {"limit_packets": 78}, "access_rate_bps": null, "access_queue": {}, "bottleneck_delay_s": 0.0, "start_s": {"uniform": [0.0, 1.0]}, "tcp": {"cc": "newreno", "sack": false, "packet_bytes": 1000, "header_bytes": 40, "initial_window": 2, "min_rto_s": 0.2, "max_rto_s": 60.0, "initial_rto_s": 1.0, "max_window_packets": null, "delayed_ack": false, "delayed_ack_timeout_s": 0.2, "ack_bytes": 40, "dupack_threshold": 3, "prr": true}}, "short_flows": [], "users": [], "udp": [], "links": [], "flows": [], "bottleneck": "bn", "measure": {"queue_trace_interval_s": 0.01, "cwnd_trace_flows": [0, 1, 2], "cwnd_trace_interval_s": 0.01, "queue_histogram": true, "cwnd_sum_interval_s": 0.001, "phase_trace_interval_s": 0.1}}"#,
    // examples/one_flow.toml
    r#"{"seed": 1, "duration_s": 1.0, "warmup_s": 0.25, "dumbbell": {"capacity_bps": 10000000.0, "flows": 1, "rtt_s": {"fixed": 0.1}, "buffer": {"limit_packets": 42}, "access_rate_bps": null, "access_queue": {}, "bottleneck_delay_s": 0.0, "start_s": {"fixed": 0.0}, "tcp": {"cc": "reno", "sack": true, "packet_bytes": 1500, "header_bytes": 40, "initial_window": 2, "min_rto_s": 0.2, "max_rto_s": 60.0, "initial_rto_s": 1.0, "max_window_packets": null, "delayed_ack": false, "delayed_ack_timeout_s": 0.2, "ack_bytes": 40, "dupack_threshold": 3, "prr": true}}, "short_flows": [], "users": [], "udp": [], "links": [], "flows": [], "bottleneck": "bn", "measure": {"queue_trace_interval_s": 0.005, "cwnd_trace_flows": [0], "cwnd_trace_interval_s": 0.01, "queue_histogram": true, "cwnd_sum_interval_s": 0.001, "phase_trace_interval_s": 0.1}}"#,
];

/// JSON pointers of every value in `v`.
fn pointers(v: &Value, prefix: String, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                let p = format!("{prefix}/{}", k.replace('~', "~0").replace('/', "~1"));
                out.push(p.clone());
                pointers(x, p, out);
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                let p = format!("{prefix}/{i}");
                out.push(p.clone());
                pointers(x, p, out);
            }
        }
        _ => {}
    }
}

fn hostile() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        Just(json!(true)),
        Just(json!("")),
        Just(json!("abc")),
        Just(json!([])),
        Just(json!({})),
        Just(json!([[]])),
        Just(json!({"fixed": null})),
        Just(json!({"uniform": [5.0, 1.0]})),
        Just(json!({"int_uniform": [0u64, u64::MAX]})),
        Just(json!({"int_uniform": [u64::MAX, u64::MAX]})),
        Just(json!({"pareto": {"shape": 1e308, "mean": 20000.0}})),
        Just(json!({"pareto": {"shape": 1.0000001, "mean": 1e300}})),
        Just(json!({"exponential": 1e-300})),
        Just(json!({"list": []})),
        Just(json!({"empirical": {"values": [1.0, 2.0], "cdf": [0.5, 0.4]}})),
        Just(json!({"empirical": {"values": [], "cdf": []}})),
        Just(json!({"limit_packets": u64::MAX})),
        Just(json!({"limit_bytes": u64::MAX})),
        Just(json!(u64::MAX)),
        Just(json!(i64::MIN)),
        Just(json!(u32::MAX)),
        Just(json!(1e308)),
        Just(json!(-1e308)),
        Just(json!(5e-324)),
        Just(json!(1e-300)),
        Just(json!(0)),
        Just(json!(-1)),
        any::<f64>()
            .prop_filter("finite", |x| x.is_finite())
            .prop_map(|x| json!(x)),
        any::<i64>().prop_map(|x| json!(x)),
        any::<u64>().prop_map(|x| json!(x)),
        "[a-z_0-9]{0,6}".prop_map(Value::String),
    ]
}

#[derive(Debug, Clone)]
enum Mutation {
    Replace(usize, Value),
    Delete(usize),
    Extra(usize, String, Value),
    Empty(usize),
    Scale(usize, i32),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let at = any::<usize>();
    prop_oneof![
        3 => (at.clone(), hostile()).prop_map(|(i, v)| Mutation::Replace(i, v)),
        1 => at.clone().prop_map(Mutation::Delete),
        1 => (at.clone(), "[a-z_]{1,8}", hostile()).prop_map(|(i, k, v)| Mutation::Extra(i, k, v)),
        1 => at.clone().prop_map(Mutation::Empty),
        3 => (at, -20i32..20).prop_map(|(i, k)| Mutation::Scale(i, k)),
    ]
}

fn apply(v: &mut Value, m: &Mutation) {
    let mut ptrs = Vec::new();
    pointers(v, String::new(), &mut ptrs);
    if ptrs.is_empty() {
        return;
    }
    let pick = |i: usize| ptrs[i % ptrs.len()].clone();
    match m {
        Mutation::Replace(i, x) => {
            if let Some(t) = v.pointer_mut(&pick(*i)) {
                *t = x.clone();
            }
        }
        Mutation::Delete(i) => {
            let p = pick(*i);
            let (parent, key) = p.rsplit_once('/').unwrap();
            match v.pointer_mut(parent) {
                Some(Value::Object(o)) => {
                    o.remove(&key.replace("~1", "/").replace("~0", "~"));
                }
                Some(Value::Array(a)) => {
                    if let Ok(k) = key.parse::<usize>() {
                        if k < a.len() {
                            a.remove(k);
                        }
                    }
                }
                _ => {}
            }
        }
        Mutation::Extra(i, k, x) => {
            let p = pick(*i);
            let parent = p.rsplit_once('/').unwrap().0;
            if let Some(Value::Object(o)) = v.pointer_mut(parent) {
                o.insert(k.clone(), x.clone());
            }
        }
        Mutation::Empty(i) => {
            if let Some(t) = v.pointer_mut(&pick(*i)) {
                *t = match t {
                    Value::Array(_) => json!([]),
                    Value::Object(_) => json!({}),
                    _ => Value::Null,
                };
            }
        }
        Mutation::Scale(i, k) => {
            if let Some(t) = v.pointer_mut(&pick(*i)) {
                if let Some(x) = t.as_f64() {
                    let y = x * 10f64.powi(*k);
                    if y.is_finite() {
                        *t = if t.is_u64() && *k >= 0 && y <= u64::MAX as f64 {
                            json!(y as u64)
                        } else {
                            json!(y)
                        };
                    }
                }
            }
        }
    }
}

/// Damage the text itself: cut it, or swap a number for a token JSON does not allow.
fn damage(text: &str, how: u8, at: usize) -> String {
    let cut = text
        .char_indices()
        .map(|(i, _)| i)
        .nth(at % text.len().max(1))
        .unwrap_or(0);
    match how % 4 {
        0 => text[..cut].to_string(),
        1 => text.replacen("1.0", "1e999", 1),
        2 => text.replacen("1.0", "NaN", 1),
        _ => text.replacen(": 1", ": -0", 1),
    }
}

/// A scenario small enough to build in a test (the Python side refuses the big ones before
/// they reach the engine, from its cost estimate).
fn small(v: &Value) -> bool {
    let count = |p: &str| v.pointer(p).and_then(Value::as_u64).unwrap_or(0);
    let users: u64 = v
        .get("users")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .map(|u| u.get("count").and_then(Value::as_u64).unwrap_or(0))
                .sum()
        })
        .unwrap_or(0);
    count("/dumbbell/flows") <= 10_000 && users <= 10_000
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, failure_persistence: None, .. ProptestConfig::default() })]

    #[test]
    fn mutated_scenarios_are_read_or_refused_never_a_panic(
        base in 0..BASES.len(),
        muts in prop::collection::vec(mutation(), 1..4),
        text_damage in prop::option::weighted(0.1, (any::<u8>(), any::<usize>())),
    ) {
        let mut v: Value = serde_json::from_str(BASES[base]).unwrap();
        for m in &muts {
            apply(&mut v, m);
        }
        let mut text = serde_json::to_string(&v).unwrap();
        if let Some((how, at)) = text_damage {
            text = damage(&text, how, at);
        }
        if let Ok(s) = Scenario::from_json(&text) {
            if small(&v) {
                let _ = Simulation::new(&s).map(|sim| sim.end_ns());
            }
        }
    }
}

#[test]
fn the_bases_read_and_build() {
    for b in BASES {
        let s = Scenario::from_json(b).expect("an example scenario");
        Simulation::new(&s).expect("builds");
    }
}

/// `int_uniform = [0, 2^64 - 1]` (where start times allow zero) once divided by zero: its
/// width b - a + 1 wrapped to 0. Building the simulation must not panic (it may refuse).
#[test]
fn full_range_int_uniform_is_no_panic() {
    let mut v: Value = serde_json::from_str(BASES[BASES.len() - 1]).unwrap();
    v["dumbbell"]["start_s"] = json!({"int_uniform": [0u64, u64::MAX]});
    let s = Scenario::from_json(&v.to_string()).expect("the range is read");
    let _ = Simulation::new(&s);
}
