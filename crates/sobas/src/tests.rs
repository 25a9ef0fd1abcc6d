//! One test (at least) per rule of J6, each driven by a synthetic event sequence.
use super::*;

const MSS: u32 = 1000;
const MAX: u64 = 4_000_000;
const S: u64 = 1_000_000_000; // one second in ns
const MS: u64 = 1_000_000;

fn ctl() -> Sobas {
    Sobas::new(Config::new(MSS, MAX)).unwrap()
}

/// Feed `secs` seconds of data at `rate` bytes/s in 10-ms chunks starting at `t`, with an RTT
/// sample of `rtt` every 20 ms (as the probes would give). Returns the end time.
fn feed(c: &mut Sobas, t: u64, secs: u64, rate: f64, rtt: f64) -> u64 {
    let step = 10 * MS;
    let n = secs * S / step;
    for k in 0..n {
        let now = t + k * step;
        c.on_bytes(now, (rate * 0.01) as u64);
        if k % 2 == 0 {
            c.on_probe(now, false, Some(rtt));
        }
    }
    t + n * step
}

/// Five trains of 9 kB spread over `disp` each (rate 9000/disp).
fn trains(c: &mut Sobas, t: u64, disp_ns: [u64; 5]) {
    for (i, d) in disp_ns.iter().enumerate() {
        c.on_train(t + i as u64 * MS, 9000, *d);
    }
}

#[test]
fn rule1_buffers_start_at_the_maximum() {
    let c = ctl();
    assert_eq!(c.limit(), MAX);
    assert_eq!(c.phase(), Phase::Start);
}

#[test]
fn rule3_initial_limit_is_median_train_capacity_times_rtt() {
    let mut c = ctl();
    c.on_rtt(0, 0.1);
    // train rates 9000/disp: 1.5, 3, 3.6 (median), 4.5, 9 MB/s
    for (i, d) in [6 * MS, 3 * MS, 2_500_000, 2 * MS].iter().enumerate() {
        c.on_train(i as u64 * MS, 9000, *d);
        assert_eq!(c.limit(), MAX, "no limit before the fifth train");
    }
    let r = c.on_train(5 * MS, 9000, MS);
    let expect = (3.6e6 * 0.1) as u64;
    assert_eq!(r, Some(expect));
    assert_eq!(c.limit(), expect);
    assert_eq!(c.phase(), Phase::InitialLimit);
    assert!((c.capacity_estimate().unwrap() - 3.6e6).abs() < 1.0);
    // later trains change nothing
    c.on_train(6 * MS, 9000, 100);
    assert_eq!(c.limit(), expect);
}

#[test]
fn rule3_trains_before_any_rtt_apply_when_the_rtt_arrives() {
    let mut c = ctl();
    trains(&mut c, 0, [2 * MS; 5]); // 4.5 MB/s
    assert_eq!(c.limit(), MAX);
    assert_eq!(c.on_rtt(10 * MS, 0.2), Some(900_000));
    assert_eq!(c.phase(), Phase::InitialLimit);
}

#[test]
fn rule3_train_deadline_uses_the_trains_that_arrived_or_skips() {
    let mut c = ctl();
    c.on_rtt(0, 0.1);
    c.on_train(MS, 9000, 2 * MS);
    c.on_train(2 * MS, 9000, 4 * MS); // rates 4.5 and 2.25 MB/s: median 3.375
    assert_eq!(c.limit(), MAX);
    c.tick(5 * S);
    assert_eq!(c.limit(), 337_500);
    let mut d = ctl();
    d.on_rtt(0, 0.1);
    d.tick(6 * S);
    assert_eq!(d.limit(), MAX);
    assert_eq!(d.phase(), Phase::Start);
    assert!(d.initial_limit().is_none());
}

