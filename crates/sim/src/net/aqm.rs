//! Queue disciplines that hold the packets themselves and decide when the link asks for the
//! next one: RED, CoDel, PIE and FQ-CoDel, one per file behind [`Discipline`], each with one
//! line in [`REGISTRY`].
//!
//! The drop-tail FIFO (`queue.rs`) does not live here: a FIFO link knows each packet's
//! transmission start when it arrives and needs no event when a packet leaves the queue. A link
//! with a discipline instead keeps its waiting packets here and the engine asks for the next
//! one each time the link frees up (`ports.rs`), so a discipline may decide at dequeue (CoDel)
//! as well as at enqueue (RED, PIE). Every discipline keeps a hard limit in packets or bytes
//! (the queue spec's `limit_packets` / `limit_bytes`, else its registration's default): a packet
//! that does not fit is an *overflow* drop, told apart from the discipline's own *AQM* drops.
//!
//! Limits count the packets waiting, not the one in transmission, as for the FIFO.
pub mod codel;
pub mod fq_codel;
pub mod pie;
pub mod red;
pub mod threshold;

use super::packet::Packet;
use crate::rng::Rng;
use crate::time::Ns;
use std::collections::VecDeque;

/// A waiting packet and the time it entered the queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Queued {
    pub pkt: Packet,
    pub enq: Ns,
}

/// Why a discipline dropped a packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cause {
    /// The hard limit (packets or bytes) was reached.
    Overflow,
    /// The discipline's own decision (early/random drop, CoDel's drop at dequeue).
    Aqm,
}

/// Packets a discipline dropped during one call, for the engine to account (their owners are
/// told, the link counts them). A scratch list owned by the port, reused: nothing allocates
/// per packet once it has grown.
pub type Drops = Vec<(Packet, Cause)>;

/// The hard limit of a discipline: waiting packets and waiting bytes (u64::MAX = none).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limit {
    pub packets: u64,
    pub bytes: u64,
}

impl Limit {
    /// Does one more packet of `bytes` fit beside `packets` / `queued_bytes` already waiting?
    #[inline]
    pub fn fits(&self, packets: u64, queued_bytes: u64, bytes: u32) -> bool {
        packets < self.packets && queued_bytes + bytes as u64 <= self.bytes
    }
}

/// What a discipline is built from besides its own parameters.
#[derive(Debug, Clone)]
pub struct Context {
    pub limit: Limit,
    /// The link's rate, bit/s (RED's idle-time decay counts packet times at this rate).
    pub rate_bps: f64,
    /// The largest packet of the scenario, bytes: the MTU of CoDel's "less than a packet
    /// queued" test, PIE's 2 × MEAN_PKTSIZE safeguard and RED's typical packet.
    pub mtu_bytes: u32,
    /// The discipline's own random stream (RED's and PIE's draws, FQ-CoDel's hash perturbation).
    pub rng: Rng,
}

/// A queue discipline: it holds the waiting packets of one link.
pub trait Discipline: Send {
    /// A packet arrives at `now`. The discipline keeps it, or drops it (or, FQ-CoDel, another
    /// packet) into `drops`.
    fn enqueue(&mut self, q: Queued, now: Ns, drops: &mut Drops);
    /// The link is free at `now`: the packet to transmit, if any (after the drops the
    /// discipline makes at dequeue, into `drops`).
    fn dequeue(&mut self, now: Ns, drops: &mut Drops) -> Option<Queued>;
    /// Packets waiting.
    fn packets(&self) -> u64;
    /// Bytes waiting.
    fn bytes(&self) -> u64;
    /// The packets still waiting (for the conservation account at the end of a run).
    fn for_each(&self, f: &mut dyn FnMut(&Queued));
    /// Packets marked CE so far (whole run) where the discipline would otherwise have dropped
    /// them; 0 for a discipline whose `ecn` setting is off.
    fn marks(&self) -> u64 {
        0
    }
}

/// With ECN on, mark an ECN-capable packet CE instead of dropping it (RFC 3168 §5): true if
/// it was marked (it is then kept); false for a Not-ECT packet, which must be dropped. A packet
/// already CE stays CE and counts as marked.
#[inline]
pub fn mark(ecn: bool, q: &mut Queued) -> bool {
    if ecn && q.pkt.tag.ect() {
        q.pkt.tag.set_ce();
        true
    } else {
        false
    }
}

/// How a registered discipline is built: from its parameters (the spec's fields besides `name`)
/// as JSON; an error is a one-line reason that starts with the field's name.
pub type Make = fn(&serde_json::Value, Context) -> Result<Box<dyn Discipline>, String>;

