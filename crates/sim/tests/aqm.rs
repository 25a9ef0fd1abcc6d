//! Queue disciplines in whole runs: invariants (conservation, the hard limit, drops by cause),
//! determinism, disciplines away from the bottleneck, the scenario's checks, and what each one
//! is for (CoDel and PIE hold the delay near their target where the FIFO lets it grow, FQ-CoDel
//! isolates a sparse flow).
mod common;
use bufsize_sim::scenario::Scenario;
use bufsize_sim::{run, validate, Results};
use common::check_invariants;

const DISCIPLINES: [&str; 4] = ["red", "codel", "pie", "fq_codel"];

/// 16 Reno flows, 100 Mb/s, RTTs 20-100 ms (BDP about 500 packets), queue `queue` (JSON).
fn dumbbell(queue: &str, seed: u64, extra: &str) -> Scenario {
    let json = format!(
        r#"{{"seed": {seed}, "duration_s": 15, "warmup_s": 5,
        "dumbbell": {{"capacity_bps": 1e8, "flows": 16, "rtt_s": {{"uniform": [0.02, 0.1]}},
                     "buffer": {queue}}}{extra}}}"#
    );
    Scenario::from_json(&json).unwrap()
}

fn with(name: &str, limit: u64) -> String {
    format!(r#"{{"limit_packets": {limit}, "discipline": {{"name": "{name}"}}}}"#)
}

fn limits(r: &Results, bn: u64) -> Vec<Option<u64>> {
    r.links
        .iter()
        .map(|l| if l.name == "bn" { Some(bn) } else { None })
        .collect()
}

#[test]
fn every_discipline_conserves_packets_keeps_its_limit_and_splits_drops_by_cause() {
    for d in DISCIPLINES {
        for limit in [40, 400] {
            let r = run(&dumbbell(&with(d, limit), 3, "")).unwrap();
            check_invariants(&r, &limits(&r, limit));
            let s = &r.summary;
            assert_eq!(s.queue_discipline, d);
            assert_eq!(s.drops, s.aqm_drops + s.overflow_drops, "{d}");
            assert!(s.max_queue_packets <= limit, "{d}: {}", s.max_queue_packets);
            assert!(
                s.utilization > 0.5 && s.utilization <= 1.0,
                "{d}: {}",
                s.utilization
            );
            let bn = r.links.iter().find(|l| l.name == "bn").unwrap();
            assert_eq!(bn.discipline, d);
            assert!(bn.sojourn_mean_s.is_some() && bn.sojourn_p99_s.is_some());
            assert!((bn.sojourn_mean_s.unwrap() - s.queue_delay_mean_s).abs() < 1e-12);
            // The other links stay drop-tail, with no sojourn record.
            let bnr = r.links.iter().find(|l| l.name == "bnr").unwrap();
            assert_eq!(
                (bnr.discipline.as_str(), bnr.sojourn_mean_s),
                ("fifo", None)
            );
        }
        // A deep limit: the discipline, not the limit, drops.
        let r = run(&dumbbell(&with(d, 2000), 3, "")).unwrap();
        assert!(r.summary.aqm_drops > 0, "{d} never dropped");
        assert_eq!(r.summary.overflow_drops, 0, "{d}");
    }
}

#[test]
fn a_fifo_reports_its_drops_as_overflow_and_its_sojourn() {
    let r = run(&dumbbell(r#"{"limit_packets": 40}"#, 3, "")).unwrap();
    let s = &r.summary;
    assert_eq!(s.queue_discipline, "fifo");
    assert_eq!((s.aqm_drops, s.overflow_drops), (0, s.drops));
    let bn = r.links.iter().find(|l| l.name == "bn").unwrap();
    assert_eq!(bn.sojourn_mean_s, Some(s.queue_delay_mean_s));
}

#[test]
fn runs_with_disciplines_repeat_bit_for_bit_and_the_seed_matters() {
    for d in DISCIPLINES {
        let a = run(&dumbbell(&with(d, 400), 5, "")).unwrap();
        let b = run(&dumbbell(&with(d, 400), 5, "")).unwrap();
        let c = run(&dumbbell(&with(d, 400), 6, "")).unwrap();
        assert_eq!(a.to_json(), b.to_json(), "{d}");
        assert_ne!(a.summary.sent, c.summary.sent, "{d}");
    }
}

#[test]
fn codel_and_pie_hold_the_delay_near_their_targets_where_a_deep_fifo_does_not() {
    let fifo = run(&dumbbell(r#"{"limit_packets": 2000}"#, 1, ""))
        .unwrap()
        .summary;
    let codel = run(&dumbbell(&with("codel", 2000), 1, "")).unwrap().summary;
    let pie = run(&dumbbell(&with("pie", 2000), 1, "")).unwrap().summary;
    let fq = run(&dumbbell(&with("fq_codel", 2000), 1, ""))
        .unwrap()
        .summary;
    // A 2000-packet FIFO fills up to several BDPs: 60 ms+ of queueing.
    assert!(
        fifo.queue_delay_mean_s > 0.06,
        "fifo {}",
        fifo.queue_delay_mean_s
    );
    // CoDel: target 5 ms; PIE: reference 15 ms (a few ms either side in a 10-s window).
    assert!(
        codel.queue_delay_mean_s < 0.012,
        "codel {}",
        codel.queue_delay_mean_s
    );
    assert!(
        pie.queue_delay_mean_s < 0.025,
        "pie {}",
        pie.queue_delay_mean_s
    );
    assert!(
        fq.queue_delay_mean_s < 0.012,
        "fq_codel {}",
        fq.queue_delay_mean_s
    );
    for (n, s) in [("codel", &codel), ("pie", &pie), ("fq_codel", &fq)] {
        assert!(s.utilization > 0.95, "{n} utilization {}", s.utilization);
    }
}

#[test]
fn fq_codel_isolates_a_sparse_flow_that_a_shared_fifo_queue_delays() {
    // A 1 Mb/s CBR stream beside 16 bulk flows: behind a deep FIFO it waits as long as the bulk
    // packets; FQ-CoDel serves it from the new list, ahead of the standing queues.
    let udp = r#", "udp": [{"rate_bps": 1e6, "packet_bytes": 200}]"#;
    let fifo = run(&dumbbell(r#"{"limit_packets": 2000}"#, 1, udp)).unwrap();
    let fq = run(&dumbbell(&with("fq_codel", 2000), 1, udp)).unwrap();
    let lost = |r: &Results| r.sources[0].packets_dropped;
    assert!(fifo.summary.queue_delay_mean_s > 0.05);
    // Fair share of bytes per flow is 100/17 Mb/s; the stream asks 1 Mb/s, so it never builds
    // a queue of its own: none of its packets is dropped.
    assert_eq!(lost(&fq), 0);
    assert!(
        fq.summary.jain_fairness > 0.95,
        "{}",
        fq.summary.jain_fairness
    );
}

#[test]
fn a_discipline_runs_on_any_link_not_only_the_bottleneck() {
    // CoDel on the access link of one flow whose access is the narrowest link of its path, and
    // FQ-CoDel on the measured link.
    let json = r#"{"seed": 2, "duration_s": 10, "warmup_s": 2,
      "links": [
        {"name": "acc0", "rate_bps": 2e7, "delay_s": 0.01,
         "queue": {"limit_packets": 300, "discipline": {"name": "codel", "target_s": 0.002}}},
        {"name": "acc1", "rate_bps": 1e9, "delay_s": 0.02},
        {"name": "bn", "rate_bps": 5e7, "queue": {"discipline": {"name": "fq_codel", "quantum_bytes": 3000}}},
        {"name": "bnr", "rate_bps": 5e7},
        {"name": "r0", "rate_bps": 1e9, "delay_s": 0.01},
        {"name": "r1", "rate_bps": 1e9, "delay_s": 0.02}],
      "bottleneck": "bn",
      "flows": [{"path": ["acc0", "bn"], "ack_path": ["bnr", "r0"]},
                {"path": ["acc1", "bn"], "ack_path": ["bnr", "r1"]},
                {"path": ["acc1", "bn"], "ack_path": ["bnr", "r1"]}]}"#;
    let r = run(&Scenario::from_json(json).unwrap()).unwrap();
    let lim = vec![Some(300), None, Some(10240), None, None, None];
    check_invariants(&r, &lim);
    let acc0 = &r.links[0];
    assert_eq!(acc0.discipline, "codel");
    assert!(acc0.aqm_drops > 0, "the 20 Mb/s access link never dropped");
    assert!(
        acc0.sojourn_mean_s.unwrap() < 0.01,
        "{:?}",
        acc0.sojourn_mean_s
    );
    assert_eq!(r.summary.queue_discipline, "fq_codel");
    // One flow is held back by its own link: the other two share the rest of the bottleneck.
    assert!(r.flows[0].goodput_bps < 2.1e7);
    assert!(r.summary.utilization > 0.9);
}

#[test]
fn the_scenario_names_what_is_wrong_with_a_discipline() {
    let bad = |q: &str| {
        validate(&dumbbell(q, 1, ""))
            .map(|_| String::new())
            .unwrap_or_else(|e| e.to_string())
    };
    let e = bad(r#"{"discipline": {"name": "sfq"}}"#);
    assert!(
        e.starts_with("dumbbell.buffer.discipline.name:") && e.contains("codel"),
        "{e}"
    );
    let e = bad(r#"{"discipline": {"name": "codel", "targte_s": 0.005}}"#);
    assert!(
        e.starts_with("dumbbell.buffer.discipline") && e.contains("targte_s"),
        "{e}"
    );
    let e = bad(r#"{"discipline": {"name": "codel", "target_s": 0.2}}"#);
    assert!(e.starts_with("dumbbell.buffer.discipline.target_s:"), "{e}");
    let e = bad(r#"{"discipline": {"name": "red", "min_th": 20, "max_th": 10}}"#);
    assert!(e.starts_with("dumbbell.buffer.discipline.max_th:"), "{e}");
    let e = bad(r#"{"limit_packets": 0, "discipline": {"name": "pie"}}"#);
    assert!(e.starts_with("dumbbell.buffer.limit_packets:"), "{e}");
    let shaped = Scenario::from_json(
        r#"{"dumbbell": {"capacity_bps": 1e8, "flows": 2, "rtt_s": {"fixed": 0.05},
            "bottleneck_burst_bytes": 15000,
            "buffer": {"discipline": {"name": "codel"}}}}"#,
    )
    .unwrap();
    let e = validate(&shaped).unwrap_err().to_string();
    assert!(
        e.starts_with("dumbbell.buffer:") && e.contains("burst"),
        "{e}"
    );
    // The schema round-trips the discipline and its parameters.
    let s = dumbbell(
        r#"{"discipline": {"name": "pie", "target_s": 0.02}}"#,
        1,
        "",
    );
    assert_eq!(Scenario::from_json(&s.to_json()).unwrap(), s);
}