#[test]
fn rule3_linear_increase_two_segments_per_rtt_after_the_window_reaches_the_limit() {
    let mut c = ctl();
    c.on_rtt(0, 0.1);
    trains(&mut c, 0, [9 * MS; 5]); // 1 MB/s → S̃ = 100 kB
    assert_eq!(c.limit(), 100_000);
    // a window well below S̃ (rate·T = 50 kB): limit stays
    let t = feed(&mut c, 10 * MS, 3, 500_000.0, 0.1);
    assert_eq!(c.phase(), Phase::InitialLimit);
    assert_eq!(c.limit(), 100_000);
    // window at S̃ (rate·T = 95 kB ≥ 0.9 S̃): linear increase starts at the next sample boundary
    let t = feed(&mut c, t, 2, 950_000.0, 0.1);
    assert_eq!(c.phase(), Phase::LinearIncrease);
    let l0 = c.limit();
    // exactly 10 RTTs later: +20 segments
    let now = c.decisions().len();
    assert_eq!(now, 0);
    let start = t;
    // no data events, just time (the receive rate stays unknown but the limit grows)
    c.tick(start + 1000 * MS);
    let grown = c.limit() - l0;
    assert!(
        (20_000..=22_000).contains(&grown),
        "grew {grown} bytes in 1 s at RTT 100 ms"
    );
    c.tick(start + 2000 * MS);
    let grown2 = c.limit() - l0;
    assert!(
        (40_000..=42_000).contains(&grown2),
        "grew {grown2} bytes in 2 s"
    );
}

#[test]
fn rule5_flat_rate_saturates_and_rule6_limits_to_rate_times_rtt() {
    let mut c = ctl();
    // no trains: start phase at max; 3 MB/s flat for 6 s, RTT 0.12 s
    feed(&mut c, 0, 6, 3e6, 0.12);
    assert_eq!(c.phase(), Phase::Adjusted);
    let d = &c.decisions()[0];
    assert!(!d.congested);
    assert!((d.rate - 3e6).abs() < 1.0);
    assert!((d.rtt - 0.12).abs() < 1e-9);
    assert_eq!(c.limit(), 360_000);
    // decided at the end of the fifth second (five full samples)
    assert_eq!(d.t_ns, 5 * S);
}

#[test]
fn rule5_a_growing_rate_is_not_saturation_and_fewer_than_five_samples_never_are() {
    let mut c = ctl();
    feed(&mut c, 0, 4, 3e6, 0.1);
    assert_eq!(c.phase(), Phase::Start, "four samples are not enough");
    // threshold = 0.5 · 1000 / 0.01 = 50 kB/s per second; grow at 100 kB/s per second
    let mut c = ctl();
    let mut t = 0;
    for k in 0..10 {
        t = feed(&mut c, t, 1, 2e6 + 100e3 * k as f64, 0.1);
    }
    assert_eq!(c.phase(), Phase::Start);
    assert!(c.decisions().is_empty());
    // growing at 20 kB/s per second: below the threshold, saturation
    let mut c = ctl();
    let mut t = 0;
    for k in 0..6 {
        t = feed(&mut c, t, 1, 2e6 + 20e3 * k as f64, 0.1);
    }
    assert_eq!(c.phase(), Phase::Adjusted);
    // falling fast (losses) is not "about zero" either
    let mut c = ctl();
    let mut t = 0;
    for k in 0..8 {
        t = feed(&mut c, t, 1, 3e6 - 200e3 * k as f64, 0.1);
    }
    assert!(c.decisions().is_empty());
}

#[test]
fn rule5_the_tolerance_is_a_parameter() {
    // growth 100 kB/s per second: not saturated at 0.5 (50 kB/s/s), saturated at 2.0 (200 kB/s/s)
    let run = |tol: f64| {
        let mut cfg = Config::new(MSS, MAX);
        cfg.slope_tolerance = tol;
        let mut c = Sobas::new(cfg).unwrap();
        let mut t = 0;
        for k in 0..7 {
            t = feed(&mut c, t, 1, 2e6 + 100e3 * k as f64, 0.1);
        }
        c.phase()
    };
    assert_eq!(run(0.5), Phase::Start);
    assert_eq!(run(2.0), Phase::Adjusted);
}

