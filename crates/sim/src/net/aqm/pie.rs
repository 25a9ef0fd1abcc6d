//! PIE, Proportional Integral controller Enhanced (RFC 8033): a FIFO that drops arriving
//! packets at random with a probability that a PI controller updates every `t_update` from the
//! queueing delay: p += alpha·(qdelay − target) + beta·(qdelay − qdelay_old), the step scaled
//! down while p is small (RFC 8033 §4.2), capped at 2 % once p ≥ 10 % (§5.5, on by default as
//! in Linux and ns-3), and decayed by 2 % per update while the queue stays empty. A burst
//! allowance (`max_burst`, 150 ms) lets bursts through after a quiet spell (§4.4).
//!
//! The queueing delay is measured with timestamps (RFC 8033 §5.1 and its Appendix A pseudocode,
//! Linux's default): the sojourn time of the last packet dequeued, taken as 0 when that
//! dequeue left the queue empty (Linux does the same; without it an idle queue would keep the
//! last busy sojourn and the probability could not decay). The periodic update runs on the
//! simulated clock: each enqueue or dequeue first applies every update due by then. The random
//! draws come from the link's own seeded stream. Derandomization (§5.4) is not implemented
//! (off by default in ns-3 and in the RFC's pseudocode).
//!
//! With `ecn` (RFC 8033 §5.1, Linux `pie ... ecn`, ns-3 `PieQueueDisc::UseEcn`) an
//! ECN-capable packet the random test picks is marked CE and kept while the probability is at
//! most `mark_ecn_th` (10 %, the RFC's, Linux's and ns-3's value); above it, or for a Not-ECT
//! packet, it is dropped.
use super::{
    params, pos_time, Cause, Context, Discipline, Drops, Fifo, Limit, Queued, Registration,
};
use crate::rng::Rng;
use crate::time::Ns;
use serde::Deserialize;

pub const REGISTRATION: Registration = Registration {
    name: "pie",
    // Linux's `pie` qdisc default limit.
    default_limit_packets: 1000,
    make,
};

fn d_target() -> f64 {
    0.015
}
fn d_t_update() -> f64 {
    0.015
}
fn d_alpha() -> f64 {
    0.125
}
fn d_beta() -> f64 {
    1.25
}
fn d_max_burst() -> f64 {
    0.15
}
fn d_true() -> bool {
    true
}

/// PIE's parameters (RFC 8033 defaults).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PieParams {
    /// QDELAY_REF, the target queueing delay, seconds.
    #[serde(default = "d_target")]
    pub target_s: f64,
    /// T_UPDATE, the period of the probability update, seconds.
    #[serde(default = "d_t_update")]
    pub t_update_s: f64,
    /// Weights of the delay error and of its change, 1/s.
    #[serde(default = "d_alpha")]
    pub alpha: f64,
    #[serde(default = "d_beta")]
    pub beta: f64,
    /// MAX_BURST, seconds.
    #[serde(default = "d_max_burst")]
    pub max_burst_s: f64,
    /// RFC 8033 §5.5: at most +2 % per update once the probability is 10 % or more.
    #[serde(default = "d_true")]
    pub cap_drop_adjustment: bool,
    /// Mark ECN-capable packets CE instead of dropping them (Linux's default: off).
    #[serde(default)]
    pub ecn: bool,
    /// With `ecn`: above this drop probability PIE drops even ECN-capable packets.
    #[serde(default = "d_mark_ecn_th")]
    pub mark_ecn_th: f64,
}

fn d_mark_ecn_th() -> f64 {
    0.1
}

pub struct Pie {
    q: Fifo,
    limit: Limit,
    mtu: u64,
    rng: Rng,
    target: Ns,
    t_update: Ns,
    alpha: f64,
    beta: f64,
    max_burst: Ns,
    cap: bool,
    /// drop_prob_, current_qdelay, qdelay_old_, burst_allowance_ of RFC 8033.
    prob: f64,
    qdelay: Ns,
    qdelay_old: Ns,
    burst: Ns,
    /// When the next periodic update is due.
    next_update: Ns,
    ecn: bool,
    mark_ecn_th: f64,
    marks: u64,
}

fn make(v: &serde_json::Value, ctx: Context) -> Result<Box<dyn Discipline>, String> {
    let p: PieParams = params(v)?;
    Ok(Box::new(Pie::new(&p, ctx)?))
}

