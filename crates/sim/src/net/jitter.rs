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
//! and SOBAS probes are not delayed. All draws come from one stream of the run's seed, in event
//! order, so a run stays deterministic; with every class at 0 there is no jitter state at all
//! and results are those of an engine without it.
use crate::net::packet::{Kind, Packet};
use crate::rng::Rng;
use crate::time::Ns;

/// The stream of the jitter draws (see `rng.rs`: never renumber).
const STREAM_JITTER: u64 = 3;

pub(crate) struct HostJitter {
    rng: Rng,
    /// Largest delay of each class, ns (0: none).
    max_ns: Vec<Ns>,
    /// Per flow, the latest time a packet reached its stack: data at the receiver, ACKs at the
    /// sender.
    last: Vec<[Ns; 2]>,
}

impl HostJitter {
    /// The jitter state of a run whose classes have these largest delays (seconds), or None
    /// when none has any.
    pub(crate) fn new(seed: u64, max_s: impl Iterator<Item = f64>) -> Option<HostJitter> {
        let max_ns: Vec<Ns> = max_s.map(|s| (s * 1e9).round() as Ns).collect();
        max_ns.iter().any(|&m| m > 0).then(|| HostJitter {
            rng: Rng::stream(seed, STREAM_JITTER),
            max_ns,
            last: Vec::new(),
        })
    }

    /// Is `p` a packet the jitter applies to (a TCP data segment or ACK)?
    #[inline]
    pub(crate) fn applies(p: &Packet) -> bool {
        matches!(p.kind, Kind::Data | Kind::Ack)
    }

    /// When `p` (see [`HostJitter::applies`]) of a flow of class `class`, at its host at `at`,
    /// reaches the host's TCP.
    #[inline]
    pub(crate) fn deliver(&mut self, p: &Packet, class: u32, at: Ns) -> Ns {
        let m = self.max_ns[class as usize];
        if m == 0 {
            return at;
        }
        let (f, dir) = (p.flow as usize, p.kind.dir());
        if f >= self.last.len() {
            self.last.resize(f + 1, [0; 2]);
        }
        let d = ((self.rng.next_f64() * (m + 1) as f64) as Ns).min(m);
        let t = (at + d).max(self.last[f][dir]);
        self.last[f][dir] = t;
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pkt(flow: u32, kind: Kind) -> Packet {
        Packet {
            flow,
            seq: 0,
            sacked: u32::MAX,
            bytes: 1500,
            hop: 0,
            kind,
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
                let t = j.deliver(&pkt(f, kind), 0, at);
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
        // Class 1 has none; UDP and probes are never delayed.
        assert_eq!(j.deliver(&pkt(2, Kind::Data), 1, 5), 5);
        assert!(HostJitter::applies(&pkt(0, Kind::Ack)));
        assert!(!HostJitter::applies(&pkt(0, Kind::Udp)));
        assert!(!HostJitter::applies(&pkt(0, Kind::Probe)));
        assert!(!HostJitter::applies(&pkt(0, Kind::Echo)));
    }
}
