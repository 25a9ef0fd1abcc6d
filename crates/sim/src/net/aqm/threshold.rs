//! A marking threshold K, as a DCTCP-style switch port marks (RFC 8257 §3.1; Alizadeh et al.,
//! "Data Center TCP", SIGCOMM 2010): an arriving packet finds more than K packets (`k_packets`)
//! or K bytes (`k_bytes`) waiting: an ECN-capable one is marked CE and kept, a Not-ECT one is
//! dropped (or kept unmarked with `drop_not_ect: false`). Below K nothing happens. The
//! instantaneous queue is compared, no average (as RED with min_th = max_th = K and weight 1,
//! ns-3's DCTCP example, or Linux's fq_codel `ce_threshold` on sojourn time instead of length).
//! A packet that does not fit the hard limit behind K is an overflow drop, marked or not.
use super::{params, Cause, Context, Discipline, Drops, Fifo, Limit, Queued, Registration};
use crate::time::Ns;
use serde::Deserialize;

pub const REGISTRATION: Registration = Registration {
    name: "threshold",
    default_limit_packets: 1000,
    make,
};

fn d_true() -> bool {
    true
}

/// The threshold's parameters: K in packets or in bytes (exactly one).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ThresholdParams {
    #[serde(default)]
    pub k_packets: Option<f64>,
    #[serde(default)]
    pub k_bytes: Option<f64>,
    /// Drop a Not-ECT packet that arrives above K (true) or keep it unmarked (false).
    #[serde(default = "d_true")]
    pub drop_not_ect: bool,
}

pub struct Threshold {
    q: Fifo,
    limit: Limit,
    /// K, packets (u64::MAX when K is in bytes) and bytes (u64::MAX when in packets).
    k_packets: u64,
    k_bytes: u64,
    drop_not_ect: bool,
    marks: u64,
}

fn make(v: &serde_json::Value, ctx: Context) -> Result<Box<dyn Discipline>, String> {
    let p: ThresholdParams = params(v)?;
    Ok(Box::new(Threshold::new(&p, &ctx)?))
}

fn whole(field: &str, x: f64) -> Result<u64, String> {
    if x.is_finite() && x >= 0.0 && x.fract() == 0.0 && x < 1e15 {
        Ok(x as u64)
    } else {
        Err(format!("{field}: must be a whole number >= 0, got {x}"))
    }
}

impl Threshold {
    pub fn new(p: &ThresholdParams, ctx: &Context) -> Result<Threshold, String> {
        let (k_packets, k_bytes) = match (p.k_packets, p.k_bytes) {
            (Some(k), None) => (whole("k_packets", k)?, u64::MAX),
            (None, Some(k)) => (u64::MAX, whole("k_bytes", k)?),
            // The DCTCP paper's K for 10 Gb/s ports (65 packets) when none is given.
            (None, None) => (65, u64::MAX),
            (Some(_), Some(_)) => {
                return Err("k_packets: give K in packets or in bytes (k_bytes), not both".into())
            }
        };
        Ok(Threshold {
            q: Fifo::default(),
            limit: ctx.limit,
            k_packets,
            k_bytes,
            drop_not_ect: p.drop_not_ect,
            marks: 0,
        })
    }

    /// Is the queue an arrival finds above K?
    #[inline]
    fn above(&self) -> bool {
        self.q.len() > self.k_packets || self.q.bytes() > self.k_bytes
    }
}

impl Discipline for Threshold {
    fn enqueue(&mut self, mut q: Queued, _now: Ns, drops: &mut Drops) {
        let mut marked = false;
        if self.above() {
            marked = super::mark(true, &mut q);
            if !marked && self.drop_not_ect {
                drops.push((q.pkt, Cause::Aqm));
                return;
            }
        }
        if self
            .limit
            .fits(self.q.len(), self.q.bytes(), q.pkt.bytes as u32)
        {
            self.marks += marked as u64;
            self.q.push(q);
        } else {
            drops.push((q.pkt, Cause::Overflow));
        }
    }

