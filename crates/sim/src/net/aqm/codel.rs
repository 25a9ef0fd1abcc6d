//! CoDel, Controlled Delay (RFC 8289): a FIFO that drops at dequeue when the packets' sojourn
//! time has stayed above `target` for at least `interval`, then drops again at intervals
//! shrinking as `interval / sqrt(count)` (the control law) until the sojourn time falls below
//! `target` again.
//!
//! [`Vars`] is the per-queue state machine of RFC 8289 §5 (`dodequeue` / `dequeue`), shared
//! with FQ-CoDel, which runs one per flow queue. The "less than a packet queued" test
//! (`bytes() <= maxpacket`) uses the scenario's largest packet as the MTU, as Linux does with
//! the device's MTU. The control law is computed in floating point as the RFC writes it. Linux
//! and ns-3 instead refine an estimate of 1/sqrt(count) by one Newton step per count, starting
//! from 1, which is coarse at small counts: 1/2 at count 2, so their third drop of a dropping
//! state comes 50 ms after the second where the RFC says 70.7 ms (bench/ns3/fq_replay.py).
//!
//! With `ecn` (RFC 8289 §5, Linux `codel_dequeue`, ns-3 `CoDelQueueDisc::UseEcn`) a packet
//! the control law picks is marked CE and sent if it is ECN-capable, and the schedule moves on
//! as for a drop (count + 1, next time by the control law); only Not-ECT packets are dropped.
//! As in Linux, a mark ends the round of drops due at once (the marked packet is the one sent).
use super::{
    params, pos_time, Cause, Context, Discipline, Drops, Fifo, Limit, Queued, Registration,
};
use crate::time::Ns;
use serde::Deserialize;

pub const REGISTRATION: Registration = Registration {
    name: "codel",
    // Linux's `codel` qdisc default limit.
    default_limit_packets: 1000,
    make,
};

fn d_target() -> f64 {
    0.005
}
fn d_interval() -> f64 {
    0.1
}

/// CoDel's parameters (RFC 8289 §4.2–4.3 defaults: 5 ms and 100 ms).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CodelParams {
    /// Acceptable standing sojourn time, seconds.
    #[serde(default = "d_target")]
    pub target_s: f64,
    /// Window over which the sojourn time must stay above target before dropping; about a
    /// worst-case RTT, seconds.
    #[serde(default = "d_interval")]
    pub interval_s: f64,
    /// Mark ECN-capable packets CE instead of dropping them (Linux's `codel` default: off).
    #[serde(default)]
    pub ecn: bool,
}

/// The control constants, in nanoseconds and bytes.
#[derive(Debug, Clone, Copy)]
pub struct Control {
    pub target: Ns,
    pub interval: Ns,
    /// A queue holding at most this many bytes is never dropped from (RFC 8289 §5: "maxpacket").
    pub mtu: u64,
    /// Mark instead of dropping ECN-capable packets.
    pub ecn: bool,
}

impl Control {
    pub fn from_params(p: &CodelParams, mtu: u32) -> Result<Control, String> {
        let c = Control {
            target: pos_time("target_s", p.target_s)?,
            interval: pos_time("interval_s", p.interval_s)?,
            mtu: mtu as u64,
            ecn: p.ecn,
        };
        if c.target >= c.interval {
            return Err(format!(
                "target_s: must be below interval_s ({} s), got {} s",
                p.interval_s, p.target_s
            ));
        }
        Ok(c)
    }
}

/// RFC 8289's control law: the next drop `interval / sqrt(count)` after `t`.
#[inline]
pub fn control_law(t: Ns, interval: Ns, count: u32) -> Ns {
    t + (interval as f64 / (count.max(1) as f64).sqrt()) as Ns
}

/// One queue's CoDel state (RFC 8289 §5, the variables ending in `_`).
#[derive(Debug, Clone, Copy, Default)]
pub struct Vars {
    /// When the sojourn time will have been above target for an interval (0: it is below).
    first_above_time: Ns,
    /// When the next drop is due while dropping.
    drop_next: Ns,
    /// Drops since entering the dropping state (the control law's count).
    count: u32,
    /// `count` when the dropping state was last entered.
    lastcount: u32,
    dropping: bool,
}

