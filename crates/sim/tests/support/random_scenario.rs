//! The random small scenarios shared by `tests/random_scenarios.rs` (invariants on 150 of
//! them) and `examples/identity_corpus.rs` (the bit-identity corpus): buffers down to 0, byte
//! limits, every registered control, SACK, PRR, delayed ACKs, window caps, 1 ms-300 ms RTTs,
//! access slower than the bottleneck, finite cross traffic with a 2-packet reverse queue, short
//! flows, closed-loop users, UDP, SOBAS. A scenario depends only on the generator's state, so
//! both keep drawing the same scenarios from the same seeds.
use bufsize_sim::rng::Rng;
use bufsize_sim::scenario::*;

/// One of `v`, uniformly.
pub fn pick<'a, T>(r: &mut Rng, v: &'a [T]) -> &'a T {
    &v[(r.next_u64() % v.len() as u64) as usize]
}

/// A random scenario and the packet limit of each of its links (bottleneck, reverse
/// bottleneck, the access links in order, then any links of the cross traffic and users).
pub fn random_scenario(r: &mut Rng) -> (Scenario, Vec<Option<u64>>) {
    let n = 1 + (r.next_u64() % 12) as u32;
    let cap = *pick(r, &[1e6, 5e6, 20e6, 100e6]);
    let rtt = match r.next_u64() % 3 {
        0 => Dist::Fixed(*pick(r, &[0.001, 0.02, 0.2])),
        1 => Dist::Uniform([0.005, 0.15]),
        _ => Dist::List(vec![0.01, 0.05, 0.3]),
    };
    let limit = *pick(r, &[0u64, 1, 3, 10, 50]);
    let buffer = if r.next_u64().is_multiple_of(4) {
        QueueSpec {
            limit_packets: None,
            limit_bytes: Some(*pick(r, &[0u64, 1500, 20_000])),
            discipline: None,
        }
    } else {
        QueueSpec {
            limit_packets: Some(limit),
            limit_bytes: None,
            discipline: None,
        }
    };
    let mut s = Scenario::dumbbell(cap, n, rtt, buffer.clone());
    s.seed = r.next_u64();
    s.duration_s = *pick(r, &[0.5, 3.0, 8.0]);
    s.warmup_s = s.duration_s * *pick(r, &[0.0, 0.3]);
    let d = s.dumbbell.as_mut().unwrap();
    d.access_rate_bps = Some(cap * *pick(r, &[0.5, 1.0, 10.0]));
    d.access_queue = QueueSpec {
        limit_packets: *pick(r, &[None, Some(5)]),
        limit_bytes: None,
        discipline: None,
    };
    d.bottleneck_delay_s = *pick(r, &[0.0, 0.0005]);
    d.tcp.cc = pick(r, &bufsize_sim::tcp::cc::names()).to_string();
    d.tcp.sack = r.next_u64().is_multiple_of(2);
    d.tcp.prr = d.tcp.sack && r.next_u64().is_multiple_of(2);
    d.tcp.delayed_ack = r.next_u64().is_multiple_of(3);
    d.tcp.packet_bytes = *pick(r, &[100u32, 576, 1500]);
    d.tcp.initial_window = *pick(r, &[1u32, 2, 10]);
    d.tcp.max_window_packets = *pick(r, &[None, Some(4), Some(64)]);
    d.tcp.min_rto_s = *pick(r, &[0.2, 0.01]);
    s.measure.queue_trace_interval_s = *pick(r, &[None, Some(0.05)]);
    s.measure.cwnd_trace_flows = vec![0];
    // Limits per link: bn, bnr, then acc_i/racc_i.
    let mut lim = vec![buffer.limit_packets, None];
    for _ in 0..n {
        lim.push(s.dumbbell.as_ref().unwrap().access_queue.limit_packets);
        lim.push(None);
    }
    // Sometimes a finite cross flow over the bottleneck with its own links.
    if r.next_u64().is_multiple_of(2) {
        s.links.push(LinkSpec {
            name: "x".into(),
            rate_bps: cap * 2.0,
            delay_s: 0.0,
            queue: QueueSpec::default(),
            burst_bytes: None,
        });
        s.links.push(LinkSpec {
            name: "xr".into(),
            rate_bps: cap / 4.0,
            delay_s: 0.03,
            queue: QueueSpec {
                limit_packets: Some(2),
                limit_bytes: None,
                discipline: None,
            },
            burst_bytes: None,
        });
        s.flows.push(FlowSpec {
            path: vec!["x".into(), "bn".into()],
            ack_path: vec!["xr".into()],
            start_s: 0.1,
            kind: FlowKind::Bulk,
            bytes: Some(*pick(r, &[1u64, 50_000, 10_000_000])),
            tcp: TcpConfig {
                sack: r.next_u64().is_multiple_of(2),
                ..TcpConfig::default()
            },
            sobas: if r.next_u64().is_multiple_of(2) {
                Some(SobasSpec {
                    max_buffer_bytes: 1 << 20,
                    probe_interval_s: 0.02,
                    probe_bytes: 100,
                    slope_tolerance: None,
                    readjust: r.next_u64().is_multiple_of(2),
                })
            } else {
                None
            },
        });
        lim.push(None);
        lim.push(Some(2));
    }
    let tcp = |r: &mut Rng| TcpConfig {
        cc: pick(r, &["reno", "newreno", "cubic"]).to_string(),
        sack: r.next_u64().is_multiple_of(2),
        delayed_ack: r.next_u64().is_multiple_of(3),
        ..TcpConfig::default()
    };
    if r.next_u64().is_multiple_of(2) {
        s.short_flows.push(ShortFlows {
            name: None,
            path: None,
            ack_path: None,
            load: Some(*pick(r, &[0.05, 0.3, 0.7])),
            load_link: None,
            rate_bps: None,
            arrivals_per_s: None,
            size_bytes: None,
            size_packets: Some(Dist::IntUniform([1, 40])),
            rtt_s: Dist::Uniform([0.005, 0.15]),
            start_s: 0.0,
            stop_s: None,
            tcp: tcp(r),
        });
    }
    if r.next_u64().is_multiple_of(3) {
        let count = 1 + (r.next_u64() % 5) as u32;
        let access = *pick(r, &[None, Some(cap / 2.0), Some(cap * 10.0)]);
        let inputs = access.map(|_| 1 + (r.next_u64() % count as u64) as u32);
        s.users.push(Users {
            name: None,
            count,
            path: None,
            ack_path: None,
            access_rate_bps: access,
            inputs,
            access_queue: QueueSpec::default(),
            size_bytes: Some(Dist::Pareto {
                shape: 1.5,
                mean: 20_000.0,
            }),
            size_packets: None,
            think_s: Some(Dist::Exponential(0.2)),
            rtt_s: Dist::Uniform([0.005, 0.15]),
            start_s: None,
            tcp: tcp(r),
        });
        for _ in 0..inputs.unwrap_or(0) {
            lim.push(None);
        }
    }
    if r.next_u64().is_multiple_of(3) {
        s.udp.push(Udp {
            name: None,
            path: None,
            rate_bps: cap * *pick(r, &[0.1, 0.5, 1.2]),
            packet_bytes: *pick(r, &[64u32, 1000]),
            pattern: pick(
                r,
                &[
                    UdpPattern::Cbr,
                    UdpPattern::Poisson,
                    UdpPattern::Pareto { shape: 1.5 },
                    UdpPattern::ParetoOnOff {
                        shape: 1.5,
                        on_s: 0.05,
                        off_s: 0.1,
                    },
                ],
            )
            .clone(),
            start_s: 0.0,
            stop_s: None,
        });
    }
    (s, lim)
}
