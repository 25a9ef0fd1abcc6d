//! Ending a run early (`Simulation::end_now`) reports the same measurement window as a run whose
//! scenario ends there: what adaptive run lengths rely on. The window's counters read while the
//! run goes (`window_so_far`) agree with the results at the same time.
use bufsize_sim::scenario::Scenario;
use bufsize_sim::{Results, Simulation};

/// 12 Reno/CUBIC flows, 50 Mb/s, RTTs 20-80 ms; `queue`: the bottleneck's buffer (JSON).
fn scenario(duration_s: f64, queue: &str) -> Scenario {
    let json = format!(
        r#"{{"seed": 7, "duration_s": {duration_s}, "warmup_s": 3,
        "dumbbell": {{"capacity_bps": 5e7, "flows": 12, "rtt_s": {{"uniform": [0.02, 0.08]}},
                     "buffer": {queue}}}}}"#
    );
    Scenario::from_json(&json).unwrap()
}

fn ended_at(t_s: f64, queue: &str) -> Results {
    let mut sim = Simulation::new(&scenario(20.0, queue)).unwrap();
    sim.run_until((t_s * 1e9) as u64);
    sim.end_now();
    assert_eq!(sim.end_ns(), (t_s * 1e9) as u64);
    sim.finish()
}

fn close(a: f64, b: f64, what: &str) {
    assert!(
        (a - b).abs() <= 1e-9 * a.abs().max(1.0),
        "{what}: {a} vs {b}"
    );
}

#[test]
fn a_run_ended_early_reports_what_a_run_of_that_length_reports() {
    for queue in [
        r#"{"limit_packets": 30}"#,
        r#"{"limit_packets": 200, "discipline": {"name": "codel"}}"#,
    ] {
        let short = bufsize_sim::run(&scenario(9.0, queue)).unwrap();
        let early = ended_at(9.0, queue);
        let (a, b) = (&short.summary, &early.summary);
        close(a.utilization, b.utilization, "utilization");
        close(a.loss_rate, b.loss_rate, "loss");
        close(a.mean_queue_packets, b.mean_queue_packets, "mean queue");
        assert_eq!(a.drops, b.drops);
        // and it is not the full run's window
        let full = bufsize_sim::run(&scenario(20.0, queue)).unwrap();
        assert_ne!(
            full.summary.drops, b.drops,
            "{queue}: the full run measured the same drops"
        );
    }
}

#[test]
fn window_counters_agree_with_the_results_at_the_same_time() {
    let queue = r#"{"limit_packets": 30}"#;
    let mut sim = Simulation::new(&scenario(20.0, queue)).unwrap();
    sim.run_until(2_000_000_000);
    let w = sim.window_so_far();
    assert_eq!(
        (w.window_s, w.bits, w.arrivals),
        (0.0, 0.0, 0),
        "nothing is measured in the warm-up"
    );
    sim.run_until(9_000_000_000);
    let w = sim.window_so_far();
    let r = bufsize_sim::run(&scenario(9.0, queue)).unwrap();
    close(w.window_s, 6.0, "window");
    close(
        w.bits / (w.rate_bps * w.window_s),
        r.summary.utilization,
        "utilization",
    );
    close(
        w.queue_area_packet_s / w.window_s,
        r.summary.mean_queue_packets,
        "mean queue",
    );
    assert_eq!(w.drops, r.summary.drops);
}