impl Vars {
    /// Is the queue in the dropping state?
    pub fn dropping(&self) -> bool {
        self.dropping
    }

    /// The control law's current count.
    pub fn count(&self) -> u32 {
        self.count
    }

    /// RFC 8289 `dodequeue`: take the head packet of `q` and say whether it may be dropped.
    /// `others` is the backlog outside `q` that the "at most a packet queued" test counts too
    /// (0 for CoDel; the other flows' bytes for FQ-CoDel, as Linux does).
    #[inline]
    fn dodequeue(
        &mut self,
        c: &Control,
        now: Ns,
        q: &mut Fifo,
        others: u64,
    ) -> Option<(Queued, bool)> {
        let Some(p) = q.pop() else {
            self.first_above_time = 0;
            return None;
        };
        let sojourn = now.saturating_sub(p.enq);
        let mut ok_to_drop = false;
        if sojourn < c.target || q.bytes() + others <= c.mtu {
            // Below target (or too little queued to matter): stay below for an interval.
            self.first_above_time = 0;
        } else if self.first_above_time == 0 {
            self.first_above_time = now + c.interval;
        } else if now >= self.first_above_time {
            ok_to_drop = true;
        }
        Some((p, ok_to_drop))
    }

    /// RFC 8289 `dequeue`: the next packet of `q` to send, after the drops (into `drops`)
    /// that the state machine makes at `now`; marks instead of drops are added to `marks`.
    pub fn dequeue(
        &mut self,
        c: &Control,
        now: Ns,
        q: &mut Fifo,
        others: u64,
        drops: &mut Drops,
        marks: &mut u64,
    ) -> Option<Queued> {
        let mut r = self.dodequeue(c, now, q, others);
        if self.dropping {
            if !r.is_some_and(|x| x.1) {
                self.dropping = false;
            }
            // Several drops may be due at once when the count is high.
            while self.dropping && now >= self.drop_next {
                let (mut p, _) = r.expect("dropping implies a packet");
                self.count = self.count.saturating_add(1);
                if super::mark(c.ecn, &mut p) {
                    *marks += 1;
                    self.drop_next = control_law(self.drop_next, c.interval, self.count);
                    return Some(p);
                }
                drops.push((p.pkt, Cause::Aqm));
                r = self.dodequeue(c, now, q, others);
                if r.is_some_and(|x| x.1) {
                    self.drop_next = control_law(self.drop_next, c.interval, self.count);
                } else {
                    self.dropping = false;
                }
            }
        } else if let Some((mut p, true)) = r {
            if super::mark(c.ecn, &mut p) {
                *marks += 1;
                r = Some((p, true));
            } else {
                drops.push((p.pkt, Cause::Aqm));
                r = self.dodequeue(c, now, q, others);
            }
            self.dropping = true;
            // Re-entering soon after the last dropping state: resume near its drop rate.
            let delta = self.count.saturating_sub(self.lastcount);
            self.count = 1;
            if delta > 1 && (now as i128 - self.drop_next as i128) < 16 * c.interval as i128 {
                self.count = delta;
            }
            self.drop_next = control_law(now, c.interval, self.count);
            self.lastcount = self.count;
        }
        r.map(|x| x.0)
    }
}

/// The CoDel discipline: one FIFO under one [`Vars`], with a hard limit.
pub struct Codel {
    q: Fifo,
    c: Control,
    v: Vars,
    limit: Limit,
    marks: u64,
}

fn make(v: &serde_json::Value, ctx: Context) -> Result<Box<dyn Discipline>, String> {
    let p: CodelParams = params(v)?;
    Ok(Box::new(Codel::new(&p, &ctx)?))
}

impl Codel {
    pub fn new(p: &CodelParams, ctx: &Context) -> Result<Codel, String> {
        Ok(Codel {
            q: Fifo::default(),
            c: Control::from_params(p, ctx.mtu_bytes)?,
            v: Vars::default(),
            limit: ctx.limit,
            marks: 0,
        })
    }
}

