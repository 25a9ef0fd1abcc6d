//! BBR (version 1), as Linux's `net/ipv4/tcp_bbr.c` runs it (Cardwell, Cheng, Gunn, Hassas
//! Yeganeh, Jacobson, "BBR: Congestion-Based Congestion Control", ACM Queue 2016; the IETF
//! draft draft-cardwell-iccrg-bbr-congestion-control-00 describes the same algorithm).
//!
//! The model: `bw` = the largest delivery-rate sample of the last 10 packet-timed round trips
//! (a running windowed maximum), `min_rtt` = the smallest RTT sample of the last 10 s. The
//! flow paces at `pacing_gain × bw` and caps what is in flight at `cwnd_gain × bw × min_rtt`
//! (+ Linux's allowances, below). Modes:
//!
//! - STARTUP: both gains 2/ln 2 (Linux's 739/256 ≈ 2.887) until the bandwidth estimate grew by
//!   less than 25 % in three consecutive rounds ("full bandwidth reached");
//! - DRAIN: pacing gain 88/256 (≈ 1/2.885) until what is in flight falls to the estimated BDP;
//! - PROBE_BW: cwnd gain 2 and a pacing-gain cycle of eight phases, 5/4, 3/4, 1 × 6, each at
//!   least `min_rtt` long; the 5/4 phase lasts until inflight reaches 5/4 BDP or a loss, the
//!   3/4 phase ends early once inflight is down to the BDP; the cycle starts at a random phase
//!   other than 3/4 (a per-flow stream of the scenario seed);
//! - PROBE_RTT: entered when the min-RTT estimate is 10 s old; cwnd 4 until it has held at most
//!   4 segments in flight for 200 ms and one round, then back to PROBE_BW (or STARTUP).
//!
//! Loss: the first round of a recovery sends one segment per segment delivered (packet
//! conservation: cwnd = inflight + delivered); later rounds grow cwnd by what is delivered,
//! toward the target; each ACK takes the segments it marked lost off cwnd; leaving recovery
//! restores the cwnd saved on entry. A timeout leaves cwnd 1 (the sender's) and the estimates
//! in place. Also as Linux: the cwnd target adds the ACK-aggregation allowance (the largest
//! excess of ACKed data over `bw × elapsed` in the last 5-10 rounds) and the "quantization
//! budget" of 3 × the TSO goal (1 ms of data at the pacing rate, at least 2 segments above
//! 1.2 Mb/s), rounds up to an even number, and adds 2 in the 5/4 phase; pacing is 1 % below
//! `gain × bw`; the long-term ("policer") estimator switches to the mean delivery rate of two
//! consecutive lossy intervals (≥ 20 % loss, rates within 1/8) for 48 rounds.
//!
//! Approximations: rates and gains are floating point (Linux: fixed point, 2^-24 packets/µs and
//! 1/256); times are the engine's exact nanoseconds (Linux: µs, and jiffies for the 10-s and
//! 200-ms timers); delayed-ACK detection for the min-RTT filter (`is_ack_delayed`) and the
//! restart-from-idle event are not modelled (bulk senders are never idle).
use super::cc::{AckInfo, CaState, CcContext, CongestionControl, ConnState, RateSample, Window};
use crate::rng::Rng;
use crate::time::Ns;

mod filter;
mod lt;

pub use filter::MaxFilter;

/// Stream numbers of the per-flow draws of the starting gain phase: this base plus the flow.
pub const STREAM_BBR_BASE: u64 = 0x4242_5231_0000_0000;

