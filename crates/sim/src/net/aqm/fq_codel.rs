//! FQ-CoDel (RFC 8290): packets are hashed by flow into `flows` queues, each under its own
//! CoDel state machine; a deficit round robin with a `quantum` of bytes serves the queues,
//! those that just became active (the *new* list) before those that stayed backlogged (the
//! *old* list). Over the hard limit, packets are dropped from the head of the queue holding
//! the most bytes.
//!
//! Where RFC 8290 leaves a choice this follows Linux's `fq_codel`: the hash is perturbed by a
//! random value (here from the link's seeded stream, so runs repeat); CoDel's "at most a packet
//! queued" test counts the whole backlog, not the flow queue's; a queue that empties while on
//! the new list goes to the tail of the old list when that list is not empty (RFC 8290 §4.2,
//! against starvation) and is removed otherwise. On overflow the queue holding the most bytes
//! loses packets from its head until half its bytes are gone or `drop_batch` packets (64) were
//! dropped, as Linux's `fq_codel` and ns-3's `FqCoDelQueueDisc` (`DropBatchSize`) do; RFC 8290
//! §4.1 describes one packet per packet over the limit, which `drop_batch: 1` gives.
//! The flow key is the engine's flow id and packet kind (data, ACK, datagram), its 5-tuple.
//!
//! `ecn` (RFC 8290 §5.2.7; on by default, as in Linux's `fq_codel` and ns-3's
//! `FqCoDelQueueDisc`) makes each flow's CoDel mark ECN-capable packets CE instead of dropping
//! them (see `codel.rs`); it only matters for senders that negotiated ECN. Overflow drops are
//! never marks.
use super::codel::{Control, Vars};
use super::{
    params, pos_time, Cause, Context, Discipline, Drops, Fifo, Limit, Queued, Registration,
};
use crate::net::packet::Packet;
use crate::time::Ns;
use serde::Deserialize;
use std::collections::VecDeque;

pub const REGISTRATION: Registration = Registration {
    name: "fq_codel",
    // Linux's `fq_codel` default limit.
    default_limit_packets: 10240,
    make,
};

fn d_target() -> f64 {
    0.005
}
fn d_interval() -> f64 {
    0.1
}
fn d_flows() -> u32 {
    1024
}
fn d_quantum() -> u32 {
    1514
}

/// FQ-CoDel's parameters (RFC 8290 §5 / Linux defaults).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FqCodelParams {
    #[serde(default = "d_target")]
    pub target_s: f64,
    #[serde(default = "d_interval")]
    pub interval_s: f64,
    /// Number of flow queues (hash buckets).
    #[serde(default = "d_flows")]
    pub flows: u32,
    /// Bytes a queue may send per round of the deficit round robin.
    #[serde(default = "d_quantum")]
    pub quantum_bytes: u32,
    /// Mark ECN-capable packets CE instead of dropping them (Linux's default: on).
    #[serde(default = "d_true")]
    pub ecn: bool,
    /// Most packets one overflow drops from the fattest queue (Linux's `drop_batch`, ns-3's
    /// `DropBatchSize`: 64); it stops earlier once half that queue's bytes are dropped.
    #[serde(default = "d_drop_batch")]
    pub drop_batch: u32,
}

fn d_drop_batch() -> u32 {
    64
}

fn d_true() -> bool {
    true
}

const NONE: u8 = 0;
const NEW: u8 = 1;
const OLD: u8 = 2;

#[derive(Debug, Clone, Default)]
struct FlowQueue {
    q: Fifo,
    vars: Vars,
    deficit: i64,
    /// Which list holds the queue: NONE, NEW or OLD.
    list: u8,
}

pub struct FqCodel {
    queues: Vec<FlowQueue>,
    new_flows: VecDeque<u32>,
    old_flows: VecDeque<u32>,
    c: Control,
    quantum: i64,
    limit: Limit,
    packets: u64,
    bytes: u64,
    perturbation: u64,
    marks: u64,
    drop_batch: u32,
}

fn make(v: &serde_json::Value, ctx: Context) -> Result<Box<dyn Discipline>, String> {
    let p: FqCodelParams = params(v)?;
    Ok(Box::new(FqCodel::new(&p, ctx)?))
}

