//! Engine scale benchmark: the same per-flow share at growing n (1 Mb/s per flow, two-way
//! propagation delays uniform in 20-140 ms, B = BDP/sqrt(n) with the mean RTT, 1000-byte
//! packets, NewReno). `cargo run --release -p bufsize-sim --example scale -- FLOWS SECONDS
//! [CAPACITY_BPS] [RTT_LO RTT_HI]` prints bottleneck packets per wall-second and per
//! CPU-second, peak memory (VmHWM) and the bytes of per-flow state, then the raw pop+push
//! rate of a binary heap (`--heap-rate`) holding as many events as the run had in flight.
//! `--warmup S` leaves the first S simulated seconds out of the rates: the bottleneck packets
//! and the CPU time are then those of [S, SECONDS) only (the steady state, without the start-up
//! transient of n flows in slow start).
//! `bench/sim_scale.sh` runs the cases of bench/sim_scale.md.
use bufsize_sim::calendar::HeapCalendar;
use bufsize_sim::rng::Rng;
use bufsize_sim::scenario::{Dist, QueueSpec, Scenario};
use std::time::Instant;

fn cpu_ns() -> u64 {
    std::fs::read_to_string("/proc/self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next().and_then(|v| v.parse().ok()))
        .unwrap_or(0)
}

fn vm_kib(key: &str) -> u64 {
    let st = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    st.lines()
        .find(|l| l.starts_with(key))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

/// Push+pop operations per second of a binary heap holding `size` events (the hold model of
/// examples/speed.rs: pop the earliest, push one 0..140 ms later).
fn heap_rate(size: usize, ops: u64) -> f64 {
    let mut cal = HeapCalendar::<[u64; 3]>::new();
    let mut rng = Rng::stream(42, 1000);
    let ahead = 140_000_000u64;
    for _ in 0..size {
        cal.push(rng.next_u64() % ahead, [0u64; 3]);
    }
    let t0 = Instant::now();
    let mut chk = 0u64;
    for _ in 0..ops {
        let (t, e) = cal.pop().unwrap();
        chk = chk.wrapping_add(t ^ e[0]);
        cal.push(t + rng.next_u64() % ahead, [t, 0, 0]);
    }
    std::hint::black_box(chk);
    2.0 * ops as f64 / t0.elapsed().as_secs_f64()
}

fn main() {
    let mut a: Vec<String> = std::env::args().skip(1).collect();
    let mut warmup = 0.0;
    if let Some(i) = a.iter().position(|x| x == "--warmup") {
        warmup = a
            .get(i + 1)
            .expect("--warmup S")
            .parse()
            .expect("warm-up seconds");
        a.drain(i..i + 2);
    }
    if a.first().map(String::as_str) == Some("--heap-rate") {
        let size: usize = a.get(1).map_or(100_000, |x| x.parse().expect("size"));
        println!("heap_ops_per_s {:.0}", heap_rate(size, 20_000_000));
        return;
    }
    let n: u32 = a
        .first()
        .expect("usage: scale FLOWS SECONDS [CAPACITY_BPS] [RTT_LO RTT_HI]")
        .parse()
        .expect("flows");
    let dur: f64 = a.get(1).map_or(2.0, |x| x.parse().expect("seconds"));
    let c: f64 = a
        .get(2)
        .map_or(n as f64 * 1e6, |x| x.parse().expect("capacity"));
    let lo: f64 = a.get(3).map_or(0.02, |x| x.parse().expect("rtt lo"));
    let hi: f64 = a.get(4).map_or(0.14, |x| x.parse().expect("rtt hi"));
    let bdp = c * 0.5 * (lo + hi) / 8000.0;
    let b = (bdp / (n as f64).sqrt()).round().max(1.0) as u64;
    let mut s = Scenario::dumbbell(
        c,
        n,
        if lo == hi {
            Dist::Fixed(lo)
        } else {
            Dist::Uniform([lo, hi])
        },
        QueueSpec {
            limit_packets: Some(b),
            limit_bytes: None,
            discipline: None,
        },
    );
    s.duration_s = dur;
    s.warmup_s = warmup;
    let rss0 = vm_kib("VmRSS:");
    let c0 = cpu_ns();
    let t0 = Instant::now();
    let mut sim = bufsize_sim::Simulation::new(&s).expect("valid scenario");
    let setup = t0.elapsed().as_secs_f64();
    let rss_setup = vm_kib("VmRSS:");
    let hwm_setup = vm_kib("VmHWM:");
    // With a warm-up, the rates count from its end (the window's packets, its CPU time).
    let (c1, t1) = if warmup > 0.0 {
        sim.run_until((warmup * 1e9) as u64);
        (cpu_ns(), Instant::now())
    } else {
        (c0, t0)
    };
    let r = sim.finish();
    let wall = t1.elapsed().as_secs_f64();
    let cpu = (cpu_ns() - c1) as f64 / 1e9;
    let sm = &r.summary;
    println!("flows {n} capacity_bps {c} rtt_s {lo}..{hi} buffer_pkts {b} simulated_s {dur} warmup_s {warmup}");
    println!("wall_s {wall:.3} cpu_s {cpu:.3} setup_s {setup:.3}");
    println!("bottleneck_packets {}", sm.bottleneck_packets);
    println!("pkts_per_wall_s {:.0}", sm.bottleneck_packets as f64 / wall);
    println!("pkts_per_cpu_s {:.0}", sm.bottleneck_packets as f64 / cpu);
    println!("events {}", sm.events);
    println!("peak_rss_mib {:.1}", vm_kib("VmHWM:") as f64 / 1024.0);
    println!(
        "setup_rss_bytes_per_flow {:.0}",
        (rss_setup.saturating_sub(rss0)) as f64 * 1024.0 / n as f64
    );
    println!("setup_peak_rss_mib {:.1}", hwm_setup as f64 / 1024.0);
    let sizes: Vec<String> = bufsize_sim::state_bytes()
        .iter()
        .map(|(k, v)| format!("{k} {v}"))
        .collect();
    println!("record_bytes {}", sizes.join(" "));
    println!("in_flight_at_end {}", sm.in_flight);
    println!(
        "utilization {:.4} loss_rate {:.5} conservation_ok {}",
        sm.utilization, sm.loss_rate, sm.conservation_ok
    );
}