/// Phases of the PROBE_BW gain cycle.
pub const CYCLE_LEN: usize = 8;
/// Window of the max-bandwidth filter, in packet-timed round trips.
pub const BW_WINDOW_ROUNDS: u64 = CYCLE_LEN as u64 + 2;
/// Window of the min-RTT filter.
pub const MIN_RTT_WINDOW: Ns = 10_000_000_000;
/// Least time at the minimum window in PROBE_RTT.
pub const PROBE_RTT_TIME: Ns = 200_000_000;
/// STARTUP's gains: Linux's BBR_UNIT × 2885 / 1000 + 1 = 739 / 256.
pub const HIGH_GAIN: f64 = 739.0 / 256.0;
/// DRAIN's pacing gain: BBR_UNIT × 1000 / 2885 = 88 / 256.
pub const DRAIN_GAIN: f64 = 88.0 / 256.0;
/// cwnd gain in PROBE_BW.
pub const CWND_GAIN: f64 = 2.0;
/// Pacing gains of the PROBE_BW cycle.
pub const PACING_GAINS: [f64; CYCLE_LEN] = [1.25, 0.75, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0];
/// The least cwnd outside PROBE_RTT, and PROBE_RTT's cwnd.
pub const CWND_MIN_TARGET: f64 = 4.0;
/// Linux's TCP_INIT_CWND: the cwnd target before any RTT sample.
const INIT_CWND: f64 = 10.0;
const CYCLE_RAND: u64 = 7;
const FULL_BW_THRESH: f64 = 1.25;
const FULL_BW_CNT: u32 = 3;
const PACING_MARGIN: f64 = 0.99;
/// Pacing rates below this (bytes/s) send one-segment TSO bursts, above it two.
const MIN_TSO_RATE_BYTES: f64 = 1_200_000.0 / 8.0;
/// Linux's GSO_LEGACY_MAX_SIZE - 1 - MAX_TCP_HEADER (x86-64).
const TSO_MAX_BYTES: f64 = 65_536.0 - 1.0 - 320.0;
// ACK aggregation.
const EXTRA_ACKED_WIN_RTTS: u32 = 5;
const ACK_EPOCH_RESET: u64 = 1 << 20;
const EXTRA_ACKED_MAX: Ns = 100_000_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Startup,
    Drain,
    ProbeBw,
    ProbeRtt,
}

pub struct Bbr {
    pub mode: Mode,
    started: bool,
    prev_state: CaState,
    packet_conservation: bool,
    round_start: bool,
    probe_rtt_round_done: bool,
    /// Smallest RTT of the filter window, ns (u64::MAX before any sample), and when it was set.
    pub min_rtt: Ns,
    min_rtt_stamp: Ns,
    probe_rtt_done: Option<Ns>,
    bw: MaxFilter,
    /// Packet-timed round trips so far.
    pub rtt_cnt: u64,
    next_rtt_delivered: u64,
    cycle_stamp: Ns,
    pub cycle_idx: usize,
    pub pacing_gain: f64,
    pub cwnd_gain: f64,
    pub full_bw_reached: bool,
    full_bw: f64,
    full_bw_cnt: u32,
    has_seen_rtt: bool,
    prior_cwnd: f64,
    /// Pacing rate, segments per second.
    pub pacing_rate: f64,
    mss: f64,
    // Long-term (policer) estimator.
    lt_is_sampling: bool,
    pub lt_use_bw: bool,
    lt_rtt_cnt: u32,
    lt_bw: f64,
    lt_last_delivered: u64,
    lt_last_stamp_ms: u64,
    lt_last_lost: u64,
    // ACK aggregation.
    ack_epoch_stamp: Ns,
    ack_epoch_acked: u64,
    extra_acked: [f64; 2],
    extra_acked_win_rtts: u32,
    extra_acked_win_idx: usize,
    // The connection as last seen (for the timeout, which comes without a sample).
    last_delivered: u64,
    last_delivered_time: Ns,
    last_lost: u64,
    rng: Rng,
}

pub fn make(ctx: &CcContext) -> Box<dyn CongestionControl> {
    Box::new(Bbr::new(
        ctx.tcp.initial_window as f64,
        (ctx.tcp.packet_bytes - ctx.tcp.header_bytes) as f64,
        ctx.seed,
        ctx.flow,
    ))
}

