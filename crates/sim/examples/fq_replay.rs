//! Open-loop replay of a packet arrival trace through the engine's `fq_codel`, the twin of
//! bench/ns3/fq_replay.cc (ns-3's FqCoDelQueueDisc): a packet arrives at its trace time and is
//! enqueued; a server of `--rate` bit/s takes the next packet whenever it is idle (an arrival
//! finding it idle, or the end of a service; arrivals first at equal times, as the ns-3 driver).
//!
//! stdin: "t_ns flow bytes" per packet, in time order. stdout, in event order: "D idx t_ns
//! t_ns" (starts service; the second time is when it left the discipline, the same here) or
//! "X idx t_ns" (dropped). Flow f is its own queue (the flow id's bucket is
//! checked to differ between the trace's flows). Options: `--rate BPS`, `--quantum BYTES`,
//! `--limit PACKETS`, `--target-ns`, `--interval-ns` (CoDel's, default 5 ms and 100 ms),
//! `--drop-batch` (the overflow batch, default 64 as ns-3's `DropBatchSize`).
use bufsize_sim::net::aqm::fq_codel::{FqCodel, FqCodelParams};
use bufsize_sim::net::aqm::{Context, Discipline, Limit, Queued};
use bufsize_sim::net::packet::{Kind, Packet, Tag};
use bufsize_sim::rng::Rng;
use std::io::{BufRead, Write};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let opt = |name: &str, default: f64| -> f64 {
        args.iter()
            .position(|a| a == name)
            .map(|i| args[i + 1].parse().expect(name))
            .unwrap_or(default)
    };
    let rate = opt("--rate", 1e8);
    let quantum = opt("--quantum", 1500.0) as u32;
    let limit = opt("--limit", 100_000.0) as u64;
    let target_ns = opt("--target-ns", 5e6);
    let interval_ns = opt("--interval-ns", 1e8);

    let mut trace: Vec<(u64, u32, u16)> = Vec::new();
    for line in std::io::stdin().lock().lines() {
        let line = line.unwrap();
        let v: Vec<u64> = line
            .split_whitespace()
            .map(|x| x.parse().unwrap())
            .collect();
        trace.push((v[0], v[1] as u32, v[2] as u16));
    }
    let pkt = |idx: usize| Packet {
        flow: trace[idx].1,
        seq: idx as u32,
        sacked: u32::MAX,
        bytes: trace[idx].2,
        hop: 0,
        tag: Tag::new(Kind::Data),
    };
    let params = FqCodelParams {
        target_s: target_ns / 1e9,
        interval_s: interval_ns / 1e9,
        flows: 1024,
        quantum_bytes: quantum,
        ecn: false,
        drop_batch: opt("--drop-batch", 64.0) as u32,
    };
    let ctx = Context {
        limit: Limit {
            packets: limit,
            bytes: u64::MAX,
        },
        rate_bps: rate,
        mtu_bytes: trace.iter().map(|a| a.2 as u32).max().unwrap_or(1500),
        rng: Rng::stream(1, 77),
    };
    let mut s = FqCodel::new(&params, ctx).unwrap();
    let mut flows: Vec<u32> = trace.iter().map(|a| a.1).collect();
    flows.sort();
    flows.dedup();
    let mut buckets: Vec<usize> = flows
        .iter()
        .map(|&f| s.bucket(&Packet { flow: f, ..pkt(0) }))
        .collect();
    buckets.sort();
    buckets.dedup();
    assert_eq!(buckets.len(), flows.len(), "two flows share a bucket");

    let out = std::io::stdout();
    let mut out = std::io::BufWriter::new(out.lock());
    let mut drops = Vec::new();
    let mut next = 0usize;
    // When the packet in service ends (None: idle).
    let mut busy_until: Option<u64> = None;
    let serve =
        |s: &mut FqCodel, now: u64, drops: &mut Vec<_>, out: &mut dyn Write| -> Option<u64> {
            drops.clear();
            let r = s.dequeue(now, drops);
            for (p, _) in drops.iter() {
                let p: &Packet = p;
                writeln!(out, "X {} {}", p.seq, now).unwrap();
            }
            r.map(|q| {
                writeln!(out, "D {} {} {}", q.pkt.seq, now, now).unwrap();
                now + (q.pkt.bytes as f64 * 8.0 / rate * 1e9 + 0.5) as u64
            })
        };
    loop {
        let arrival = trace.get(next).map(|a| a.0);
        match (arrival, busy_until) {
            (None, None) => break,
            (Some(t), b) if b.is_none_or(|e| t <= e) => {
                drops.clear();
                s.enqueue(
                    Queued {
                        pkt: pkt(next),
                        enq: t,
                    },
                    t,
                    &mut drops,
                );
                for (p, _) in drops.iter() {
                    writeln!(out, "X {} {}", p.seq, t).unwrap();
                }
                next += 1;
                if b.is_none() {
                    busy_until = serve(&mut s, t, &mut drops, &mut out);
                }
            }
            (_, Some(e)) => {
                busy_until = serve(&mut s, e, &mut drops, &mut out);
            }
            (Some(_), None) => unreachable!("an arrival at an idle server is taken above"),
        }
    }
}