#[test]
fn rule6_a_recent_forward_probe_loss_means_congested_and_the_maximum() {
    let mut c = ctl();
    c.on_rtt(0, 0.1);
    trains(&mut c, 0, [9 * MS; 5]); // limit 100 kB
    assert_eq!(c.limit(), 100_000);
    c.on_probe(MS, true, None); // one forward loss
    feed(&mut c, 2 * MS, 7, 500_000.0, 0.1); // flat, below S̃
    assert_eq!(c.phase(), Phase::Congested);
    assert_eq!(c.limit(), MAX, "congested path: limit back at the maximum");
    assert!(c.decisions()[0].congested);
    assert_eq!(c.decisions()[0].probes_lost, 1);
}

#[test]
fn rule6_only_the_last_1000_probes_count() {
    let mut c = ctl();
    c.on_probe(0, true, Some(0.1));
    // 7 s of probes every 20 ms = 350 probes: the loss is still remembered
    feed(&mut c, MS, 7, 1e6, 0.1);
    assert_eq!(c.phase(), Phase::Congested);
    let mut c = ctl();
    c.on_probe(0, true, Some(0.1));
    for k in 0..1000u64 {
        c.on_probe(k * 20 * MS / 1000, false, Some(0.1)); // 1000 probes, no data yet
    }
    assert_eq!(c.probe_losses(), (0, 1000));
    feed(&mut c, 21 * S, 7, 1e6, 0.1);
    assert_eq!(c.phase(), Phase::Adjusted);
    assert_eq!(c.limit(), 100_000);
}

#[test]
fn rule7_single_adjustment_by_default() {
    let mut c = ctl();
    let t = feed(&mut c, 0, 6, 3e6, 0.1);
    assert_eq!(c.limit(), 300_000);
    // the path changes: rate doubles, a probe is lost, RTT grows; nothing moves
    c.on_probe(t, true, Some(0.3));
    let mut t = t;
    for k in 0..10 {
        t = feed(&mut c, t, 1, 6e6 + 1e5 * k as f64, 0.2);
    }
    feed(&mut c, t, 10, 6e6, 0.2);
    assert_eq!(c.limit(), 300_000);
    assert_eq!(c.decisions().len(), 1);
    assert_eq!(c.phase(), Phase::Adjusted);
}

#[test]
fn rule7_readjust_option_grows_again_and_decides_again() {
    let mut cfg = Config::new(MSS, MAX);
    cfg.readjust = true;
    let mut c = Sobas::new(cfg).unwrap();
    let t = feed(&mut c, 0, 6, 3e6, 0.1);
    assert_eq!(c.decisions().len(), 1);
    assert_eq!(c.decisions()[0].limit, 300_000);
    assert_eq!(c.phase(), Phase::LinearIncrease);
    // one second later the limit has grown by ~20 segments
    c.tick(t + S);
    assert!(c.limit() >= 318_000, "limit {}", c.limit());
    // the path now saturates at 4 MB/s: the second decision sets 4e6 · 0.1
    feed(&mut c, t + S, 7, 4e6, 0.1);
    assert_eq!(c.decisions().len(), 2);
    assert_eq!(c.decisions()[1].limit, 400_000);
}

#[test]
fn limits_stay_within_min_and_max_and_long_silences_are_bounded() {
    let mut c = ctl();
    c.on_rtt(0, 1e-6);
    trains(&mut c, 0, [9 * MS; 5]); // S̃ = 1 byte → floor
    assert_eq!(c.limit(), 4 * MSS as u64);
    let mut c = ctl();
    c.on_rtt(0, 100.0);
    trains(&mut c, 0, [MS; 5]); // 9 MB/s · 100 s → cap
    assert_eq!(c.limit(), MAX);
    // a jump of ~30 years of silence returns at once (bounded loops) and makes zero samples
    let mut c = ctl();
    c.on_bytes(0, 1000);
    c.tick(1_000_000_000 * S);
    assert!(c.samples().iter().all(|s| *s == 0.0));
    // time going backwards is treated as no time passing
    c.on_bytes(5, 10);
    assert_eq!(c.phase(), Phase::Start);
}