impl Bbr {
    pub fn new(initial_window: f64, mss: f64, seed: u64, flow: u64) -> Bbr {
        Bbr {
            mode: Mode::Startup,
            started: false,
            prev_state: CaState::Open,
            packet_conservation: false,
            round_start: false,
            probe_rtt_round_done: false,
            min_rtt: u64::MAX,
            min_rtt_stamp: 0,
            probe_rtt_done: None,
            bw: MaxFilter::default(),
            rtt_cnt: 0,
            next_rtt_delivered: 0,
            cycle_stamp: 0,
            cycle_idx: 0,
            pacing_gain: HIGH_GAIN,
            cwnd_gain: HIGH_GAIN,
            full_bw_reached: false,
            full_bw: 0.0,
            full_bw_cnt: 0,
            has_seen_rtt: false,
            prior_cwnd: 0.0,
            // Linux before any RTT sample: high_gain × cwnd per nominal 1 ms.
            pacing_rate: HIGH_GAIN * initial_window / 1e-3 * PACING_MARGIN,
            mss,
            lt_is_sampling: false,
            lt_use_bw: false,
            lt_rtt_cnt: 0,
            lt_bw: 0.0,
            lt_last_delivered: 0,
            lt_last_stamp_ms: 0,
            lt_last_lost: 0,
            ack_epoch_stamp: 0,
            ack_epoch_acked: 0,
            extra_acked: [0.0; 2],
            extra_acked_win_rtts: 0,
            extra_acked_win_idx: 0,
            last_delivered: 0,
            last_delivered_time: 0,
            last_lost: 0,
            rng: Rng::stream(seed, STREAM_BBR_BASE.wrapping_add(flow)),
        }
    }

    /// Linux's `bbr_init` runs when the connection is set up; here at the first call, which
    /// comes one round trip after the flow starts (the min-RTT stamp is reset by the first RTT
    /// sample either way).
    fn start(&mut self, now: Ns) {
        if !self.started {
            self.started = true;
            self.min_rtt_stamp = now;
            self.ack_epoch_stamp = now;
        }
    }

    /// The windowed maximum bandwidth, segments per second.
    pub fn max_bw(&self) -> f64 {
        self.bw.get()
    }

    /// The bandwidth the model uses: the long-term estimate when policed, else the maximum.
    pub fn bw(&self) -> f64 {
        if self.lt_use_bw {
            self.lt_bw
        } else {
            self.max_bw()
        }
    }

    fn bdp(&self, bw: f64, gain: f64) -> f64 {
        if self.min_rtt == u64::MAX {
            return INIT_CWND;
        }
        // ceil, as Linux rounds up "to avoid a negative feedback loop" (tolerating rounding
        // noise of the floating-point product).
        (bw * (self.min_rtt as f64 / 1e9) * gain - 1e-9)
            .ceil()
            .max(0.0)
    }

    fn tso_segs_goal(&self) -> f64 {
        let rate_bytes = self.pacing_rate * self.mss;
        let min_segs = if rate_bytes < MIN_TSO_RATE_BYTES {
            1.0
        } else {
            2.0
        };
        let bytes = (rate_bytes / 1024.0).floor().min(TSO_MAX_BYTES);
        (bytes / self.mss).floor().max(min_segs).min(127.0)
    }

    fn quantization_budget(&self, cwnd: f64) -> f64 {
        let mut cwnd = cwnd + 3.0 * self.tso_segs_goal();
        cwnd = 2.0 * (cwnd / 2.0).ceil(); // round up to even
        if self.mode == Mode::ProbeBw && self.cycle_idx == 0 {
            cwnd += 2.0;
        }
        cwnd
    }

    /// The in-flight target at `gain` (BDP plus the quantization budget).
    pub fn inflight(&self, bw: f64, gain: f64) -> f64 {
        self.quantization_budget(self.bdp(bw, gain))
    }

    fn in_net(&self, inflight: u32) -> f64 {
        // Segments leave the engine's sender at their pacing time (there is no queue of
        // segments stamped with future departure times), so Linux's EDT correction is only
        // the segment about to leave when the flight is growing.
        let mut x = inflight as f64;
        if self.pacing_gain > 1.0 {
            x += self.tso_segs_goal();
        }
        x
    }

