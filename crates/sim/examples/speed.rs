//! Engine speed benchmark: `cargo run --release -p bufsize-sim --example speed -- S2`
//! (S1 = OC3, n = 400, 60 s; S2 = 1 Gb/s, n = 1000, 20 s; S3 = 10 Gb/s, n = 10 000, 10 s;
//! RTTs uniform 20-140 ms, B = BDP/sqrt(n) with the mean RTT, 1000-byte packets).
//! Prints bottleneck packets per wall-second, events per second, peak memory (VmHWM) and the
//! raw push+pop rate of the event calendars alone on a workload of the same size.
use bufsize_sim::calendar::{HeapCalendar, RadixCalendar, WheelCalendar};
use bufsize_sim::rng::Rng;
use bufsize_sim::scenario::{Dist, QueueSpec, Scenario};
use std::time::Instant;

/// S4, mixed traffic: 1 Gb/s, 500 long NewReno flows, open-loop short flows at load 0.3
/// (Pareto sizes, mean 20 packets, shape 1.5, RTTs 20-140 ms) and two 20 Mb/s UDP sources (CBR
/// and Pareto on/off), B = BDP/sqrt(500), 20 s.
fn mixed() -> Scenario {
    let b = (1e9 * 0.08 / 8000.0 / (500f64).sqrt()).round();
    Scenario::from_json(&format!(
        r#"{{"duration_s": 20, "warmup_s": 0,
        "dumbbell": {{"capacity_bps": 1e9, "flows": 500, "rtt_s": {{"uniform": [0.02, 0.14]}},
                     "buffer": {{"limit_packets": {b}}}}},
        "short_flows": [{{"load": 0.3, "size_packets": {{"pareto": {{"shape": 1.5, "mean": 20}}}},
                          "rtt_s": {{"uniform": [0.02, 0.14]}}}}],
        "udp": [{{"rate_bps": 2e7}},
                {{"rate_bps": 2e7, "pattern": {{"pareto_on_off": {{"shape": 1.5, "on_s": 0.5, "off_s": 0.5}}}}}}]}}"#
    ))
    .expect("S4 scenario")
}

fn scenario(name: &str) -> Scenario {
    if name == "S4" {
        return mixed();
    }
    let (c, n, dur) = match name {
        "S1" => (155e6, 400u32, 60.0),
        "S2" => (1e9, 1000, 20.0),
        "S3" => (10e9, 10_000, 10.0),
        "S0" => (155e6, 100, 10.0),
        "S5" => (1e9, 100, 20.0),
        _ => panic!("unknown scenario {name} (S0, S1, S2, S3, S4, S5)"),
    };
    let bdp = c * 0.08 / 8000.0;
    let b = (bdp / (n as f64).sqrt()).round() as u64;
    let mut s = Scenario::dumbbell(
        c,
        n,
        Dist::Uniform([0.02, 0.14]),
        QueueSpec {
            limit_packets: Some(b),
            limit_bytes: None,
            discipline: None,
        },
    );
    s.duration_s = dur;
    s.warmup_s = 0.0; // count every bottleneck packet of the run
    if name == "S5" {
        // S5: BBR as Linux runs it (SACK, initial window 10), every segment paced.
        let t = &mut s.dumbbell.as_mut().unwrap().tcp;
        t.cc = "bbr".into();
        t.sack = true;
        t.initial_window = 10;
    }
    s
}

