//! RED, Random Early Detection (Floyd & Jacobson 1993), with the gentle variant (Floyd 2000)
//! and adaptive RED (Floyd, Gummadi & Shenker 2001). RFC 7567 explains why RED is not a
//! default: its thresholds must be tuned to the traffic.
//!
//! On each arrival the average queue (packets) moves toward the current queue by `wq`:
//! avg ← (1 − wq)·avg + wq·q; after an idle spell it decays as if m packets of the typical size
//! (the scenario's largest) had arrived to an empty queue, avg ← (1 − wq)^m·avg, m = idle time
//! / that packet's transmission time. Then:
//! - avg < min_th: accept (count ← −1);
//! - min_th ≤ avg < max_th: pb = max_p·(avg − min_th)/(max_th − min_th);
//! - gentle, max_th ≤ avg < 2·max_th: pb = max_p + (1 − max_p)·(avg − max_th)/max_th;
//! - beyond (avg ≥ max_th without gentle, ≥ 2·max_th with it): drop;
//!
//! and in the random regions the packet is dropped with pa = pb/(1 − count·pb), count being the
//! packets accepted since the last drop, which spreads drops evenly (count ← 0 on a drop).
//! Adaptive RED moves max_p every `adapt_interval_s` toward keeping avg in the middle of
//! [min_th, max_th]: +min(0.01, max_p/4) above 0.6 of the way, ×0.9 below 0.4 of the way,
//! within [0.01, 0.5]. A packet that does not fit the hard limit is an overflow drop.
//!
//! With `ecn` (RFC 3168 §5, Linux `tc red ... ecn`, ns-3 `RedQueueDisc::UseEcn`) an
//! ECN-capable packet that the random test picks is marked CE and kept instead of dropped;
//! a Not-ECT one is still dropped. Where RED drops every packet (pb = 1) it marks too unless
//! `hard_drop` is set: Linux marks there unless the qdisc has `harddrop`; ns-3 drops there by
//! default (`UseHardDrop` true), so the ns-3 comparison sets `hard_drop`. A marked packet that
//! does not fit the hard limit is still an overflow drop.
use super::{params, Cause, Context, Discipline, Drops, Fifo, Limit, Queued, Registration};
use crate::rng::Rng;
use crate::time::Ns;
use serde::Deserialize;

pub const REGISTRATION: Registration = Registration {
    name: "red",
    default_limit_packets: 1000,
    make,
};

fn d_min_th() -> f64 {
    5.0
}
fn d_max_th() -> f64 {
    15.0
}
fn d_max_p() -> f64 {
    0.1
}
fn d_wq() -> f64 {
    0.002
}
fn d_true() -> bool {
    true
}
fn d_adapt_interval() -> f64 {
    0.5
}

/// RED's parameters; thresholds in packets (defaults: ns-3's 5 and 15, Floyd's max_p 0.1 and
/// wq 0.002, gentle on).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RedParams {
    #[serde(default = "d_min_th")]
    pub min_th: f64,
    #[serde(default = "d_max_th")]
    pub max_th: f64,
    #[serde(default = "d_max_p")]
    pub max_p: f64,
    /// Weight of the current queue in the average.
    #[serde(default = "d_wq")]
    pub wq: f64,
    #[serde(default = "d_true")]
    pub gentle: bool,
    /// Adapt max_p to keep the average between the thresholds (adaptive RED).
    #[serde(default)]
    pub adaptive: bool,
    #[serde(default = "d_adapt_interval")]
    pub adapt_interval_s: f64,
    /// Mark ECN-capable packets CE instead of dropping them (off: Linux's and ns-3's default).
    #[serde(default)]
    pub ecn: bool,
    /// With `ecn`: still drop where pb = 1 (Linux `harddrop`; ns-3 `UseHardDrop`).
    #[serde(default)]
    pub hard_drop: bool,
}