    fn save_cwnd(&mut self, w: &Window) {
        if self.prev_state < CaState::Recovery && self.mode != Mode::ProbeRtt {
            self.prior_cwnd = w.cwnd;
        } else {
            self.prior_cwnd = self.prior_cwnd.max(w.cwnd);
        }
    }

    fn reset_probe_bw_mode(&mut self, now: Ns) {
        self.mode = Mode::ProbeBw;
        let r = (self.rng.next_f64() * CYCLE_RAND as f64) as usize;
        self.cycle_idx = CYCLE_LEN - 1 - r.min(CYCLE_RAND as usize - 1);
        self.advance_cycle_phase(now);
    }

    fn reset_mode(&mut self, now: Ns) {
        if self.full_bw_reached {
            self.reset_probe_bw_mode(now);
        } else {
            self.mode = Mode::Startup;
        }
    }

    fn advance_cycle_phase(&mut self, delivered_time: Ns) {
        self.cycle_idx = (self.cycle_idx + 1) % CYCLE_LEN;
        self.cycle_stamp = delivered_time;
    }

    fn update_bw(&mut self, rs: &RateSample, c: &ConnState, lost: u64) {
        self.round_start = false;
        let Some(bw) = rs.rate() else {
            return;
        };
        if rs.prior_delivered >= self.next_rtt_delivered {
            self.next_rtt_delivered = c.delivered;
            self.rtt_cnt += 1;
            self.round_start = true;
            self.packet_conservation = false;
        }
        self.lt_sampling(rs, c.delivered, c.delivered_time, lost);
        if !rs.is_app_limited || bw >= self.max_bw() {
            self.bw.update(BW_WINDOW_ROUNDS, self.rtt_cnt, bw);
        }
    }

    fn update_ack_aggregation(&mut self, rs: &RateSample, c: &ConnState, cwnd: f64) {
        if rs.acked_sacked == 0 || rs.rate().is_none() {
            return;
        }
        if self.round_start {
            self.extra_acked_win_rtts = (self.extra_acked_win_rtts + 1).min(0x1F);
            if self.extra_acked_win_rtts >= EXTRA_ACKED_WIN_RTTS {
                self.extra_acked_win_rtts = 0;
                self.extra_acked_win_idx = 1 - self.extra_acked_win_idx;
                self.extra_acked[self.extra_acked_win_idx] = 0.0;
            }
        }
        let epoch = c.delivered_time.saturating_sub(self.ack_epoch_stamp);
        let mut expected = (self.bw() * epoch as f64 / 1e9).floor();
        if self.ack_epoch_acked as f64 <= expected
            || self.ack_epoch_acked + rs.acked_sacked as u64 >= ACK_EPOCH_RESET
        {
            self.ack_epoch_acked = 0;
            self.ack_epoch_stamp = c.delivered_time;
            expected = 0.0;
        }
        self.ack_epoch_acked = (self.ack_epoch_acked + rs.acked_sacked as u64).min(0xFFFFF);
        let extra = (self.ack_epoch_acked as f64 - expected).min(cwnd);
        let slot = &mut self.extra_acked[self.extra_acked_win_idx];
        if extra > *slot {
            *slot = extra;
        }
    }

    fn ack_aggregation_cwnd(&self) -> f64 {
        if !self.full_bw_reached {
            return 0.0;
        }
        let max_aggr = (self.bw() * EXTRA_ACKED_MAX as f64 / 1e9).floor();
        self.extra_acked[0].max(self.extra_acked[1]).min(max_aggr)
    }

    fn is_next_cycle_phase(&self, rs: &RateSample, c: &ConnState) -> bool {
        let full_length = c.delivered_time.saturating_sub(self.cycle_stamp) > self.min_rtt;
        if self.pacing_gain == 1.0 {
            return full_length;
        }
        let inflight = self.in_net(rs.prior_in_flight);
        let bw = self.max_bw();
        if self.pacing_gain > 1.0 {
            return full_length
                && (rs.losses > 0 || inflight >= self.inflight(bw, self.pacing_gain));
        }
        full_length || inflight <= self.inflight(bw, 1.0)
    }