impl Discipline for Codel {
    fn enqueue(&mut self, q: Queued, _now: Ns, drops: &mut Drops) {
        if self
            .limit
            .fits(self.q.len(), self.q.bytes(), q.pkt.bytes as u32)
        {
            self.q.push(q);
        } else {
            drops.push((q.pkt, Cause::Overflow));
        }
    }

    fn dequeue(&mut self, now: Ns, drops: &mut Drops) -> Option<Queued> {
        self.v
            .dequeue(&self.c, now, &mut self.q, 0, drops, &mut self.marks)
    }

    fn marks(&self) -> u64 {
        self.marks
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
    use super::super::test_util::{ctx, ect, pkt, MS};
    use super::*;

    fn codel_ecn(limit: u64, ecn: bool) -> Codel {
        Codel::new(
            &CodelParams {
                target_s: 0.005,
                interval_s: 0.1,
                ecn,
            },
            &ctx(limit, 1e8),
        )
        .unwrap()
    }

    fn codel(limit: u64) -> Codel {
        codel_ecn(limit, false)
    }

    /// A standing queue: a packet leaves every millisecond and each has waited `sojourn`;
    /// arrivals keep several packets queued. Returns the dequeue times at which CoDel dropped.
    fn drop_times(c: &mut Codel, sojourn: Ns, from: Ns, to: Ns) -> Vec<Ns> {
        standing(c, sojourn, from, to, false).0
    }

    /// `drop_times` with ECN-capable packets (`ect`): the times of the drops and of the marks
    /// (a packet sent CE), and the packets sent.
    fn standing(
        c: &mut Codel,
        sojourn: Ns,
        from: Ns,
        to: Ns,
        ect_pkts: bool,
    ) -> (Vec<Ns>, Vec<Ns>, u64) {
        let mut drops = Vec::new();
        let mut out = Vec::new();
        let (mut marks, mut sent) = (Vec::new(), 0);
        let mut seq = 0;
        let mut t = from;
        while t < to {
            // Keep 10 packets queued, each stamped `sojourn` before the slot it will leave in
            // (one packet leaves per millisecond; drops take extra packets, so refill).
            while c.packets() < 10 {
                let slot = t + c.packets() * MS;
                let p = pkt(0, seq, 1000, slot.saturating_sub(sojourn));
                c.enqueue(if ect_pkts { ect(p) } else { p }, t, &mut drops);
                seq += 1;
            }
            drops.clear();
            if let Some(p) = c.dequeue(t, &mut drops) {
                sent += 1;
                if p.pkt.tag.ce() {
                    marks.push(t);
                }
            }
            for _ in drops.iter() {
                out.push(t);
            }
            t += MS;
        }
        assert_eq!(marks.len() as u64, c.marks());
        (out, marks, sent)
    }

    #[test]
    fn with_ecn_codel_marks_ect_packets_on_the_drop_schedule_and_drops_the_others() {
        let t0 = 1000 * MS;
        let (drops, _, sent_drop) = standing(&mut codel(1000), 20 * MS, t0, t0 + 600 * MS, false);
        let mut c = codel_ecn(1000, true);
        let (none, marks, sent) = standing(&mut c, 20 * MS, t0, t0 + 600 * MS, true);
        assert!(none.is_empty(), "an ECT packet was dropped");
        // The same control law: a mark where the drop was, and every packet sent.
        assert_eq!(marks, drops);
        assert_eq!(sent, 600);
        assert_eq!(sent_drop, 600);
        // ECN on, Not-ECT packets: dropped as without ECN.
        let mut c = codel_ecn(1000, true);
        let (d, m, _) = standing(&mut c, 20 * MS, t0, t0 + 600 * MS, false);
        assert_eq!((d, m.len()), (drops, 0));
    }

    #[test]
    fn control_law_spaces_drops_by_interval_over_sqrt_count() {
        let i = 100 * MS;
        assert_eq!(control_law(0, i, 1), 100 * MS);
        assert_eq!(control_law(0, i, 4), 50 * MS);
        assert_eq!(control_law(7, i, 100), 7 + 10 * MS);
        // 100 ms / sqrt(2) = 70.710678 ms, truncated to the nanosecond.
        assert_eq!(control_law(0, i, 2), 70_710_678);
    }

    #[test]
    fn first_drop_after_an_interval_above_target_then_the_control_law() {
        // Sojourn 20 ms > 5 ms from t0 = 1 s. The first dequeue sets first_above_time = t0 +
        // 100 ms; the first drop is then, with count 1, so the next is 100 ms later; after it
        // the gaps shrink as 100/sqrt(2), 100/sqrt(3), ... each rounded up to the next
        // millisecond dequeue slot.
        let t0 = 1000 * MS;
        let mut c = codel(1000);
        let got: Vec<Ns> = drop_times(&mut c, 20 * MS, t0, t0 + 600 * MS)
            .iter()
            .map(|t| t - t0)
            .collect();
        let mut want = vec![100 * MS];
        let mut next = 100 * MS + 100 * MS; // control_law(now, 1)
        let mut count = 1u32;
        while next < 600 * MS {
            let slot = next.div_ceil(MS) * MS;
            want.push(slot);
            count += 1;
            next += (100.0 * MS as f64 / (count as f64).sqrt()) as Ns;
        }
        assert_eq!(got, want);
        assert_eq!(want[..4], [100 * MS, 200 * MS, 271 * MS, 329 * MS]);
        assert!(c.v.dropping());
    }

    #[test]
    fn a_sojourn_below_target_never_drops_and_leaves_the_dropping_state() {
        let mut c = codel(1000);
        assert!(drop_times(&mut c, 4 * MS, 0, 1000 * MS).is_empty());
        // Enter dropping, then the delay falls below target: dropping ends at the next dequeue.
        let mut c = codel(1000);
        assert!(!drop_times(&mut c, 30 * MS, 1000 * MS, 1300 * MS).is_empty());
        assert!(c.v.dropping());
        let mut d = Vec::new();
        c.q = Fifo::default();
        for k in 0..5 {
            c.enqueue(pkt(0, k, 1000, 1300 * MS), 1300 * MS, &mut d);
        }
        assert!(c.dequeue(1301 * MS, &mut d).is_some() && d.is_empty());
        assert!(!c.v.dropping());
    }

    #[test]
    fn at_most_one_mtu_queued_is_never_dropped_however_long_it_waited() {
        // One packet at a time, each waiting 50 ms: after the dequeue the queue holds nothing,
        // which is at most an MTU, so first_above_time never arms.
        let mut c = codel(1000);
        let mut d = Vec::new();
        for k in 0..500u64 {
            let t = k * MS;
            c.enqueue(pkt(0, k as u32, 1500, t.saturating_sub(50 * MS)), t, &mut d);
            assert!(c.dequeue(t, &mut d).is_some());
        }
        assert!(d.is_empty());
    }

    #[test]
    fn reentering_soon_after_dropping_resumes_at_the_previous_drop_rate() {
        // Drop for 600 ms (count climbs past 1), let the queue drain below target briefly, then
        // go above again: RFC 8289 sets count = count - lastcount (> 1) instead of 1.
        let mut c = codel(1000);
        let first = drop_times(&mut c, 20 * MS, 1000 * MS, 1600 * MS);
        let before = c.v.count();
        assert!(before > 3, "count {before}");
        c.q = Fifo::default(); // the old packets leave; the next ones wait 1 ms
        assert!(drop_times(&mut c, MS, 1600 * MS, 1610 * MS).is_empty());
        assert!(!c.v.dropping());
        c.q = Fifo::default();
        let again = drop_times(&mut c, 20 * MS, 1610 * MS, 1900 * MS);
        assert!(!again.is_empty() && !first.is_empty());
        assert_eq!(
            c.v.lastcount,
            before - 1,
            "count resumed at delta = count - lastcount"
        );
    }

    #[test]
    fn the_hard_limit_is_an_overflow_drop() {
        let mut c = codel(3);
        let mut d = Vec::new();
        for s in 0..5 {
            c.enqueue(pkt(0, s, 1000, 0), 0, &mut d);
        }
        assert_eq!(c.packets(), 3);
        assert_eq!(d.len(), 2);
        assert!(d.iter().all(|x| x.1 == Cause::Overflow));
    }
}
