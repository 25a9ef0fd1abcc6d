//! CUBIC (RFC 9438), with the per-ACK mechanics of Linux's `tcp_cubic`, and β as a parameter:
//! "cubic" is RFC 9438 / Linux ≥ 2.6.26 (β = 0.7, CUBIC″ of paper 003); "cubic-0.8" is the
//! CUBIC of Linux ≤ 2.6.25 (`beta = 819` of 1024, i.e. 0.8, CUBIC′ of paper 003; same C = 0.4
//! from `bic_scale = 41`, same fast convergence and TCP-friendliness rule, whose AIMD slope
//! 3(1 − β)/(1 + β) follows β).
//!
//! After a loss at window W_max the window is cut to β·W_max and then follows
//! W(t) = C·(t − K)³ + W_max, with K = ∛(W_max·(1 − β)/C) the time to get back to W_max
//! (concave below W_max, convex above it). t counts from the first ACK after the loss.
//!
//! - β = 0.7 (or 0.8), C = 0.4 segments/s³ (RFC 9438 §5.1; Linux uses 717/1024 and 410/1024).
//! - Growth per ACK: the target is W(t + RTT_min), one minimum RTT ahead, as Linux does; cwnd
//!   grows by (acked segments)/cnt with cnt = cwnd / (target − cwnd), and by at most half a
//!   segment per acknowledged segment (cnt ≥ 2, i.e. ≤ 1.5× per RTT; RFC 9438 §4.2).
//! - Reno-friendly region (RFC 9438 §4.3): an AIMD estimate W_est grows by
//!   α = 3(1 − β)/(1 + β) segments per window of ACKs; when it is above cwnd, cwnd grows at least
//!   as fast as it.
//! - Fast convergence (§4.7): a loss below the previous W_max lowers W_max to W·(1 + β)/2.
//! - After a retransmission timeout everything is forgotten (W_max = 0, as Linux's
//!   `bictcp_reset` on entering the Loss state); with no W_max, growth is at least 5 % per RTT
//!   (Linux's cnt ≤ 20 rule), so the first epoch is not flat.
//! - ssthresh = max(β·cwnd, 2), from cwnd (Linux, ns-3), not FlightSize.
//! - Slow start as the engine's Reno (+min(acked, 2) per ACK up to ssthresh).
//!
//! - `cubic_integer` (off by default; the testbed twin may ask for it): the window in whole
//!   segments as Linux's `tcp_cubic` keeps it. ssthresh = max(⌊β·cwnd⌋, 2) and W_max (fast
//!   convergence included) rounded down; the per-ACK divisor cnt an integer quotient
//!   (cwnd / (target − cwnd), target = origin ± ⌊C·|t − K|³⌋), at least 2; cwnd grows through an
//!   ACK counter (`tcp_cong_avoid_ai`: +1 each time cnt segments have been acknowledged, the
//!   counter cleared at every window reduction); the Reno-friendly estimate is a whole number of
//!   segments that grows by one per ⌊cwnd·s/8⌋ acknowledged (s = ⌊8(1 + β)/(3(1 − β))⌋ in
//!   Linux's 1024ths: 15 for β = 0.7) and, once above cwnd, caps cnt at ⌊cwnd / (W_est − cwnd)⌋.
//!   K stays in floating point (Linux's cube-root table moves it by under 1 %), and the
//!   HZ/32 caching of cnt between ACKs is not modelled.
//!
//! - `hystart` (`TcpParams::cubic_hystart`, on in the linux profile): Linux's HyStart, see
//!   [`HyStart`]. It shapes the first slow start, which a measurement window's warm-up hides
//!   behind a shared queue but not always behind fair queueing, where an overshoot into a flow's
//!   own queue can persist (bench/fq_codel_rack_runaway.md).
//!
//! Not modelled: Linux's integer arithmetic (cube-root table, jiffies), which moves K by well
//! under 1 %.
use super::cc::{AckInfo, CcContext, CongestionControl, Window};
use super::reno::slow_start;
use crate::time::{secs, Ns};

/// Multiplicative decrease factor β of RFC 9438 / Linux ≥ 2.6.26.
pub const BETA: f64 = 0.7;
/// β of Linux ≤ 2.6.25 (819/1024 rounded as the paper does).
pub const BETA_OLD: f64 = 0.8;
/// Cubic scaling constant C, segments / s³.
pub const C: f64 = 0.4;
/// Reno-friendly additive increase per window, α = 3(1 − β)/(1 + β) (≈ 0.53 segments per RTT).
pub const ALPHA: f64 = 3.0 * (1.0 - BETA) / (1.0 + BETA);

