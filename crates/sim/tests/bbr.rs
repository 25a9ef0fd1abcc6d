//! BBR's physics in the engine: one flow's flight and PROBE_RTT, shallow buffers, and the
//! share it takes from CUBIC as the buffer grows. (The state machine against its definition is
//! tested in `src/tcp/bbr.rs`.)
mod common;
use bufsize_sim::scenario::*;
use common::*;

const C: f64 = 50e6;
const RTT: f64 = 0.04;
/// 50 Mb/s x 40 ms in 1000-byte packets.
const BDP: f64 = 250.0;

fn tcp(cc: &str) -> TcpConfig {
    TcpConfig {
        cc: cc.into(),
        sack: true,
        initial_window: 10,
        ..TcpConfig::default()
    }
}

fn single(cc: &str, buffer: u64, duration: f64) -> bufsize_sim::Results {
    let mut s = single_flow(C, RTT, buffer, duration, 10.0);
    s.flows[0].tcp = tcp(cc);
    s.measure.cwnd_trace_flows = vec![0];
    s.measure.cwnd_trace_interval_s = 0.01;
    s.measure.queue_trace_interval_s = Some(0.002);
    let r = bufsize_sim::run(&s).unwrap();
    check_invariants(&r, &[None, Some(buffer), None, None]);
    r
}

#[test]
fn one_flow_keeps_about_a_bdp_in_flight_and_a_small_queue() {
    // B = 2 BDP: a loss-based flow would fill it; BBR keeps about 1 BDP in flight (plus its
    // 5/4 probe, one RTT in eight) and a queue of a few packets, without loss.
    let r = single("bbr", 500, 60.0);
    let s = &r.summary;
    eprintln!(
        "bbr 2 BDP: util {:.4} loss {:.5} flight {:.1} queue {:.1} max {} cwnd {:.1}",
        s.utilization,
        s.loss_rate,
        s.flight_sum_mean,
        s.mean_queue_packets,
        s.max_queue_packets,
        r.flows[0].mean_cwnd
    );
    assert!(s.flight_sum_mean >= 0.97 * BDP, "{}", s.flight_sum_mean);
    assert!(s.flight_sum_mean <= 1.25 * BDP, "{}", s.flight_sum_mean);
    assert!(
        s.mean_queue_packets <= 0.15 * BDP,
        "{}",
        s.mean_queue_packets
    );
    // STARTUP filled the buffer (2.89 x the rate for a round); after it, the 5/4 probe adds
    // at most a quarter BDP to the queue, plus Linux's cwnd allowances: 3 TSO goals (1 ms at
    // 5/4 of 50 Mb/s = 7 segments of 960 bytes each) and 2 in the probe phase, 23 segments.
    assert_eq!(s.max_queue_packets, 500, "STARTUP's overshoot");
    let q = r.traces.queue.as_ref().unwrap();
    let late = q
        .t_s
        .iter()
        .zip(&q.packets)
        .filter(|(&t, _)| t >= 10.0)
        .map(|(_, &n)| n);
    let max_late = late.max().unwrap();
    assert!((max_late as f64) <= 0.25 * BDP + 23.0 + 2.0, "{max_late}");
    assert!(
        (max_late as f64) >= 0.2 * BDP,
        "the probe did queue: {max_late}"
    );
    assert_eq!(s.drops, 0);
    // cwnd is 2 BDP (+ allowances), not what limits the flow.
    assert!(
        r.flows[0].mean_cwnd >= 1.8 * BDP,
        "{}",
        r.flows[0].mean_cwnd
    );
    // PROBE_RTT costs about (200 ms + 2 RTTs) / 10 s of the link: 2-3 %.
    assert!(
        s.utilization >= 0.965 && s.utilization <= 0.985,
        "{}",
        s.utilization
    );
}

#[test]
fn probe_rtt_every_ten_seconds_at_four_segments_for_at_least_200_ms() {
    let r = single("bbr", 500, 60.0);
    let tr = &r.traces.cwnd[0];
    // Episodes of cwnd <= 4 after start-up.
    let mut eps: Vec<(f64, f64)> = vec![];
    for (i, (&t, &w)) in tr.t_s.iter().zip(&tr.cwnd).enumerate() {
        if t < 1.0 || w > 4.0 {
            continue;
        }
        match eps.last_mut() {
            Some(e) if i > 0 && tr.cwnd[i - 1] <= 4.0 => e.1 = t,
            _ => eps.push((t, t)),
        }
    }
    eprintln!("PROBE_RTT episodes (start, end): {eps:?}");
    assert!(eps.len() >= 5, "{eps:?}");
    for e in &eps {
        // 200 ms at <= 4 in flight after the flight drained (cwnd samples every 10 ms).
        assert!(e.1 - e.0 >= 0.2, "{e:?}");
        assert!(e.1 - e.0 <= 0.35, "{e:?}");
    }
    for p in eps.windows(2) {
        // The min-RTT estimate expires 10 s after the previous PROBE_RTT ended.
        let gap = p[1].0 - p[0].1;
        assert!(gap >= 10.0 && gap <= 10.1, "{p:?}");
    }
}