impl FqCodel {
    pub fn new(p: &FqCodelParams, mut ctx: Context) -> Result<FqCodel, String> {
        if p.flows == 0 || p.flows > 65536 {
            return Err(format!(
                "flows: must be between 1 and 65536, got {}",
                p.flows
            ));
        }
        if p.quantum_bytes == 0 {
            return Err("quantum_bytes: must be at least 1".into());
        }
        if p.drop_batch == 0 {
            return Err("drop_batch: must be at least 1".into());
        }
        let cp = super::codel::CodelParams {
            target_s: p.target_s,
            interval_s: p.interval_s,
            ecn: p.ecn,
        };
        pos_time("target_s", p.target_s)?;
        Ok(FqCodel {
            queues: vec![FlowQueue::default(); p.flows as usize],
            new_flows: VecDeque::new(),
            old_flows: VecDeque::new(),
            c: Control::from_params(&cp, ctx.mtu_bytes)?,
            quantum: p.quantum_bytes as i64,
            limit: ctx.limit,
            packets: 0,
            bytes: 0,
            perturbation: ctx.rng.next_u64(),
            marks: 0,
            drop_batch: p.drop_batch,
        })
    }

    /// The queue a packet belongs to: its flow key hashed with the perturbation (SplitMix64's
    /// finalizer), scaled onto 0..flows.
    pub fn bucket(&self, p: &Packet) -> usize {
        let mut z = (p.flow as u64 | (p.kind() as u64) << 32) ^ self.perturbation;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        ((z as u128 * self.queues.len() as u128) >> 64) as usize
    }

    /// Drop packets from the head of the queue holding the most bytes (the lowest index among
    /// equals): at least one, then more until half its bytes are gone or `drop_batch` were
    /// dropped (one scan of the queues per batch).
    fn drop_from_fattest(&mut self, drops: &mut Drops) {
        let mut fat = 0;
        for (i, f) in self.queues.iter().enumerate() {
            if f.q.bytes() > self.queues[fat].q.bytes() {
                fat = i;
            }
        }
        let half = self.queues[fat].q.bytes() / 2;
        let (mut n, mut gone) = (0, 0u64);
        while let Some(p) = self.queues[fat].q.pop() {
            self.packets -= 1;
            self.bytes -= p.pkt.bytes as u64;
            gone += p.pkt.bytes as u64;
            n += 1;
            drops.push((p.pkt, Cause::Overflow));
            if n >= self.drop_batch || gone >= half {
                break;
            }
        }
    }
}

impl Discipline for FqCodel {
    fn enqueue(&mut self, q: Queued, _now: Ns, drops: &mut Drops) {
        let i = self.bucket(&q.pkt);
        let f = &mut self.queues[i];
        f.q.push(q);
        self.packets += 1;
        self.bytes += q.pkt.bytes as u64;
        if f.list == NONE {
            f.list = NEW;
            f.deficit = self.quantum;
            self.new_flows.push_back(i as u32);
        }
        while self.packets > self.limit.packets || self.bytes > self.limit.bytes {
            self.drop_from_fattest(drops);
        }
    }

    fn dequeue(&mut self, now: Ns, drops: &mut Drops) -> Option<Queued> {
        loop {
            let (i, from_new) = match (self.new_flows.front(), self.old_flows.front()) {
                (Some(&i), _) => (i as usize, true),
                (None, Some(&i)) => (i as usize, false),
                (None, None) => return None,
            };
            let f = &mut self.queues[i];
            if f.deficit <= 0 {
                // Its quantum is spent: a new one, and to the back of the old list.
                f.deficit += self.quantum;
                if from_new {
                    self.new_flows.pop_front();
                } else {
                    self.old_flows.pop_front();
                }
                f.list = OLD;
                self.old_flows.push_back(i as u32);
                continue;
            }
            let (len0, bytes0) = (f.q.len(), f.q.bytes());
            let others = self.bytes - bytes0;
            let r = f
                .vars
                .dequeue(&self.c, now, &mut f.q, others, drops, &mut self.marks);
            self.packets -= len0 - f.q.len();
            self.bytes -= bytes0 - f.q.bytes();
            match r {
                Some(p) => {
                    f.deficit -= p.pkt.bytes as i64;
                    return Some(p);
                }
                None => {
                    if from_new {
                        self.new_flows.pop_front();
                    } else {
                        self.old_flows.pop_front();
                    }
                    if from_new && !self.old_flows.is_empty() {
                        f.list = OLD;
                        self.old_flows.push_back(i as u32);
                    } else {
                        f.list = NONE;
                    }
                }
            }
        }
    }