#[derive(Debug, Clone)]
pub struct Cubic {
    /// Multiplicative decrease factor β.
    beta: f64,
    /// Reno-friendly slope α = 3(1 − β)/(1 + β), segments per RTT.
    alpha: f64,
    /// Window at the last loss (after fast convergence); 0 = none (start, or after a timeout).
    w_max: f64,
    /// Start of the current congestion-avoidance epoch; None until the first ACK after a loss.
    epoch_start: Option<Ns>,
    /// Time from the epoch start to W_max, seconds.
    k: f64,
    /// The plateau the cubic function is centred on (W_max, or cwnd if cwnd ≥ W_max at the epoch start).
    origin: f64,
    /// Reno-friendly window estimate W_est.
    w_est: f64,
    /// Smallest RTT sample seen, ns.
    rtt_min: Option<Ns>,
    /// Linux's integer arithmetic (`TcpParams::cubic_integer`).
    integer: bool,
    /// The Reno-friendly region (RFC 9438 §4.3; `TcpParams::cubic_reno_friendly`): on in Linux,
    /// absent from ns-3 3.37's TcpCubic.
    friendly: bool,
    /// Integer mode: segments acknowledged since the Reno estimate last grew (Linux `ack_cnt`),
    /// the estimate itself (`tcp_cwnd`), and the ACK counter of `tcp_cong_avoid_ai`
    /// (`snd_cwnd_cnt`).
    ack_cnt: u64,
    tcp_cwnd: u64,
    cwnd_cnt: u64,
    hs: Option<HyStart>,
}

/// Linux's HyStart (`tcp_cubic.c`, `hystart_detect` = both): in slow start, from a window of 16,
/// a round (one flight acknowledged, Linux's `end_seq`) ends slow start (ssthresh = cwnd) when
/// its ACKs, each within 2 ms of the one before, have spanned half the minimum RTT since the
/// round began (the ACK train: the pipe is full), or when the smallest of its RTT samples after
/// the eighth exceeds the minimum RTT by an eighth of it, clamped to 4–16 ms (delay). Once found,
/// not again until a timeout (Linux's reset in the Loss state). Approximation: the round ends
/// after the flight at its start is acknowledged (Linux compares sequence numbers); the engine's
/// RTT samples are its own (Karn's rule, RACK's), not the kernel's per-ACK `rtt_us`.
#[derive(Debug, Clone, Default)]
struct HyStart {
    found: bool,
    /// The smallest RTT sample since the start or the last timeout (Linux's `delay_min`).
    delay_min: Ns,
    /// Segments the round still waits for before it ends.
    left: i64,
    round_start: Ns,
    last_ack: Ns,
    curr_rtt: Ns,
    samples: u32,
}

const HYSTART_LOW_WINDOW: f64 = 16.0;
const HYSTART_MIN_SAMPLES: u32 = 8;
const HYSTART_ACK_DELTA: Ns = 2_000_000;
const HYSTART_DELAY_MIN: Ns = 4_000_000;
const HYSTART_DELAY_MAX: Ns = 16_000_000;

impl HyStart {
    fn reset_round(&mut self, now: Ns, flight: u32) {
        self.round_start = now;
        self.last_ack = now;
        self.left = flight as i64;
        self.curr_rtt = Ns::MAX;
        self.samples = 0;
    }

    /// One ACK in slow start: whether slow start ends here.
    fn on_ack(&mut self, w: &Window, ack: &AckInfo) -> bool {
        self.left -= ack.acked as i64;
        if self.left < 0 {
            self.reset_round(ack.now, ack.flight);
        }
        let Some(rtt) = ack.rtt_sample else {
            return false;
        };
        let rtt = rtt.max(1);
        if self.delay_min == 0 || rtt < self.delay_min {
            self.delay_min = rtt;
        }
        if self.found || w.cwnd < HYSTART_LOW_WINDOW {
            return false;
        }
        if ack.now.saturating_sub(self.last_ack) <= HYSTART_ACK_DELTA {
            self.last_ack = ack.now;
            if ack.now.saturating_sub(self.round_start) > self.delay_min / 2 {
                self.found = true;
            }
        }
        if !self.found {
            self.curr_rtt = self.curr_rtt.min(rtt);
            if self.samples < HYSTART_MIN_SAMPLES {
                self.samples += 1;
            } else if self.curr_rtt
                > self.delay_min + (self.delay_min / 8).clamp(HYSTART_DELAY_MIN, HYSTART_DELAY_MAX)
            {
                self.found = true;
            }
        }
        self.found
    }
}