/// CPU time of this process so far (ns), from /proc/self/schedstat (time spent running).
fn cpu_ns() -> u64 {
    std::fs::read_to_string("/proc/self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next().and_then(|v| v.parse().ok()))
        .unwrap_or(0)
}

fn vm_hwm_kib() -> u64 {
    let st = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    st.lines()
        .find(|l| l.starts_with("VmHWM:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

/// Hold model: `size` pending events, then `ops` pop+push pairs with the new event
/// 0..max_ahead ns after the popped one. Returns push+pop operations per wall-second and per
/// CPU-second (the latter comparable with the run's packets per CPU-second on a busy machine).
macro_rules! hold {
    ($cal:expr, $size:expr, $ops:expr, $ahead:expr) => {{
        let mut cal = $cal;
        let mut rng = Rng::stream(42, 1000);
        for _ in 0..$size {
            cal.push(rng.next_u64() % $ahead, [0u64; 3]);
        }
        let c0 = cpu_ns();
        let t0 = Instant::now();
        let mut chk = 0u64;
        for _ in 0..$ops {
            let (t, e) = cal.pop().unwrap();
            chk = chk.wrapping_add(t ^ e[0]);
            cal.push(t + rng.next_u64() % $ahead, [t, 0, 0]);
        }
        let dt = t0.elapsed().as_secs_f64();
        let dc = (cpu_ns() - c0) as f64 / 1e9;
        std::hint::black_box(chk);
        (2.0 * $ops as f64 / dt, 2.0 * $ops as f64 / dc)
    }};
}

fn main() {
    let name = std::env::args().nth(1).unwrap_or_else(|| "S2".into());
    let s = scenario(&name);
    let n = s.dumbbell.as_ref().unwrap().flows;
    let c0 = cpu_ns();
    let t0 = Instant::now();
    let r = bufsize_sim::run(&s).expect("valid scenario");
    let wall = t0.elapsed().as_secs_f64();
    let cpu = (cpu_ns() - c0) as f64 / 1e9;
    let sm = &r.summary;
    let hwm = vm_hwm_kib();
    // Calendar alone, same order of pending events as the run (≈ packets in flight).
    let pending = (sm.in_flight.max(1000)) as usize;
    let ops = 20_000_000u64;
    let ahead = 140_000_000u64;
    let radix = hold!(RadixCalendar::<[u64; 3]>::new(), pending, ops, ahead);
    let heap = hold!(HeapCalendar::<[u64; 3]>::new(), pending, ops, ahead);
    // The wheel with the geometry the engine picks for this scenario (3 events per packet).
    let (shift, log_n) = bufsize_sim::calendar::wheel_geometry(
        3.0 * s.dumbbell.as_ref().unwrap().capacity_bps / 8000.0,
    );
    let wheel = hold!(
        WheelCalendar::<[u64; 3]>::with_geometry(shift, log_n),
        pending,
        ops,
        ahead
    );
    println!(
        "scenario {name}: n = {n}, C = {} b/s, {} s simulated, B = {:?} pkts",
        s.dumbbell.as_ref().unwrap().capacity_bps,
        s.duration_s,
        s.dumbbell.as_ref().unwrap().buffer.limit_packets
    );
    println!("wall_seconds {wall:.3}");
    println!("cpu_seconds {cpu:.3}");
    println!("bottleneck_packets {}", sm.bottleneck_packets);
    println!(
        "bottleneck_pkts_per_wall_s {:.0}",
        sm.bottleneck_packets as f64 / wall
    );
    println!(
        "bottleneck_pkts_per_cpu_s {:.0}",
        sm.bottleneck_packets as f64 / cpu
    );
    println!("events {}", sm.events);
    println!("events_per_wall_s {:.0}", sm.events as f64 / wall);
    println!("peak_rss_mib {:.1}", hwm as f64 / 1024.0);
    println!(
        "utilization {:.4} loss_rate {:.5} conservation_ok {}",
        sm.utilization, sm.loss_rate, sm.conservation_ok
    );
    println!("calendar_pending_at_end {pending}");
    println!("calendar_radix_ops_per_s {:.0}", radix.0);
    println!("calendar_heap_ops_per_s {:.0}", heap.0);
    println!(
        "calendar_wheel_ops_per_s {:.0} (the engine's calendar)",
        wheel.0
    );
    println!("calendar_heap_ops_per_cpu_s {:.0}", heap.1);
    // The issue's yardstick: the run's bottleneck packets per CPU-second over the raw heap's
    // push+pop operations per CPU-second, both in this process.
    println!(
        "pkts_per_cpu_s_over_heap_ops_per_cpu_s {:.3}",
        sm.bottleneck_packets as f64 / cpu / heap.1
    );
}