pub struct Red {
    q: Fifo,
    limit: Limit,
    rng: Rng,
    min_th: f64,
    max_th: f64,
    max_p: f64,
    wq: f64,
    gentle: bool,
    adapt: Option<Ns>,
    next_adapt: Ns,
    /// Transmission time of a typical packet, ns (the idle decay's unit), and of a byte.
    s_ns: f64,
    ns_per_byte: f64,
    avg: f64,
    count: i64,
    /// When the link last became idle (queue empty and the last packet sent); None while busy.
    idle_from: Option<Ns>,
    /// The last dequeued packet finishes transmission at this time.
    tx_end: Ns,
    ecn: bool,
    hard_drop: bool,
    marks: u64,
}

fn make(v: &serde_json::Value, ctx: Context) -> Result<Box<dyn Discipline>, String> {
    let p: RedParams = params(v)?;
    Ok(Box::new(Red::new(&p, ctx)?))
}

impl Red {
    pub fn new(p: &RedParams, ctx: Context) -> Result<Red, String> {
        if !(p.min_th.is_finite() && p.min_th >= 0.0) {
            return Err(format!(
                "min_th: must be a finite number >= 0, got {}",
                p.min_th
            ));
        }
        if !(p.max_th.is_finite() && p.max_th > p.min_th) {
            return Err(format!(
                "max_th: must be above min_th ({}), got {}",
                p.min_th, p.max_th
            ));
        }
        if !(p.max_p > 0.0 && p.max_p <= 1.0) {
            return Err(format!("max_p: must be in (0, 1], got {}", p.max_p));
        }
        if !(p.wq > 0.0 && p.wq <= 1.0) {
            return Err(format!("wq: must be in (0, 1], got {}", p.wq));
        }
        let adapt = if p.adaptive {
            Some(super::pos_time("adapt_interval_s", p.adapt_interval_s)?)
        } else {
            None
        };
        Ok(Red {
            q: Fifo::default(),
            limit: ctx.limit,
            rng: ctx.rng,
            min_th: p.min_th,
            max_th: p.max_th,
            max_p: p.max_p,
            wq: p.wq,
            gentle: p.gentle,
            adapt,
            next_adapt: adapt.unwrap_or(0),
            s_ns: (ctx.mtu_bytes as f64 * 8e9 / ctx.rate_bps).max(1.0),
            ns_per_byte: 8e9 / ctx.rate_bps,
            avg: 0.0,
            count: -1,
            idle_from: Some(0),
            tx_end: 0,
            ecn: p.ecn,
            hard_drop: p.hard_drop,
            marks: 0,
        })
    }

    /// The average queue, packets.
    pub fn avg(&self) -> f64 {
        self.avg
    }

    /// The base drop probability pb at average `avg` (1 where RED drops every packet).
    pub fn pb(&self, avg: f64) -> f64 {
        if avg < self.min_th {
            0.0
        } else if avg < self.max_th {
            self.max_p * (avg - self.min_th) / (self.max_th - self.min_th)
        } else if self.gentle && avg < 2.0 * self.max_th {
            self.max_p + (1.0 - self.max_p) * (avg - self.max_th) / self.max_th
        } else {
            1.0
        }
    }

    /// Update the average for an arrival at `now`.
    fn average(&mut self, now: Ns) {
        match self.idle_from {
            Some(from) if now > from => {
                let m = (now - from) as f64 / self.s_ns;
                self.avg *= (1.0 - self.wq).powf(m);
            }
            Some(_) => {}
            None => self.avg = (1.0 - self.wq) * self.avg + self.wq * self.q.len() as f64,
        }
        self.idle_from = None;
    }

    /// Adaptive RED's max_p steps due by `now`.
    fn adapt(&mut self, now: Ns) {
        let Some(iv) = self.adapt else { return };
        let span = self.max_th - self.min_th;
        let (lo, hi) = (self.min_th + 0.4 * span, self.min_th + 0.6 * span);
        while self.next_adapt <= now {
            if self.avg > hi && self.max_p <= 0.5 {
                self.max_p += (self.max_p / 4.0).min(0.01);
            } else if self.avg < lo && self.max_p >= 0.01 {
                self.max_p *= 0.9;
            }
            self.next_adapt += iv;
        }
    }