impl Pie {
    pub fn new(p: &PieParams, ctx: Context) -> Result<Pie, String> {
        for (f, x) in [("alpha", p.alpha), ("beta", p.beta)] {
            if !(x.is_finite() && x >= 0.0) {
                return Err(format!("{f}: must be a finite number >= 0, got {x}"));
            }
        }
        if !(0.0..=1.0).contains(&p.mark_ecn_th) {
            return Err(format!(
                "mark_ecn_th: must be in [0, 1], got {}",
                p.mark_ecn_th
            ));
        }
        let max_burst = if p.max_burst_s == 0.0 {
            0
        } else {
            pos_time("max_burst_s", p.max_burst_s)?
        };
        Ok(Pie {
            q: Fifo::default(),
            limit: ctx.limit,
            mtu: ctx.mtu_bytes as u64,
            rng: ctx.rng,
            target: pos_time("target_s", p.target_s)?,
            t_update: pos_time("t_update_s", p.t_update_s)?,
            alpha: p.alpha,
            beta: p.beta,
            max_burst,
            cap: p.cap_drop_adjustment,
            ecn: p.ecn,
            mark_ecn_th: p.mark_ecn_th,
            marks: 0,
            prob: 0.0,
            qdelay: 0,
            qdelay_old: 0,
            burst: max_burst,
            next_update: pos_time("t_update_s", p.t_update_s)?,
        })
    }

    /// The drop probability now.
    pub fn prob(&self) -> f64 {
        self.prob
    }

    /// RFC 8033 `calculate_drop_prob`, run every `t_update`.
    fn update(&mut self) {
        let (qd, old, target) = (
            self.qdelay as f64 * 1e-9,
            self.qdelay_old as f64 * 1e-9,
            self.target as f64 * 1e-9,
        );
        let mut p = self.alpha * (qd - target) + self.beta * (qd - old);
        // Smaller steps while the probability is small (§4.2).
        let scale = if self.prob < 0.000001 {
            2048.0
        } else if self.prob < 0.00001 {
            512.0
        } else if self.prob < 0.0001 {
            128.0
        } else if self.prob < 0.001 {
            32.0
        } else if self.prob < 0.01 {
            8.0
        } else if self.prob < 0.1 {
            2.0
        } else {
            1.0
        };
        p /= scale;
        if self.cap && self.prob >= 0.1 && p > 0.02 {
            p = 0.02;
        }
        self.prob += p;
        if self.qdelay == 0 && self.qdelay_old == 0 {
            self.prob *= 0.98;
        }
        self.prob = self.prob.clamp(0.0, 1.0);
        self.qdelay_old = self.qdelay;
        self.burst = self.burst.saturating_sub(self.t_update);
    }

    /// Apply every update due by `now`. Once the state is at rest (probability, delays and
    /// burst allowance all zero) further updates change nothing, so they are skipped at once.
    fn catch_up(&mut self, now: Ns) {
        while self.next_update <= now {
            if self.prob == 0.0 && self.qdelay == 0 && self.qdelay_old == 0 && self.burst == 0 {
                let k = (now - self.next_update) / self.t_update + 1;
                self.next_update += k * self.t_update;
                break;
            }
            self.update();
            self.next_update += self.t_update;
        }
    }

    /// RFC 8033 `drop_early`, for an arriving packet.
    fn drop_early(&mut self) -> bool {
        // Safeguards that keep PIE work-conserving: low delay and probability, or too few
        // bytes queued to matter.
        if (self.qdelay_old < self.target / 2 && self.prob < 0.2) || self.q.bytes() <= 2 * self.mtu
        {
            return false;
        }
        self.rng.next_f64() < self.prob
    }
}

impl Discipline for Pie {
    fn enqueue(&mut self, mut q: Queued, now: Ns, drops: &mut Drops) {
        self.catch_up(now);
        if !self
            .limit
            .fits(self.q.len(), self.q.bytes(), q.pkt.bytes as u32)
        {
            drops.push((q.pkt, Cause::Overflow));
            return;
        }
        if self.prob == 0.0 && self.qdelay < self.target / 2 && self.qdelay_old < self.target / 2 {
            self.burst = self.max_burst;
        }
        if self.burst == 0 && self.drop_early() {
            if super::mark(self.ecn && self.prob <= self.mark_ecn_th, &mut q) {
                self.marks += 1;
            } else {
                drops.push((q.pkt, Cause::Aqm));
                return;
            }
        }
        self.q.push(q);
    }