    fn packets(&self) -> u64 {
        self.packets
    }

    fn bytes(&self) -> u64 {
        self.bytes
    }

    fn for_each(&self, f: &mut dyn FnMut(&Queued)) {
        for q in &self.queues {
            q.q.iter().for_each(&mut *f);
        }
    }

    fn marks(&self) -> u64 {
        self.marks
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{ctx, ect, pkt, MS};
    use super::*;

    fn fq_ecn(limit: u64, quantum: u32, ecn: bool) -> FqCodel {
        FqCodel::new(
            &FqCodelParams {
                target_s: 0.005,
                interval_s: 0.1,
                flows: 1024,
                quantum_bytes: quantum,
                ecn,
                drop_batch: 64,
            },
            ctx(limit, 1e8),
        )
        .unwrap()
    }

    fn fq(limit: u64, quantum: u32) -> FqCodel {
        fq_ecn(limit, quantum, false)
    }

    /// Two flows, one ECN-capable, each keeping a standing queue whose packets waited 20 ms,
    /// one packet sent per millisecond for a second: (marks, drops) of flow 1 (ECT) and flow 2.
    fn standing_pair(ecn: bool) -> ((u64, u64), (u64, u64)) {
        let mut s = fq_ecn(10_000, 1514, ecn);
        let (mut d, mut seq) = (Vec::new(), 0);
        let (mut one, mut two) = ((0, 0), (0, 0));
        for k in 0..1000u64 {
            let t = 1000 * MS + k * MS;
            for flow in [1u32, 2] {
                while s.queues[s.bucket(&pkt(flow, 0, 1, 0).pkt)].q.len() < 10 {
                    let p = pkt(flow, seq, 1000, t.saturating_sub(20 * MS));
                    s.enqueue(if flow == 1 { ect(p) } else { p }, t, &mut d);
                    seq += 1;
                }
            }
            d.clear();
            if let Some(p) = s.dequeue(t, &mut d) {
                let c = if p.pkt.flow == 1 { &mut one } else { &mut two };
                c.0 += p.pkt.tag.ce() as u64;
            }
            for (p, _) in d.iter() {
                let c = if p.flow == 1 { &mut one } else { &mut two };
                c.1 += 1;
            }
        }
        assert_eq!(s.marks(), one.0 + two.0);
        (one, two)
    }

    #[test]
    fn with_ecn_each_flow_queue_marks_ect_packets_and_drops_not_ect_ones() {
        let (one, two) = standing_pair(true);
        assert!(one.0 > 5 && one.1 == 0, "ECT flow: {one:?}");
        assert!(two.0 == 0 && two.1 > 5, "Not-ECT flow: {two:?}");
        let (one, two) = standing_pair(false);
        assert!(one.0 == 0 && one.1 > 5, "ECN off, ECT flow: {one:?}");
        assert!(two.0 == 0 && two.1 > 5, "{two:?}");
    }

    fn flows_of(out: &[Queued]) -> Vec<u32> {
        out.iter().map(|q| q.pkt.flow).collect()
    }

    #[test]
    fn deficit_round_robin_gives_each_backlogged_flow_a_quantum_of_bytes_per_round() {
        // Flow 1 sends 1500-byte packets, flow 2 500-byte ones, quantum 1500: each round serves
        // one packet of flow 1 and three of flow 2, so both get the same bytes.
        let mut s = fq(10_000, 1500);
        let mut d = Vec::new();
        assert_ne!(
            s.bucket(&pkt(1, 0, 1, 0).pkt),
            s.bucket(&pkt(2, 0, 1, 0).pkt)
        );
        for k in 0..40 {
            s.enqueue(pkt(1, k, 1500, 0), 0, &mut d);
        }
        for k in 0..120 {
            s.enqueue(pkt(2, k, 500, 0), 0, &mut d);
        }
        // Sojourn below target: CoDel stays out of the way.
        let out: Vec<Queued> = (0..40).map(|_| s.dequeue(1, &mut d).unwrap()).collect();
        assert!(d.is_empty());
        assert_eq!(
            flows_of(&out[..12]),
            [1, 2, 2, 2, 1, 2, 2, 2, 1, 2, 2, 2],
            "one 1500-byte packet, then three 500-byte ones, per round"
        );
        let bytes = |f: u32| -> u64 {
            out.iter()
                .filter(|q| q.pkt.flow == f)
                .map(|q| q.pkt.bytes as u64)
                .sum()
        };
        assert_eq!(bytes(1), bytes(2));
    }

    #[test]
    fn a_newly_active_flow_is_served_before_the_backlogged_ones() {
        let mut s = fq(10_000, 1514);
        let mut d = Vec::new();
        for k in 0..20 {
            s.enqueue(pkt(1, k, 1000, 0), 0, &mut d);
        }
        for _ in 0..3 {
            s.dequeue(1, &mut d).unwrap(); // flow 1 spends its first quantum: now on the old list
        }
        s.enqueue(pkt(2, 0, 100, 2), 2, &mut d);
        assert_eq!(s.dequeue(3, &mut d).unwrap().pkt.flow, 2);
        assert_eq!(s.dequeue(4, &mut d).unwrap().pkt.flow, 1);
    }

    #[test]
    fn an_emptied_new_flow_moves_to_the_old_list_only_when_that_list_is_not_empty() {
        let mut s = fq(10_000, 1514);
        let mut d = Vec::new();
        // Alone: flow 2's queue empties while it is new and the old list is empty -> removed.
        s.enqueue(pkt(2, 0, 100, 0), 0, &mut d);
        s.dequeue(0, &mut d).unwrap();
        assert!(s.dequeue(0, &mut d).is_none());
        let b2 = s.bucket(&pkt(2, 0, 1, 0).pkt);
        assert_eq!(s.queues[b2].list, NONE);
        // With flow 1 on the old list: flow 2 empties while new -> to the old list's tail.
        for k in 0..10 {
            s.enqueue(pkt(1, k, 1000, 0), 0, &mut d);
        }
        for _ in 0..3 {
            s.dequeue(0, &mut d).unwrap();
        }
        s.enqueue(pkt(2, 1, 100, 0), 0, &mut d);
        assert_eq!(s.dequeue(0, &mut d).unwrap().pkt.flow, 2);
        assert_eq!(s.dequeue(0, &mut d).unwrap().pkt.flow, 1);
        assert_eq!(s.queues[b2].list, OLD);
    }

    fn fq_batch(limit: u64, batch: u32) -> FqCodel {
        let mut s = fq(limit, 1514);
        s.drop_batch = batch;
        s
    }

    /// Limit 10 packets. Flow 1 holds 6 packets of 100 bytes, flow 2 holds 3 of 1000 bytes:
    /// flow 2 is the fattest in bytes though it has fewer packets. A 10th packet (flow 3) fits;
    /// the 11th (flow 3 again) overflows. Returns what was dropped.
    fn overflow_a_fat_queue(s: &mut FqCodel) -> Drops {
        let mut d = Vec::new();
        for k in 0..6 {
            s.enqueue(pkt(1, k, 100, 0), 0, &mut d);
        }
        for k in 0..3 {
            s.enqueue(pkt(2, k, 1000, 0), 0, &mut d);
        }
        s.enqueue(pkt(3, 0, 100, 0), 0, &mut d);
        assert!(d.is_empty());
        s.enqueue(pkt(3, 1, 100, 0), 0, &mut d);
        d
    }

    #[test]
    fn overflow_drops_the_head_of_the_queue_with_the_most_bytes() {
        // The 11th packet drops flow 2's head (its seq 0), not the arriving packet; one packet
        // with a batch of one (RFC 8290's reading).
        let mut s = fq_batch(10, 1);
        let d = overflow_a_fat_queue(&mut s);
        assert_eq!(d.len(), 1);
        assert_eq!((d[0].0.flow, d[0].0.seq, d[0].1), (2, 0, Cause::Overflow));
        assert_eq!(s.packets(), 10);
        assert_eq!(s.bytes(), 6 * 100 + 2 * 1000 + 2 * 100);
    }

    #[test]
    fn an_overflow_drops_half_the_fattest_queues_bytes_from_its_head() {
        // As above with the default batch (Linux's and ns-3's 64): flow 2's 3000 bytes lose
        // their first two packets (2000 bytes, the first count at or past half), not a third.
        let mut s = fq(10, 1514);
        let d = overflow_a_fat_queue(&mut s);
        let got: Vec<(u32, u32)> = d.iter().map(|x| (x.0.flow, x.0.seq)).collect();
        assert_eq!(got, [(2, 0), (2, 1)]);
        assert!(d.iter().all(|x| x.1 == Cause::Overflow));
        assert_eq!((s.packets(), s.bytes()), (9, 6 * 100 + 1000 + 2 * 100));
    }

    #[test]
    fn an_overflow_drops_at_most_a_batch() {
        // One flow of 200 packets over a limit of 200: half its bytes would be 100 packets;
        // the batch stops at drop_batch.
        for (batch, want) in [(64, 64), (8, 8), (1, 1)] {
            let mut s = fq_batch(200, batch);
            let mut d = Vec::new();
            for k in 0..201 {
                s.enqueue(pkt(1, k, 1000, 0), 0, &mut d);
            }
            assert_eq!(d.len(), want, "batch {batch}");
            assert_eq!(s.packets(), 201 - want as u64);
            assert_eq!(d.last().unwrap().0.seq, want as u32 - 1, "from the head");
        }
    }

    #[test]
    fn a_flow_queue_spaces_its_drops_by_rfc_8289s_control_law() {
        // One flow keeps a standing queue whose packets waited 20 ms; one dequeue per ms. Drops:
        // an interval after the sojourn went above target, then interval/sqrt(count) after the
        // last deadline: gaps of 100 ms, 70.7 ms, 57.7 ms (each rounded up to the next dequeue).
        // Linux and ns-3 3.37 compute 1/sqrt(count) with one Newton step per count from 1, which
        // gives 1/2 at count 2: their third drop comes 50 ms after the second
        // (bench/ns3/fq_replay.py shows ns-3's FqCoDelQueueDisc doing so).
        let mut s = fq(10_000, 1514);
        let mut d = Vec::new();
        let (t0, mut seq, mut drops) = (1000 * MS, 0, Vec::new());
        for k in 0..400u64 {
            let t = t0 + k * MS;
            while s.packets() < 10 {
                let slot = t + s.packets() * MS;
                s.enqueue(pkt(1, seq, 1000, slot.saturating_sub(20 * MS)), t, &mut d);
                seq += 1;
            }
            d.clear();
            s.dequeue(t, &mut d).unwrap();
            drops.extend(d.iter().map(|_| (t - t0) / MS));
        }
        assert_eq!(
            drops[..4],
            [100, 200, 271, 329],
            "drops at (ms after t0): {drops:?}"
        );
    }

    #[test]
    fn each_flow_queue_runs_its_own_codel() {
        // Flow 1 keeps a standing queue (packets 30 ms old when served); flow 2 sends one
        // fresh packet per millisecond. Only flow 1 is ever dropped.
        let mut s = fq(10_000, 1514);
        let mut d = Vec::new();
        let mut seq = 0;
        for t in (0..1000).map(|k| k * MS) {
            while s.queues[s.bucket(&pkt(1, 0, 1, 0).pkt)].q.len() < 40 {
                s.enqueue(pkt(1, seq, 1000, t.saturating_sub(30 * MS)), t, &mut d);
                seq += 1;
            }
            s.enqueue(pkt(2, t as u32, 200, t), t, &mut d);
            s.dequeue(t, &mut d);
            s.dequeue(t, &mut d);
        }
        assert!(d.len() > 5, "flow 1 was dropped {} times", d.len());
        assert!(d.iter().all(|x| x.0.flow == 1 && x.1 == Cause::Aqm));
    }
}