    /// Floyd & Jacobson's decision for an arrival, given pb.
    fn early_drop(&mut self, pb: f64) -> bool {
        if pb <= 0.0 {
            self.count = -1;
            return false;
        }
        if pb >= 1.0 {
            self.count = 0;
            return true;
        }
        self.count += 1;
        let d = 1.0 - self.count as f64 * pb;
        let pa = if d <= 0.0 { 1.0 } else { (pb / d).min(1.0) };
        if self.rng.next_f64() < pa {
            self.count = 0;
            true
        } else {
            false
        }
    }
}

impl Discipline for Red {
    fn enqueue(&mut self, mut q: Queued, now: Ns, drops: &mut Drops) {
        if self.idle_from.is_none() && self.q.is_empty() && now >= self.tx_end {
            self.idle_from = Some(self.tx_end);
        }
        self.average(now);
        self.adapt(now);
        let pb = self.pb(self.avg);
        let mut marked = false;
        if self.early_drop(pb) {
            marked = !(pb >= 1.0 && self.hard_drop) && super::mark(self.ecn, &mut q);
            if !marked {
                drops.push((q.pkt, Cause::Aqm));
                return;
            }
        }
        if !self
            .limit
            .fits(self.q.len(), self.q.bytes(), q.pkt.bytes as u32)
        {
            drops.push((q.pkt, Cause::Overflow));
        } else {
            self.marks += marked as u64;
            self.q.push(q);
        }
    }

    fn marks(&self) -> u64 {
        self.marks
    }