    fn dequeue(&mut self, _now: Ns, _drops: &mut Drops) -> Option<Queued> {
        self.q.pop()
    }

    fn packets(&self) -> u64 {
        self.q.len()
    }

    fn bytes(&self) -> u64 {
        self.q.bytes()
    }

    fn for_each(&self, f: &mut dyn FnMut(&Queued)) {
        self.q.iter().for_each(f)
    }

    fn marks(&self) -> u64 {
        self.marks
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{ctx, ect, pkt};
    use super::*;

    fn thr(json: serde_json::Value, limit: u64) -> Threshold {
        Threshold::new(&params(&json).unwrap(), &ctx(limit, 1e8)).unwrap()
    }

    /// Enqueue `n` packets back to back (nothing leaves); which were marked, and the drops.
    fn fill(t: &mut Threshold, n: u32, ect_pkts: bool) -> (Vec<bool>, Drops) {
        let mut d = Vec::new();
        for k in 0..n {
            let p = pkt(0, k, 1000, 0);
            t.enqueue(if ect_pkts { ect(p) } else { p }, 0, &mut d);
        }
        (t.q.iter().map(|q| q.pkt.tag.ce()).collect(), d)
    }

    #[test]
    fn an_ect_packet_is_marked_exactly_when_it_finds_more_than_k_waiting() {
        let mut t = thr(serde_json::json!({"k_packets": 3}), 1000);
        let (ce, d) = fill(&mut t, 8, true);
        // Arrivals 0..=3 find 0..=3 waiting (not above K = 3); 4..8 find 4..8.
        assert_eq!(ce, [false, false, false, false, true, true, true, true]);
        assert!(d.is_empty());
        assert_eq!(t.marks(), 4);
        // Once the queue drains to K, arrivals are unmarked again.
        let mut d = Vec::new();
        for _ in 0..5 {
            t.dequeue(0, &mut d);
        }
        t.enqueue(ect(pkt(0, 9, 1000, 0)), 0, &mut d);
        assert!(!t.q.iter().last().unwrap().pkt.tag.ce());
    }

    #[test]
    fn k_in_bytes_compares_the_waiting_bytes() {
        let mut t = thr(serde_json::json!({"k_bytes": 2500}), 1000);
        let (ce, _) = fill(&mut t, 5, true);
        // Waiting bytes seen: 0, 1000, 2000, 3000, 4000: above 2500 from the fourth arrival.
        assert_eq!(ce, [false, false, false, true, true]);
    }

    #[test]
    fn a_not_ect_packet_above_k_is_dropped_unless_configured_to_pass() {
        let mut t = thr(serde_json::json!({"k_packets": 2}), 1000);
        let (ce, d) = fill(&mut t, 6, false);
        assert_eq!(ce, [false, false, false]);
        assert_eq!(d.len(), 3);
        assert!(d.iter().all(|x| x.1 == Cause::Aqm) && t.marks() == 0);
        let mut t = thr(
            serde_json::json!({"k_packets": 2, "drop_not_ect": false}),
            1000,
        );
        let (ce, d) = fill(&mut t, 6, false);
        assert_eq!((ce.len(), d.len(), t.marks()), (6, 0, 0));
    }

    #[test]
    fn the_hard_limit_behind_k_overflows_marked_packets_too() {
        let mut t = thr(serde_json::json!({"k_packets": 2}), 4);
        let (ce, d) = fill(&mut t, 7, true);
        assert_eq!(ce, [false, false, false, true]);
        assert_eq!(d.len(), 3);
        assert!(d.iter().all(|x| x.1 == Cause::Overflow));
        assert_eq!(t.marks(), 1);
    }

    #[test]
    fn k_must_be_given_once_and_whole() {
        let c = ctx(100, 1e8);
        for bad in [
            serde_json::json!({"k_packets": 3, "k_bytes": 3000}),
            serde_json::json!({"k_packets": -1}),
            serde_json::json!({"k_bytes": 1.5}),
        ] {
            assert!(Threshold::new(&params(&bad).unwrap(), &c).is_err(), "{bad}");
        }
    }
}