    fn marks(&self) -> u64 {
        self.marks
    }

    fn dequeue(&mut self, now: Ns, _drops: &mut Drops) -> Option<Queued> {
        self.catch_up(now);
        let p = self.q.pop()?;
        self.qdelay = if self.q.is_empty() {
            0
        } else {
            now.saturating_sub(p.enq)
        };
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
    use super::super::test_util::{ctx, ect, pkt, MS};
    use super::*;

    fn pie() -> Pie {
        Pie::new(&params(&serde_json::json!({})).unwrap(), ctx(1000, 1e8)).unwrap()
    }

    /// PIE held at probability `prob` over a standing queue (no update runs, no burst
    /// allowance): (marks, drops) among 2000 arrivals.
    fn held(json: serde_json::Value, prob: f64, ect_pkts: bool) -> (u64, usize) {
        let mut p = Pie::new(&params(&json).unwrap(), ctx(100_000, 1e8)).unwrap();
        let mut d = Vec::new();
        for k in 0..10 {
            p.q.push(pkt(0, k, 1500, 0));
        }
        (p.prob, p.qdelay_old, p.burst, p.next_update) = (prob, 20 * MS, 0, u64::MAX);
        for k in 0..2000 {
            let x = pkt(0, k, 1500, 0);
            p.enqueue(if ect_pkts { ect(x) } else { x }, 1, &mut d);
        }
        (p.marks(), d.len())
    }

    #[test]
    fn with_ecn_pie_marks_up_to_mark_ecn_th_and_drops_above_it() {
        let on = serde_json::json!({"ecn": true});
        // 5 % <= 10 %: the ECT packets it picks are marked (about 100 of 2000), none dropped.
        let (m, d) = held(on.clone(), 0.05, true);
        assert!((60..140).contains(&m) && d == 0, "{m} {d}");
        // 20 % > 10 %: dropped even though ECN-capable.
        let (m, d) = held(on.clone(), 0.2, true);
        assert!(m == 0 && (330..470).contains(&d), "{m} {d}");
        // A lower threshold moves the switch.
        let (m, d) = held(
            serde_json::json!({"ecn": true, "mark_ecn_th": 0.01}),
            0.05,
            true,
        );
        assert!(m == 0 && d > 60, "{m} {d}");
        // Not-ECT packets, and ECN off: dropped.
        for (json, ect_pkts) in [(on, false), (serde_json::json!({}), true)] {
            let (m, d) = held(json, 0.05, ect_pkts);
            assert!(m == 0 && (60..140).contains(&d), "{m} {d}");
        }
    }

    /// One update from the given state; returns the new probability.
    fn step(prob: f64, qdelay_ms: u64, old_ms: u64) -> f64 {
        let mut p = pie();
        p.prob = prob;
        p.qdelay = qdelay_ms * MS;
        p.qdelay_old = old_ms * MS;
        p.update();
        p.prob
    }

    #[test]
    fn probability_update_is_the_pi_law_scaled_by_the_current_probability() {
        // 30 ms now, 20 ms before, target 15 ms: alpha·0.015 + beta·0.010 = 0.014375.
        let raw = 0.125 * 0.015 + 1.25 * 0.010;
        let close = |a: f64, b: f64| (a - b).abs() < 1e-12;
        assert!(close(step(0.0, 30, 20), raw / 2048.0));
        assert!(close(step(0.000005, 30, 20), 0.000005 + raw / 512.0));
        assert!(close(step(0.0005, 30, 20), 0.0005 + raw / 32.0));
        assert!(close(step(0.05, 30, 20), 0.05 + raw / 2.0));
        assert!(close(step(0.5, 30, 20), 0.5 + raw));
        // Falling delay lowers it: 10 ms now, 20 ms before.
        assert!(close(
            step(0.05, 10, 20),
            0.05 + (0.125 * -0.005 + 1.25 * -0.010) / 2.0
        ));
    }

    #[test]
    fn the_step_is_capped_at_two_percent_above_ten_percent() {
        // 60 ms now, 20 ms before: raw step 0.055625, capped to 0.02 once prob >= 0.1.
        assert!((step(0.5, 60, 20) - 0.52).abs() < 1e-12);
        assert!((step(0.09, 60, 20) - (0.09 + 0.055625 / 2.0)).abs() < 1e-12);
    }

    #[test]
    fn an_empty_queue_decays_the_probability_and_it_stays_within_zero_and_one() {
        // Both delays 0: the PI step (-alpha·target) and then ×0.98.
        let want = (0.5 - 0.125 * 0.015) * 0.98;
        assert!((step(0.5, 0, 0) - want).abs() < 1e-12);
        assert_eq!(step(0.0, 0, 0), 0.0);
        assert_eq!(step(1.0, 2000, 0), 1.0);
    }

    #[test]
    fn burst_allowance_lets_the_first_max_burst_through_then_random_drops_start() {
        // Probability 1, delays far above target: an arriving packet is dropped once the
        // 150 ms allowance, less 15 ms per update, has run out -- not before.
        let mut p = pie();
        let mut d = Vec::new();
        for k in 0..5 {
            p.q.push(pkt(0, k, 1000, 0)); // more than 2 MTUs queued
        }
        p.prob = 1.0;
        p.qdelay = 200 * MS;
        p.qdelay_old = 200 * MS;
        assert_eq!(p.burst, 150 * MS);
        for t in (0..150).map(|k| k * MS) {
            p.enqueue(pkt(1, t as u32, 100, t), t, &mut d);
            assert!(d.is_empty(), "dropped at {t} ns, allowance {}", p.burst);
        }
        p.enqueue(pkt(1, 0, 100, 150 * MS), 150 * MS, &mut d);
        assert_eq!(p.burst, 0);
        assert_eq!(d, vec![(pkt(1, 0, 100, 0).pkt, Cause::Aqm)]);
    }

    #[test]
    fn burst_allowance_is_restored_when_probability_and_delays_are_low() {
        let mut p = pie();
        let mut d = Vec::new();
        p.burst = 0;
        p.qdelay = 7 * MS; // below target/2 = 7.5 ms
        p.qdelay_old = 7 * MS;
        p.enqueue(pkt(0, 0, 100, 0), 0, &mut d);
        assert_eq!(p.burst, 150 * MS);
        p.burst = 0;
        p.qdelay = 8 * MS; // not below target/2
        p.enqueue(pkt(0, 1, 100, 0), 0, &mut d);
        assert_eq!(p.burst, 0);
    }

    #[test]
    fn safeguards_and_the_random_drop_rate() {
        let mut p = Pie::new(
            &params(&serde_json::json!({"t_update_s": 1e5})).unwrap(), // no update in the test
            ctx(100_000, 1e8),
        )
        .unwrap();
        let mut d = Vec::new();
        p.burst = 0;
        p.prob = 0.3;
        p.qdelay_old = 20 * MS;
        // Two MTUs or less queued: never dropped.
        p.q.push(pkt(0, 0, 1500, 0));
        p.q.push(pkt(0, 1, 1500, 0));
        for k in 0..100 {
            p.enqueue(pkt(0, k, 1500, 0), 0, &mut d);
            p.q.pop();
        }
        assert!(d.is_empty());
        // Low delay and probability below 0.2: never dropped either.
        p.q.push(pkt(0, 2, 1500, 0));
        p.qdelay_old = 5 * MS;
        p.prob = 0.19;
        for k in 0..100 {
            p.enqueue(pkt(0, k, 100, 0), 0, &mut d);
        }
        assert!(d.is_empty());
        // Otherwise the drop rate is the probability.
        p.prob = 0.3;
        p.qdelay_old = 20 * MS;
        let n = 20_000;
        for k in 0..n {
            p.enqueue(pkt(0, k, 1500, 0), 0, &mut d);
            if p.q.len() > 3 {
                p.q.pop();
            }
        }
        let rate = d.len() as f64 / n as f64;
        assert!((rate - 0.3).abs() < 0.015, "drop rate {rate}");
    }

    #[test]
    fn updates_run_on_the_simulated_clock_and_skip_a_quiet_spell() {
        let mut p = pie();
        let mut d = Vec::new();
        p.prob = 0.001;
        p.qdelay = 0;
        p.qdelay_old = 0;
        // An hour idle: the probability decays to 0, the updates due are all accounted.
        assert!(p.dequeue(3_600_000 * MS, &mut d).is_none());
        assert_eq!(p.prob, 0.0);
        assert!(p.next_update > 3_600_000 * MS && p.next_update <= 3_600_000 * MS + 15 * MS);
        assert_eq!((p.next_update - 15 * MS) % (15 * MS), 0);
    }
}
