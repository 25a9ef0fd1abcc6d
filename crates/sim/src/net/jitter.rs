//! Host jitter: each TCP packet reaches its host's stack a small random time after it reaches
//! the host. Real receivers coalesce interrupts, poll in batches and get scheduled; ns-2 users add
//! a random per-packet overhead at the senders for the same reason (Floyd and Jacobson, "On
//! traffic phase effects in packet-switched gateways", 1992): without it, flows with identical
//! RTTs through a drop-tail queue lock their phases, and which flow loses a packet stops being a
//! matter of chance (40 flows at 100 ms through a one-packet buffer reached 97 % utilization
//! where RTTs spread by ±10 % gave 12 %).
//!
//! A data segment is delayed at the receiver, an ACK at the sender, by a uniform draw on
//! `[0, host_jitter_s]` of the flow's class; a packet never overtakes an earlier one of its flow
//! in the same direction (a host hands packets to TCP in the order they arrived). UDP datagrams
//! and SOBAS probes are not delayed. All draws come from one generator seeded by the run's seed, in event
//! order, so a run stays deterministic; with every class at 0 there is no jitter state at all
//! and results are those of an engine without it.
use crate::net::packet::{Kind, Packet};
use crate::rng::Rng;
use crate::time::Ns;

/// The stream of the jitter draws (see `rng.rs`: never renumber).
const STREAM_JITTER: u64 = 3;

pub(crate) struct HostJitter {
    /// wyrand's state (Wang Yi's generator: one add and one 64x64->128 multiply a draw), seeded
    /// from the run's jitter stream. One draw for every TCP packet a host takes in; drawn from
    /// the streams' own generator (xoshiro256++, four words of state) the jitter cost 1.7 % more
    /// of a FIFO run's instructions (S1: 2329 against 2291 per bottleneck packet).
    state: u64,
    /// Largest delay of each class, ns (0: none).
    max_ns: Vec<Ns>,
    /// Per flow: how many delays its class can draw (the largest, in ns, plus one: 1 is no
    /// jitter), and the latest time a packet reached its stack in each direction (data at the
    /// receiver, ACKs at the sender). One entry, so a packet reads one place; filled as flows
    /// appear (short flows add theirs during the run).
    flows: Vec<[Ns; 3]>,
}

impl HostJitter {
    /// The jitter state of a run whose classes have these largest delays (seconds), or None
    /// when none has any.
    pub(crate) fn new(seed: u64, max_s: impl Iterator<Item = f64>) -> Option<HostJitter> {
        let max_ns: Vec<Ns> = max_s.map(|s| (s * 1e9).round() as Ns).collect();
        max_ns.iter().any(|&m| m > 0).then(|| HostJitter {
            state: Rng::stream(seed, STREAM_JITTER).next_u64(),
            max_ns,
            flows: Vec::new(),
        })
    }

    /// Is `p` a packet the jitter applies to (a TCP data segment or ACK)?
    #[inline]
    pub(crate) fn applies(p: &Packet) -> bool {
        p.tag.is(Kind::Data) || p.tag.is(Kind::Ack)
    }

    #[inline(always)]
    fn draw(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0xa076_1d64_78bd_642f);
        let t = self.state as u128 * (self.state ^ 0xe703_7ed1_a0b4_28db) as u128;
        (t >> 64) as u64 ^ t as u64
    }

    /// When `p` (see [`HostJitter::applies`]), at its host at `at`, reaches the host's TCP;
    /// `class_of(f)` is flow f's class (asked once per flow).
    #[inline]
    pub(crate) fn deliver(&mut self, p: &Packet, at: Ns, class_of: impl Fn(usize) -> u32) -> Ns {
        let f = p.flow as usize;
        if f >= self.flows.len() {
            self.grow(f, class_of);
        }
        let n = self.flows[f][0];
        if n == 1 {
            return at;
        }
        // Uniform on [0, n - 1]: the high 64 bits of a 64-bit draw times n (no float
        // conversions; n fits in 64 bits, the scenario bounds the jitter at 1 s).
        let d = ((self.draw() as u128 * n as u128) >> 64) as Ns;
        let slot = &mut self.flows[f][1 + p.tag.dir()];
        let t = (at + d).max(*slot);
        *slot = t;
        t
    }

    #[cold]
    fn grow(&mut self, f: usize, class_of: impl Fn(usize) -> u32) {
        for g in self.flows.len()..=f {
            self.flows
                .push([self.max_ns[class_of(g) as usize] + 1, 0, 0]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::Tag;

    fn pkt(flow: u32, kind: Kind) -> Packet {
        Packet {
            flow,
            seq: 0,
            sacked: u32::MAX,
            bytes: 1500,
            hop: 0,
            tag: Tag::new(kind),
        }
    }

    #[test]
    fn no_class_with_jitter_means_no_state() {
        assert!(HostJitter::new(1, [0.0, 0.0].into_iter()).is_none());
        assert!(HostJitter::new(1, [0.0, 1e-6].into_iter()).is_some());
    }

    #[test]
    fn delays_stay_within_the_bound_and_keep_each_flows_order() {
        let mut j = HostJitter::new(7, [50e-6, 0.0].into_iter()).unwrap();
        let mut prev = [[0u64; 2]; 3];
        let (mut lo, mut hi, mut sum, mut n) = (u64::MAX, 0u64, 0.0, 0.0);
        for i in 0..20_000u64 {
            let at = 1_000_000 + i * 7_000; // a packet every 7 us, closer than the jitter
            for (f, kind) in [(0u32, Kind::Data), (0, Kind::Ack), (1, Kind::Data)] {
                let t = j.deliver(&pkt(f, kind), at, |g| (g == 2) as u32);
                assert!(t >= at && t <= at + 50_000, "{t} outside [{at}, +50 us]");
                assert!(t >= prev[f as usize][kind.dir()], "flow {f} reordered");
                prev[f as usize][kind.dir()] = t;
                if f == 1 {
                    lo = lo.min(t - at);
                    hi = hi.max(t - at);
                    sum += (t - at) as f64;
                    n += 1.0;
                }
            }
        }
        // Spread over the whole interval (order-keeping pushes the mean above 25 us).
        assert!(lo < 1_000 && hi > 49_000, "range {lo}..{hi}");
        assert!(sum / n > 25_000.0 && sum / n < 45_000.0, "mean {}", sum / n);
        // Flow 2 is of class 1, which has none; UDP and probes are never delayed.
        assert_eq!(j.deliver(&pkt(2, Kind::Data), 5, |g| (g == 2) as u32), 5);
        assert!(HostJitter::applies(&pkt(0, Kind::Ack)));
        assert!(!HostJitter::applies(&pkt(0, Kind::Udp)));
        assert!(!HostJitter::applies(&pkt(0, Kind::Probe)));
        assert!(!HostJitter::applies(&pkt(0, Kind::Echo)));
    }
}