#[test]
fn same_events_same_limits() {
    let run = || {
        let mut c = ctl();
        c.on_rtt(0, 0.1);
        trains(&mut c, 0, [2 * MS, 3 * MS, 4 * MS, 5 * MS, 6 * MS]);
        let mut out = vec![];
        let mut t = 0;
        for k in 0..20 {
            t = feed(
                &mut c,
                t,
                1,
                1e6 + 3e4 * (k as f64).min(8.0),
                0.1 + 0.001 * k as f64,
            );
            out.push(c.limit());
        }
        (out, c.decisions().to_vec())
    };
    assert_eq!(run(), run());
}

/// Closed loop on a fluid path: available bandwidth A, base RTT T, a drop-tail queue of `qmax`
/// bytes (about one A·T: over-buffered, as Fig. 8 top); the sender's window is min(limit, cwnd)
/// with slow start up to a large ssthresh, then +1 MSS per RTT, halved on overflow. Returns
/// (controller, overflows, phases seen).
fn fluid(use_sobas: bool) -> (Sobas, u32, Vec<Phase>) {
    let a = 3e6; // bytes/s
    let base = 0.1;
    let qmax = 300_000.0;
    let mut c = ctl();
    let mut cwnd = 10_000.0f64;
    let mut ssthresh = 2_000_000.0;
    let dt = 0.01;
    let mut losses = 0;
    let mut phases = vec![c.phase()];
    for k in 0..6000u64 {
        let now = k * 10 * MS;
        let lim = if use_sobas {
            c.limit() as f64
        } else {
            MAX as f64
        };
        let w = cwnd.min(lim);
        let queue = (w - a * base).max(0.0);
        if queue > qmax {
            losses += 1;
            cwnd /= 2.0;
            ssthresh = cwnd;
            continue;
        }
        let rtt = base + queue / a;
        let rate = (w / rtt).min(a);
        if k == 2 {
            trains(&mut c, now, [2_250_000; 5]); // the trains see a 4 MB/s tight link
        }
        c.on_bytes(now, (rate * dt) as u64);
        if k % 2 == 0 {
            c.on_probe(now, false, Some(rtt));
        }
        if *phases.last().unwrap() != c.phase() {
            phases.push(c.phase());
        }
        cwnd += if cwnd < ssthresh {
            cwnd * dt / rtt
        } else {
            MSS as f64 * dt / rtt
        };
    }
    (c, losses, phases)
}

#[test]
fn closed_loop_finds_the_available_bandwidth_without_overflowing() {
    let a = 3e6;
    let (c, losses, phases) = fluid(true);
    assert_eq!(
        phases,
        vec![
            Phase::Start,
            Phase::InitialLimit,
            Phase::LinearIncrease,
            Phase::Adjusted
        ]
    );
    let d = c.decisions().first().expect("saturation detected");
    assert!(!d.congested);
    assert!(
        (d.rate - a).abs() < 0.02 * a,
        "saturation rate {} vs A {a}",
        d.rate
    );
    // R_rs·T_rs keeps the queue that was standing at saturation, never more than the buffer
    let l = c.limit() as f64;
    assert!(l >= 0.98 * a * 0.1 && l <= a * 0.1 + 300_000.0, "limit {l}");
    assert_eq!(
        losses, 0,
        "the initial limit C̃·T̃ avoided the slow-start overshoot"
    );
    // without the controller the same slow start overflows the buffer
    let (_, losses_max, _) = fluid(false);
    assert!(losses_max > 0);
}

#[test]
fn config_errors_name_the_field() {
    let mut cfg = Config::new(MSS, MAX);
    cfg.slope_samples = 1;
    assert!(Sobas::new(cfg).unwrap_err().starts_with("slope_samples"));
    let mut cfg = Config::new(MSS, MAX);
    cfg.slope_tolerance = f64::NAN;
    assert!(Sobas::new(cfg).unwrap_err().starts_with("slope_tolerance"));
    assert!(Sobas::new(Config::new(0, MAX))
        .unwrap_err()
        .starts_with("mss"));
    assert!(Sobas::new(Config::new(MSS, 10))
        .unwrap_err()
        .starts_with("max_buffer"));
}