impl Default for Cubic {
    fn default() -> Cubic {
        Cubic::with_beta(BETA)
    }
}

pub fn make(ctx: &CcContext) -> Box<dyn CongestionControl> {
    Box::new(
        Cubic::with_beta(BETA)
            .integer(ctx.tcp.cubic_integer)
            .reno_friendly(ctx.tcp.cubic_reno_friendly)
            .hystart(ctx.tcp.cubic_hystart),
    )
}

pub fn make_08(ctx: &CcContext) -> Box<dyn CongestionControl> {
    Box::new(
        Cubic::with_beta(BETA_OLD)
            .integer(ctx.tcp.cubic_integer)
            .reno_friendly(ctx.tcp.cubic_reno_friendly)
            .hystart(ctx.tcp.cubic_hystart),
    )
}

impl Cubic {
    pub fn with_beta(beta: f64) -> Cubic {
        Cubic {
            beta,
            alpha: 3.0 * (1.0 - beta) / (1.0 + beta),
            w_max: 0.0,
            epoch_start: None,
            k: 0.0,
            origin: 0.0,
            w_est: 0.0,
            rtt_min: None,
            integer: false,
            friendly: true,
            ack_cnt: 0,
            tcp_cwnd: 0,
            cwnd_cnt: 0,
            hs: None,
        }
    }

    /// HyStart on (`true`, Linux's default; the linux profile's `cubic_hystart`) or off.
    pub fn hystart(mut self, on: bool) -> Cubic {
        self.hs = on.then(HyStart::default);
        self
    }

    /// Linux's integer arithmetic on (`true`) or the continuous CUBIC (`false`, the default).
    pub fn integer(mut self, on: bool) -> Cubic {
        self.integer = on;
        self
    }

    /// The Reno-friendly region on (`true`, RFC 9438 and Linux, the default) or off (ns-3 3.37).
    pub fn reno_friendly(mut self, on: bool) -> Cubic {
        self.friendly = on;
        self
    }

    /// β in Linux's 1024ths (717 for 0.7, 819 for 0.8).
    fn beta_1024(&self) -> u64 {
        (self.beta * 1024.0).round() as u64
    }

    /// Integer mode, congestion avoidance: Linux's `bictcp_update` then `tcp_cong_avoid_ai`.
    fn on_ack_integer(&mut self, w: &mut Window, ack: &AckInfo) {
        let cwnd = (w.cwnd.floor() as u64).max(1);
        let acked = ack.acked as u64;
        self.ack_cnt += acked;
        if self.epoch_start.is_none() {
            self.start_epoch(
                &Window {
                    cwnd: cwnd as f64,
                    ..*w
                },
                ack.now,
            );
            self.ack_cnt = acked;
            self.tcp_cwnd = cwnd;
        }
        let t =
            secs(ack.now - self.epoch_start.unwrap_or(ack.now)) + self.rtt_min.map_or(0.0, secs);
        let d = t - self.k;
        let delta = (C * d.abs().powi(3)).floor();
        let target = if d < 0.0 {
            (self.origin - delta).max(0.0)
        } else {
            self.origin + delta
        } as u64;
        let mut cnt = if target > cwnd {
            cwnd / (target - cwnd)
        } else {
            100 * cwnd
        };
        if self.w_max == 0.0 && cnt > 20 {
            cnt = 20;
        }
        // Reno-friendly estimate: one whole segment per ⌊cwnd·s/8⌋ acknowledged.
        let b = self.beta_1024();
        let scale = 8 * (1024 + b) / 3 / (1024 - b);
        let per = ((cwnd * scale) >> 3).max(1);
        while self.ack_cnt > per {
            self.ack_cnt -= per;
            self.tcp_cwnd += 1;
        }
        if self.friendly && self.tcp_cwnd > cwnd {
            cnt = cnt.min(cwnd / (self.tcp_cwnd - cwnd));
        }
        let cnt = cnt.max(2);
        // tcp_cong_avoid_ai: credits from a larger cnt first, then this ACK's.
        let mut c = cwnd;
        if self.cwnd_cnt >= cnt {
            self.cwnd_cnt = 0;
            c += 1;
        }
        self.cwnd_cnt += acked;
        if self.cwnd_cnt >= cnt {
            let d = self.cwnd_cnt / cnt;
            self.cwnd_cnt -= d * cnt;
            c += d;
        }
        w.cwnd = c as f64;
    }