    fn check_full_bw_reached(&mut self, rs: &RateSample) {
        if self.full_bw_reached || !self.round_start || rs.is_app_limited {
            return;
        }
        if self.max_bw() >= self.full_bw * FULL_BW_THRESH {
            self.full_bw = self.max_bw();
            self.full_bw_cnt = 0;
            return;
        }
        self.full_bw_cnt += 1;
        self.full_bw_reached = self.full_bw_cnt >= FULL_BW_CNT;
    }

    fn check_drain(&mut self, w: &mut Window, c: &ConnState) {
        if self.mode == Mode::Startup && self.full_bw_reached {
            self.mode = Mode::Drain;
            w.ssthresh = self.inflight(self.max_bw(), 1.0);
        }
        if self.mode == Mode::Drain && self.in_net(c.in_flight) <= self.inflight(self.max_bw(), 1.0)
        {
            self.reset_probe_bw_mode(c.delivered_time);
        }
    }

    fn check_probe_rtt_done(&mut self, w: &mut Window, now: Ns) {
        if !matches!(self.probe_rtt_done, Some(t) if now > t) {
            return;
        }
        self.min_rtt_stamp = now;
        w.cwnd = w.cwnd.max(self.prior_cwnd);
        self.reset_mode(now);
    }

    /// Returns true while in PROBE_RTT (the sender marks the connection app-limited).
    fn update_min_rtt(&mut self, w: &mut Window, rs: &RateSample, c: &ConnState) -> bool {
        let expired = c.now > self.min_rtt_stamp + MIN_RTT_WINDOW;
        if let Some(r) = rs.rtt {
            if r < self.min_rtt || expired {
                self.min_rtt = r;
                self.min_rtt_stamp = c.now;
            }
        }
        if expired && self.mode != Mode::ProbeRtt {
            self.mode = Mode::ProbeRtt;
            self.save_cwnd(w);
            self.probe_rtt_done = None;
        }
        if self.mode != Mode::ProbeRtt {
            return false;
        }
        if self.probe_rtt_done.is_none() && c.in_flight as f64 <= CWND_MIN_TARGET {
            self.probe_rtt_done = Some(c.now + PROBE_RTT_TIME);
            self.probe_rtt_round_done = false;
            self.next_rtt_delivered = c.delivered;
        } else if self.probe_rtt_done.is_some() {
            if self.round_start {
                self.probe_rtt_round_done = true;
            }
            if self.probe_rtt_round_done {
                self.check_probe_rtt_done(w, c.now);
            }
        }
        // Linux marks app-limited while in PROBE_RTT (also on the ACK that leaves it).
        true
    }

    fn update_gains(&mut self) {
        let (p, c) = match self.mode {
            Mode::Startup => (HIGH_GAIN, HIGH_GAIN),
            Mode::Drain => (DRAIN_GAIN, HIGH_GAIN),
            Mode::ProbeBw => (
                if self.lt_use_bw {
                    1.0
                } else {
                    PACING_GAINS[self.cycle_idx]
                },
                CWND_GAIN,
            ),
            Mode::ProbeRtt => (1.0, 1.0),
        };
        self.pacing_gain = p;
        self.cwnd_gain = c;
    }

    fn set_pacing_rate(&mut self, bw: f64, gain: f64, w: &Window, c: &ConnState) {
        let rate = bw * gain * PACING_MARGIN;
        if !self.has_seen_rtt {
            if let Some(srtt) = c.srtt.filter(|&s| s > 0) {
                self.has_seen_rtt = true;
                self.pacing_rate = HIGH_GAIN * w.cwnd / (srtt as f64 / 1e9) * PACING_MARGIN;
            }
        }
        if self.full_bw_reached || rate > self.pacing_rate {
            self.pacing_rate = rate;
        }
    }