    fn dequeue(&mut self, now: Ns, _drops: &mut Drops) -> Option<Queued> {
        let p = self.q.pop()?;
        self.tx_end = now + (p.pkt.bytes as f64 * self.ns_per_byte).ceil() as Ns;
        Some(p)
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
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{ctx, ect, pkt};
    use super::*;

    fn red(json: serde_json::Value, limit: u64) -> Red {
        // 12 Mb/s: a 1500-byte packet takes 1 ms.
        Red::new(&params(&json).unwrap(), ctx(limit, 12e6)).unwrap()
    }

    #[test]
    fn the_average_is_an_ewma_of_the_queue_at_arrivals() {
        // The link is busy (a packet in transmission until t = 1 s); the queue holds 10 packets
        // at each arrival: avg_n = 10·(1 − (1 − wq)^n).
        let mut r = red(serde_json::json!({"min_th": 500, "max_th": 1000}), 10_000);
        let mut d = Vec::new();
        r.q.push(pkt(0, 0, 1500, 0));
        r.dequeue(0, &mut d);
        r.tx_end = 1_000_000_000;
        r.idle_from = None;
        for k in 0..10 {
            r.q.push(pkt(0, k, 1500, 0));
        }
        for n in 1..=200u32 {
            r.enqueue(pkt(1, n, 1500, 0), 1000, &mut d);
            r.q.pop(); // back to 10 waiting
            let want = 10.0 * (1.0 - (1.0 - 0.002f64).powi(n as i32));
            assert!(
                (r.avg() - want).abs() < 1e-9,
                "n {n}: {} vs {want}",
                r.avg()
            );
        }
        assert!(d.is_empty());
    }

    #[test]
    fn an_idle_link_decays_the_average_by_the_packets_it_could_have_sent() {
        // avg 8; the link idles from 10 ms to 110 ms: m = 100 packet times of 1 ms.
        let mut r = red(serde_json::json!({}), 1000);
        let mut d = Vec::new();
        r.avg = 8.0;
        r.idle_from = None;
        r.tx_end = 10_000_000;
        r.enqueue(pkt(0, 0, 1500, 0), 110_000_000, &mut d);
        let want = 8.0 * (1.0 - 0.002f64).powf(100.0);
        assert!((r.avg() - want).abs() < 1e-9, "{} vs {want}", r.avg());
    }

    #[test]
    fn drop_probability_by_region_with_and_without_gentle() {
        let g = red(
            serde_json::json!({"min_th": 5, "max_th": 15, "max_p": 0.1}),
            1000,
        );
        let close = |a: f64, b: f64| (a - b).abs() < 1e-12;
        assert_eq!(g.pb(4.99), 0.0);
        assert!(close(g.pb(5.0), 0.0));
        assert!(close(g.pb(10.0), 0.05));
        assert!(close(g.pb(15.0), 0.1)); // gentle starts at max_p ...
        assert!(close(g.pb(22.5), 0.1 + 0.9 * 0.5)); // ... and rises linearly ...
        assert_eq!(g.pb(30.0), 1.0); // ... to 1 at 2·max_th
        let h = red(
            serde_json::json!({"min_th": 5, "max_th": 15, "max_p": 0.1, "gentle": false}),
            1000,
        );
        assert!(close(h.pb(14.999), 0.1 * 9.999 / 10.0));
        assert_eq!(h.pb(15.0), 1.0);
    }

    #[test]
    fn drops_are_spread_by_the_count_so_the_gap_is_uniform_on_one_to_one_over_pb() {
        // avg held at 10 (wq tiny, queue at 10): pb = 0.05. With count = 0 after a drop and
        // incremented before pa = pb/(1 − count·pb), the n-th arrival after a drop is dropped
        // with probability pb/(1 − pb) for every n in 1..=19 (1/pb − 1 values): the gap is
        // uniform there, mean 10, a drop rate of 1/10 (Bernoulli drops at pb would give 1/20,
        // with gaps far beyond 20).
        let mut r = red(
            serde_json::json!({"wq": 1e-12, "min_th": 5, "max_th": 15}),
            100_000,
        );
        let mut d = Vec::new();
        r.avg = 10.0;
        r.idle_from = None;
        r.tx_end = u64::MAX;
        for k in 0..10 {
            r.q.push(pkt(0, k, 1500, 0));
        }
        let n = 50_000;
        let mut gaps = Vec::new();
        let mut last = 0;
        for k in 1..=n {
            r.enqueue(pkt(1, k, 1500, 0), 1, &mut d);
            if r.q.len() > 10 {
                r.q.pop();
            }
            if d.len() > gaps.len() {
                gaps.push(k - last);
                last = k;
            }
        }
        assert!(
            gaps.iter().all(|&g| (1..=20).contains(&g)),
            "{:?}",
            gaps.iter().max()
        );
        let rate = d.len() as f64 / n as f64;
        assert!((rate - 0.1).abs() < 0.004, "drop rate {rate}");
        assert!(d.iter().all(|x| x.1 == Cause::Aqm));
    }

    #[test]
    fn the_first_arrival_above_min_th_is_dropped_with_probability_pb() {
        // Floyd & Jacobson (1993, Fig. 2) set count to -1 while avg is below min_th and increment
        // it before pa = pb/(1 - count*pb), so the first arrival above min_th has pa = pb. ns-3's
        // RedQueueDisc and Linux's red_action never drop that arrival (they draw their random
        // threshold there instead): one of the two rules behind the RED row at 25 packets in
        // docs/validation.md. Each trial: one arrival below min_th, then one above at pb = 0.3.
        let mut r = red(serde_json::json!({}), 1000);
        let trials = 20_000;
        let mut first = 0;
        for _ in 0..trials {
            assert!(!r.early_drop(0.0));
            first += r.early_drop(0.3) as u32;
        }
        let rate = first as f64 / trials as f64;
        assert!((rate - 0.3).abs() < 0.015, "first-arrival drop rate {rate}");
    }

    #[test]
    fn above_the_random_region_every_arrival_is_dropped_and_the_limit_is_an_overflow() {
        let mut r = red(serde_json::json!({"gentle": false}), 1000);
        let mut d = Vec::new();
        r.avg = 16.0;
        r.idle_from = None;
        r.tx_end = u64::MAX;
        r.enqueue(pkt(0, 0, 1500, 0), 1, &mut d);
        assert_eq!(d[0].1, Cause::Aqm);
        let mut r = red(serde_json::json!({"min_th": 500, "max_th": 1000}), 3);
        d.clear();
        for k in 0..5 {
            r.enqueue(pkt(0, k, 1500, 0), 0, &mut d);
        }
        assert_eq!(r.packets(), 3);
        assert_eq!(d.len(), 2);
        assert!(d.iter().all(|x| x.1 == Cause::Overflow));
    }

    /// RED held at an average in its random region (pb = max_p·0.5 = 0.05) or above it.
    fn held_at(json: serde_json::Value, avg: f64) -> Red {
        let mut r = red(json, 100_000);
        r.avg = avg;
        r.wq = 1e-12; // the average stays where it was put
        r.idle_from = None;
        r.tx_end = u64::MAX;
        r
    }

    #[test]
    fn with_ecn_red_marks_the_ect_packets_it_picks_and_still_drops_not_ect_ones() {
        for (ecn, ect_pkts) in [(true, true), (true, false), (false, true)] {
            let mut r = held_at(serde_json::json!({"ecn": ecn}), 10.0);
            let mut d = Vec::new();
            for k in 0..4000 {
                let p = pkt(0, k, 1500, 0);
                r.enqueue(if ect_pkts { ect(p) } else { p }, 1, &mut d);
            }
            let picked = r.marks() + d.len() as u64;
            // pb = 0.05 with the count's spreading: about 1 in 10.5 packets picked.
            assert!((300..460).contains(&picked), "{ecn} {ect_pkts}: {picked}");
            let marked_in_queue = r.q.iter().filter(|q| q.pkt.tag.ce()).count() as u64;
            assert_eq!(marked_in_queue, r.marks());
            if ecn && ect_pkts {
                assert!(d.is_empty(), "an ECT packet was dropped");
            } else {
                assert_eq!(r.marks(), 0, "ecn {ecn}, ect {ect_pkts}: marked");
            }
        }
    }

    #[test]
    fn where_red_drops_everything_it_marks_unless_hard_drop_as_linux_harddrop() {
        for (hard, want_mark) in [(false, true), (true, false)] {
            let mut r = held_at(
                serde_json::json!({"ecn": true, "gentle": false, "hard_drop": hard}),
                16.0,
            );
            let mut d = Vec::new();
            r.enqueue(ect(pkt(0, 0, 1500, 0)), 1, &mut d);
            assert_eq!((r.marks() == 1, d.len() == 1), (want_mark, !want_mark));
        }
        // A marked packet over the hard limit is an overflow drop.
        let mut r = held_at(serde_json::json!({"ecn": true, "gentle": false}), 16.0);
        r.limit.packets = 1;
        let mut d = Vec::new();
        r.enqueue(ect(pkt(0, 0, 1500, 0)), 1, &mut d);
        r.enqueue(ect(pkt(0, 1, 1500, 0)), 1, &mut d);
        assert_eq!((r.marks(), d.len(), d[0].1), (1, 1, Cause::Overflow));
    }

    #[test]
    fn adaptive_red_raises_max_p_above_the_target_band_and_lowers_it_below() {
        let mut r = red(serde_json::json!({"adaptive": true}), 1000);
        r.avg = 14.0; // above 5 + 0.6·10 = 11
        r.adapt(500_000_000);
        assert!((r.max_p - 0.11).abs() < 1e-12); // + min(0.01, 0.1/4)
        r.avg = 6.0; // below 5 + 0.4·10 = 9
        r.adapt(1_000_000_000);
        assert!((r.max_p - 0.099).abs() < 1e-12); // × 0.9
        r.avg = 10.0; // inside the band: unchanged
        r.adapt(1_500_000_000);
        assert!((r.max_p - 0.099).abs() < 1e-12);
    }
}
