//! A scenario's `warm_buffer` (the bottleneck's limit before a time in the warm-up) and
//! `Simulation::set_buffer`, which changes the limit that follows it on a run stopped there: the
//! continued run must give exactly the scenario's results, whatever buffer the run was built with.
use bufsize_sim::scenario::{Dist, QueueSpec, TcpConfig, WarmBuffer};
use bufsize_sim::{Scenario, Simulation};

/// 30 CUBIC flows at 100 Mb/s, RTTs 20-100 ms, Linux-like TCP, 6 s of which 3 are warm-up.
fn link(buffer: u64, warm: Option<(u64, f64)>) -> Scenario {
    let rtts: Vec<f64> = (0..30).map(|i| 0.02 + 0.08 * i as f64 / 29.0).collect();
    let mut s = Scenario::dumbbell(
        100e6,
        30,
        Dist::List(rtts),
        QueueSpec {
            limit_packets: Some(buffer),
            limit_bytes: None,
            discipline: None,
        },
    );
    s.seed = 7;
    s.duration_s = 6.0;
    s.warmup_s = 3.0;
    s.dumbbell.as_mut().unwrap().tcp = TcpConfig {
        cc: "cubic".into(),
        sack: true,
        prr: true,
        packet_bytes: 1500,
        initial_window: 10,
        delayed_ack: true,
        ..TcpConfig::default()
    };
    s.warm_buffer = warm.map(|(packets, until_s)| WarmBuffer { packets, until_s });
    s
}

fn results(s: &Scenario) -> String {
    bufsize_sim::run(s).unwrap().to_json()
}

#[test]
fn a_run_continued_at_another_buffer_is_the_scenario_with_that_buffer() {
    let fresh = results(&link(40, Some((300, 1.5))));
    // built with another buffer, stopped at the warm buffer's end, changed, finished
    let mut sim = Simulation::new(&link(150, Some((300, 1.5)))).unwrap();
    sim.run_until(1_500_000_000);
    sim.set_buffer(40).unwrap();
    // in slices, as a run that may stop early is driven
    while sim.now_ns() < sim.end_ns() {
        sim.run_until(sim.now_ns() + 250_000_000);
    }
    assert_eq!(sim.finish().to_json(), fresh);
}

#[test]
fn the_warm_buffer_changes_the_run_and_its_own_size_does_not() {
    let plain = results(&link(40, None));
    assert_eq!(results(&link(40, Some((40, 1.5)))), plain);
    assert_ne!(results(&link(40, Some((300, 1.5)))), plain);
}

#[test]
fn the_queue_peak_counts_from_the_change_and_stays_within_the_new_limit() {
    let r = bufsize_sim::run(&link(20, Some((400, 2.0)))).unwrap();
    let v: serde_json::Value = serde_json::from_str(&r.to_json()).unwrap();
    let peak = v["summary"]["max_queue_packets"].as_u64().unwrap();
    assert!(peak <= 20, "peak {peak} behind a 20-packet limit");
    // the warm-up behind 400 packets did queue more than 20
    let w = bufsize_sim::run(&link(400, None)).unwrap();
    let v: serde_json::Value = serde_json::from_str(&w.to_json()).unwrap();
    assert!(v["summary"]["max_queue_packets"].as_u64().unwrap() > 20);
}

#[test]
fn set_buffer_needs_a_warm_buffer_still_ahead() {
    let mut sim = Simulation::new(&link(40, None)).unwrap();
    assert!(sim.set_buffer(10).is_err());
    let mut sim = Simulation::new(&link(40, Some((300, 1.5)))).unwrap();
    sim.run_until(1_600_000_000);
    assert!(sim.set_buffer(10).is_err(), "after the change");
    let mut sim = Simulation::new(&link(40, Some((300, 1.5)))).unwrap();
    assert!(sim.set_buffer(0).is_err(), "an empty buffer");
}

#[test]
fn a_warm_buffer_must_end_within_the_warm_up_and_sit_on_a_packet_fifo() {
    let err = Simulation::new(&link(40, Some((300, 3.5)))).err().unwrap();
    assert_eq!(err.field, "warm_buffer.until_s");
    let err = Simulation::new(&link(40, Some((0, 1.0)))).err().unwrap();
    assert_eq!(err.field, "warm_buffer.packets");
    let mut s = link(40, Some((300, 1.0)));
    s.dumbbell.as_mut().unwrap().buffer = QueueSpec {
        limit_packets: None,
        limit_bytes: Some(60_000),
        discipline: None,
    };
    let err = Simulation::new(&s).err().unwrap();
    assert_eq!(err.field, "warm_buffer");
}