    /// Linux `bbr_set_cwnd_to_recover_or_restore`: true when packet conservation sets cwnd.
    fn recover_or_restore(&mut self, rs: &RateSample, c: &ConnState, cwnd: &mut f64) -> bool {
        let acked = rs.acked_sacked as f64;
        if rs.losses > 0 {
            *cwnd = (*cwnd - rs.losses as f64).max(1.0);
        }
        let (prev, state) = (self.prev_state, c.state);
        if state == CaState::Recovery && prev != CaState::Recovery {
            self.packet_conservation = true;
            self.next_rtt_delivered = c.delivered; // the round starts now
            *cwnd = c.in_flight as f64 + acked;
        } else if prev >= CaState::Recovery && state < CaState::Recovery {
            *cwnd = cwnd.max(self.prior_cwnd);
            self.packet_conservation = false;
        }
        self.prev_state = state;
        if self.packet_conservation {
            *cwnd = cwnd.max(c.in_flight as f64 + acked);
            return true;
        }
        false
    }

    fn set_cwnd(&mut self, w: &mut Window, rs: &RateSample, c: &ConnState) {
        let acked = rs.acked_sacked as f64;
        let mut cwnd = w.cwnd;
        if acked > 0.0 && !self.recover_or_restore(rs, c, &mut cwnd) {
            let bw = self.bw();
            let mut target = self.bdp(bw, self.cwnd_gain);
            target += self.ack_aggregation_cwnd();
            target = self.quantization_budget(target);
            if self.full_bw_reached {
                cwnd = (cwnd + acked).min(target);
            } else if cwnd < target || (c.delivered as f64) < INIT_CWND {
                cwnd += acked;
            }
            cwnd = cwnd.max(CWND_MIN_TARGET);
        }
        w.cwnd = cwnd;
        if self.mode == Mode::ProbeRtt {
            w.cwnd = w.cwnd.min(CWND_MIN_TARGET);
        }
    }
}

impl CongestionControl for Bbr {
    /// The window is set in `on_rate_sample`, on every ACK.
    fn on_ack(&mut self, _w: &mut Window, _ack: &AckInfo) {}

    /// Entering recovery: remember cwnd (restored when recovery ends); ssthresh is untouched.
    fn ssthresh_on_loss(&mut self, w: &Window, _flight: u32, now: Ns) -> f64 {
        self.start(now);
        self.save_cwnd(w);
        w.ssthresh
    }

    /// Linux `tcp_enter_loss` + `bbr_set_state(TCP_CA_Loss)`: save cwnd (unless a recovery
    /// already did), forget the full-bandwidth count, treat the timeout as a round's end and
    /// as a loss for the long-term estimator. The sender then sets cwnd to 1.
    fn on_timeout(&mut self, w: &mut Window, flight: u32, now: Ns) {
        self.start(now);
        if self.prev_state == CaState::Open {
            self.save_cwnd(w);
        }
        self.prev_state = CaState::Loss;
        self.full_bw = 0.0;
        self.round_start = true;
        let rs = RateSample {
            losses: 1,
            ..RateSample::default()
        };
        let lost = self.last_lost + flight as u64;
        self.last_lost = lost;
        let (d, t) = (self.last_delivered, self.last_delivered_time);
        self.lt_sampling(&rs, d, t, lost);
    }

    fn pacing_rate(&self, _w: &Window, _srtt: Option<Ns>) -> Option<f64> {
        Some(self.pacing_rate)
    }

    fn on_rate_sample(&mut self, w: &mut Window, rs: &RateSample, c: &ConnState) -> bool {
        self.start(c.now);
        self.mss = c.mss as f64;
        let lost = c.lost;
        self.last_lost = lost;
        self.last_delivered = c.delivered;
        self.last_delivered_time = c.delivered_time;
        self.update_bw(rs, c, lost);
        self.update_ack_aggregation(rs, c, w.cwnd);
        if self.mode == Mode::ProbeBw && self.is_next_cycle_phase(rs, c) {
            self.advance_cycle_phase(c.delivered_time);
        }
        self.check_full_bw_reached(rs);
        self.check_drain(w, c);
        let app_limited = self.update_min_rtt(w, rs, c);
        self.update_gains();
        let bw = self.bw();
        self.set_pacing_rate(bw, self.pacing_gain, w, c);
        self.set_cwnd(w, rs, c);
        app_limited
    }
}

#[cfg(test)]
mod tests;