    pub fn beta(&self) -> f64 {
        self.beta
    }

    /// The cubic window W(t) of the current epoch, t seconds after its start.
    pub fn w_cubic(&self, t: f64) -> f64 {
        let d = t - self.k;
        C * d * d * d + self.origin
    }

    /// K of the current epoch, seconds.
    pub fn k(&self) -> f64 {
        self.k
    }

    /// W_max remembered from the last loss (0 after a timeout or before any loss).
    pub fn w_max(&self) -> f64 {
        self.w_max
    }

    fn start_epoch(&mut self, w: &Window, now: Ns) {
        self.epoch_start = Some(now);
        self.w_est = w.cwnd;
        if self.w_max <= w.cwnd {
            self.k = 0.0;
            self.origin = w.cwnd;
        } else {
            self.k = ((self.w_max - w.cwnd) / C).cbrt();
            self.origin = self.w_max;
        }
    }
}

impl CongestionControl for Cubic {
    fn on_ack(&mut self, w: &mut Window, ack: &AckInfo) {
        if let Some(s) = ack.rtt_sample {
            self.rtt_min = Some(self.rtt_min.map_or(s, |m| m.min(s)));
        }
        if w.cwnd < w.ssthresh {
            if !self.hs.as_mut().is_some_and(|hs| hs.on_ack(w, ack)) {
                slow_start(w, ack.acked);
                return;
            }
            // HyStart ends slow start: ssthresh at the window, and this ACK already grows it as
            // congestion avoidance does (Linux's pkts_acked hook runs before cong_avoid)
            w.ssthresh = w.cwnd;
        }
        if self.integer {
            self.on_ack_integer(w, ack);
            return;
        }
        if self.epoch_start.is_none() {
            self.start_epoch(w, ack.now);
        }
        let acked = ack.acked as f64;
        let t =
            secs(ack.now - self.epoch_start.unwrap_or(ack.now)) + self.rtt_min.map_or(0.0, secs);
        let target = self.w_cubic(t);
        // cwnd grows by acked / cnt; cnt = number of ACKed segments per +1 segment.
        let mut cnt = if target > w.cwnd {
            w.cwnd / (target - w.cwnd)
        } else {
            100.0 * w.cwnd
        };
        if self.w_max == 0.0 && cnt > 20.0 {
            cnt = 20.0;
        }
        if self.friendly {
            self.w_est += self.alpha * acked / w.cwnd;
            if self.w_est > w.cwnd {
                cnt = cnt.min(w.cwnd / (self.w_est - w.cwnd));
            }
        }
        w.cwnd += acked / cnt.max(2.0);
    }

    fn ssthresh_on_loss(&mut self, w: &Window, _flight: u32, _now: Ns) -> f64 {
        self.epoch_start = None;
        if self.integer {
            // Linux: W_max and ssthresh in whole segments, rounded down; the ACK counter restarts.
            let cwnd = (w.cwnd.floor() as u64).max(1);
            let b = self.beta_1024();
            self.w_max = if (cwnd as f64) < self.w_max {
                (cwnd * (1024 + b) / 2048) as f64
            } else {
                cwnd as f64
            };
            self.cwnd_cnt = 0;
            return ((cwnd * b / 1024) as f64).max(2.0);
        }
        self.w_max = if w.cwnd < self.w_max {
            w.cwnd * (1.0 + self.beta) / 2.0
        } else {
            w.cwnd
        };
        (w.cwnd * self.beta).max(2.0)
    }

    fn on_timeout(&mut self, w: &mut Window, flight: u32, now: Ns) {
        w.ssthresh = self.ssthresh_on_loss(w, flight, now);
        // A fresh epoch, the flow's own settings kept (integer arithmetic, the Reno-friendly switch)
        *self = Cubic {
            rtt_min: self.rtt_min,
            ..Cubic::with_beta(self.beta)
                .integer(self.integer)
                .reno_friendly(self.friendly)
                .hystart(self.hs.is_some())
        };
    }
}

#[cfg(test)]
mod tests;