#[test]
fn shallow_buffer_bbr_keeps_the_link_busy_where_reno_and_cubic_cannot() {
    // B = 0.05 BDP (13 packets).
    let bbr = single("bbr", 13, 60.0);
    let reno = single("newreno", 13, 60.0);
    let cubic = single("cubic", 13, 60.0);
    let (b, n, c) = (&bbr.summary, &reno.summary, &cubic.summary);
    eprintln!(
        "B=13: bbr util {:.4} loss {:.5}; newreno {:.4} {:.5}; cubic {:.4} {:.5}",
        b.utilization, b.loss_rate, n.utilization, n.loss_rate, c.utilization, c.loss_rate
    );
    assert!(b.utilization >= 0.94, "{}", b.utilization);
    assert!(n.utilization <= 0.85, "{}", n.utilization);
    assert!(c.utilization <= b.utilization - 0.03, "{}", c.utilization);
    // BBR pays in loss: its 5/4 probe puts a quarter BDP into 13 places once per 8 RTTs, about
    // (0.25 BDP - B) / (8 BDP) = 2.5 % of what it sends.
    assert!(
        b.loss_rate >= 0.015 && b.loss_rate <= 0.05,
        "{}",
        b.loss_rate
    );
    // At that loss rate CUBIC's response function (RFC 9438 section 5.1: the larger of the
    // cubic window 1.054 (RTT/p)^(3/4) and the Reno-friendly 1.68/sqrt(p) segments) allows
    // only a sliver of this path's BDP.
    let p = b.loss_rate;
    let w_cubic = (1.054 * (RTT / p).powf(0.75)).max((3.0 * 1.7 / (2.0 * 0.3 * p)).sqrt());
    assert!(w_cubic < 0.1 * BDP, "CUBIC at p = {p}: {w_cubic} segments");
    // ... and the loss-based flows lose almost nothing here.
    assert!(n.loss_rate < 1e-3 && c.loss_rate < 1e-3);
}

/// Goodput share of the BBR flows when `n` BBR and `n` CUBIC flows share a buffer of
/// `frac` BDP.
fn bbr_share(n: u32, frac: f64) -> (f64, f64) {
    let b = (BDP * frac).round() as u64;
    let mut s = Scenario::dumbbell(
        C,
        2 * n,
        Dist::Fixed(RTT),
        QueueSpec {
            limit_packets: Some(b),
            limit_bytes: None,
            discipline: None,
        },
    );
    s.duration_s = 80.0;
    s.warmup_s = 20.0;
    let d = s.dumbbell.as_mut().unwrap();
    d.mix = vec![
        FlowClass {
            name: None,
            flows: n,
            tcp: tcp("bbr"),
        },
        FlowClass {
            name: None,
            flows: n,
            tcp: tcp("cubic"),
        },
    ];
    let r = bufsize_sim::run(&s).unwrap();
    assert!(r.summary.conservation_ok);
    let total: f64 = r.flows.iter().map(|f| f.goodput_bps).sum();
    let bbr: f64 = r
        .flows
        .iter()
        .filter(|f| f.class == 0)
        .map(|f| f.goodput_bps)
        .sum();
    (bbr / total, r.summary.utilization)
}

#[test]
fn bbr_share_against_cubic_shrinks_as_the_buffer_grows() {
    let shares: Vec<(f64, f64, f64)> = [0.25, 1.0, 4.0]
        .iter()
        .map(|&f| {
            let (s, u) = bbr_share(1, f);
            (f, s, u)
        })
        .collect();
    eprintln!("1 BBR + 1 CUBIC (B/BDP, BBR share, util): {shares:?}");
    // Shallow: CUBIC backs off on BBR's probe losses; BBR, blind to loss, takes most.
    assert!(shares[0].1 >= 0.85, "{shares:?}");
    // Deep: CUBIC fills the buffer, BBR's 2-BDP cwnd caps it at a minority.
    assert!(shares[2].1 <= 0.5, "{shares:?}");
    assert!(
        shares[0].1 > shares[1].1 && shares[1].1 > shares[2].1,
        "{shares:?}"
    );
    for s in &shares {
        assert!(s.2 >= 0.95, "{shares:?}");
    }
}