/// One registered discipline.
pub struct Registration {
    pub name: &'static str,
    /// The hard limit in packets when the queue spec gives no limit.
    pub default_limit_packets: u64,
    pub make: Make,
}

/// Every discipline, by name (the drop-tail FIFO is the absence of one).
pub const REGISTRY: &[Registration] = &[
    red::REGISTRATION,
    codel::REGISTRATION,
    pie::REGISTRATION,
    fq_codel::REGISTRATION,
    threshold::REGISTRATION,
];

pub fn lookup(name: &str) -> Option<&'static Registration> {
    REGISTRY.iter().find(|r| r.name == name)
}

/// The registered names, for error messages.
pub fn names() -> Vec<&'static str> {
    REGISTRY.iter().map(|r| r.name).collect()
}

/// Parse a discipline's parameters into its own type (serde, unknown fields refused).
pub(crate) fn params<T: serde::de::DeserializeOwned>(v: &serde_json::Value) -> Result<T, String> {
    serde_json::from_value(v.clone()).map_err(|e| e.to_string())
}

/// A time parameter, seconds, that must be positive and finite; returned in nanoseconds.
pub(crate) fn pos_time(field: &str, s: f64) -> Result<Ns, String> {
    if s.is_finite() && s > 0.0 && s <= 1e6 {
        Ok(((s * 1e9).round() as Ns).max(1))
    } else {
        Err(format!(
            "{field}: must be a positive number of seconds (at most 1e6), got {s}"
        ))
    }
}

/// A FIFO of waiting packets with its byte count: the queue of CoDel, PIE and RED, and of
/// each FQ-CoDel flow.
#[derive(Debug, Clone, Default)]
pub struct Fifo {
    q: VecDeque<Queued>,
    bytes: u64,
}

impl Fifo {
    #[inline]
    pub fn len(&self) -> u64 {
        self.q.len() as u64
    }
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.q.is_empty()
    }
    #[inline]
    pub fn bytes(&self) -> u64 {
        self.bytes
    }
    #[inline]
    pub fn push(&mut self, q: Queued) {
        self.bytes += q.pkt.bytes as u64;
        self.q.push_back(q);
    }
    #[inline]
    pub fn pop(&mut self) -> Option<Queued> {
        let q = self.q.pop_front()?;
        self.bytes -= q.pkt.bytes as u64;
        Some(q)
    }
    pub fn iter(&self) -> impl Iterator<Item = &Queued> {
        self.q.iter()
    }
}

#[cfg(test)]
pub(crate) mod test_util {
    use super::*;
    use crate::net::packet::{Kind, Tag};

    /// `pkt`, ECN-capable (ECT(0)).
    pub fn ect(mut q: Queued) -> Queued {
        q.pkt.tag.set_ect0();
        q
    }

    /// A data packet of `bytes` of flow `flow` (seq = `seq`), enqueued at `enq`.
    pub fn pkt(flow: u32, seq: u32, bytes: u16, enq: Ns) -> Queued {
        Queued {
            pkt: Packet {
                flow,
                seq,
                sacked: u32::MAX,
                bytes,
                hop: 0,
                tag: Tag::new(Kind::Data),
            },
            enq,
        }
    }

    pub fn ctx(limit_packets: u64, rate_bps: f64) -> Context {
        Context {
            limit: Limit {
                packets: limit_packets,
                bytes: u64::MAX,
            },
            rate_bps,
            mtu_bytes: 1500,
            rng: Rng::stream(1, 77),
        }
    }

    pub const MS: Ns = 1_000_000;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_registered_discipline_builds_from_empty_parameters_and_refuses_unknown_ones() {
        for r in REGISTRY {
            let c = test_util::ctx(r.default_limit_packets, 1e8);
            assert!(
                (r.make)(&serde_json::json!({}), c.clone()).is_ok(),
                "{}",
                r.name
            );
            let err = (r.make)(&serde_json::json!({"no_such": 1}), c)
                .err()
                .unwrap_or_default();
            assert!(err.contains("no_such"), "{}: {err}", r.name);
        }
        assert!(lookup("codel").is_some() && lookup("fifo").is_none());
    }

    #[test]
    fn limit_counts_packets_and_bytes() {
        let l = Limit {
            packets: 2,
            bytes: 2500,
        };
        assert!(l.fits(1, 1000, 1000));
        assert!(!l.fits(2, 1000, 100)); // packet limit
        assert!(!l.fits(1, 2000, 1000)); // byte limit
    }
}
