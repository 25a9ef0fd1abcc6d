//! TCP sender: window-based transmission, RTT estimation and RTO (RFC 6298), fast retransmit
//! and fast recovery (RFC 5681 / RFC 6582 NewReno). Sequence numbers count whole segments.
//!
//! Details chosen here (ns-2/ns-3 style):
//! - one segment is timed at a time for RTT samples; the timing is abandoned when anything is
//!   retransmitted (Karn's rule), so a sample never comes from a retransmitted segment;
//! - RTO = max(min_rto, SRTT + 4·RTTVAR) (clock granularity G = 0, the simulated clock is
//!   exact), doubled on each expiry up to max_rto; the backoff is cleared by the next valid
//!   RTT sample (RFC 6298 §5.7 lets the backed-off value stand until then);
//! - on RTO: ssthresh from the congestion control (Reno: max(FlightSize/2, 2), FlightSize =
//!   snd_nxt - snd_una, with SACK at most the pipe), cwnd = 1,
//!   go-back-N from the first unacknowledged segment, recover = highest sequence sent;
//! - the RTO timer restarts with the fast retransmission (Linux and ns-2 do so);
//! - NewReno fast recovery: cwnd = ssthresh + 3 on entry, +1 per further duplicate ACK,
//!   partial ACK retransmits the next hole and deflates cwnd by the amount acknowledged minus
//!   one; the RTO timer restarts on the first partial ACK (RFC 6582 §3.2 step 3, "Impatient")
//!   and on every later partial ACK that covers more than DupThresh segments (sparse holes, as
//!   RFC 6298 §5.3 / Linux), so dense losses (a slow-start overshoot) end in a timeout rather
//!   than one retransmission per RTT for many RTTs, while a few holes per window (CUBIC's
//!   overshoot) are repaired without one; a full ACK sets cwnd = ssthresh. Fast retransmit is
//!   not entered again unless the ACK covers more than `recover` (RFC 6582 §3.2 step 1; after a
//!   timeout "more than" is strict: an ACK of exactly recover + 1 repeated by go-back-N
//!   duplicates is no new loss).
//! - a timeout that interrupts a classic fast recovery keeps that recovery's ssthresh (Linux
//!   `tcp_enter_loss`), the congestion control seeing the deflated cwnd.
//! - Reno fast recovery: as above but the first ACK of new data ends recovery.
//! - model-based controls (BBR; `Registration::model`): the sender keeps delivery-rate samples
//!   (`rate.rs`), hands one to the control on every ACK after its loss detection and before it
//!   sends, and leaves cwnd to the control in recovery too (no inflation, deflation, PRR or
//!   reset to ssthresh); all of their segments are paced, retransmissions in SACK recovery
//!   included (as Linux paces every transmission); without SACK, duplicate ACKs count as
//!   delivered and out of the pipe (Linux's Reno `sacked_out`).
//! - loss detection (`TcpParams::loss_detection`): by default DupThresh duplicate ACKs, or with
//!   SACK DupThresh SACKed segments above a hole (RFC 6675 IsLost). With `Rack` and SACK,
//!   RACK-TLP (RFC 8985, as Linux): every segment keeps its last send time; a segment is lost
//!   once a segment sent after it has been delivered and RACK.rtt + reo_wnd have passed since
//!   it was sent (a reordering timer covers the wait), lost retransmissions included, and
//!   recovery starts on the first such loss; a tail-loss probe (PTO = 2·SRTT) replaces most
//!   timeouts at the end of a flight. After a timeout the sender resends what is deemed lost by
//!   the pipe (Linux's Loss state), not go-back-N by the window, so a retransmission lost again
//!   is repaired without a second timeout; and RTT samples are Linux's, one per ACK of data
//!   sent once (not one timed segment at a time). Without SACK, `Rack` falls back to duplicate
//!   ACKs. The engine sees the three timers as one deadline (`rto_deadline`, see [`Rack`]).
use super::cc::{AckInfo, CaState, CongestionControl, ConnState, Recovery, Window};
use super::params::{LossDetection, TcpParams};
use super::rate::RateSampler;
use super::receiver::OooSet;
use crate::time::{ns, Ns};
use std::collections::VecDeque;

// Per-segment flags of the RACK scoreboard.
/// Deemed lost (stays set after the retransmission, as Linux's `TCPCB_LOST`).
const LOST: u8 = 1;
/// The latest transmission is a retransmission still outstanding.
const RETRANS: u8 = 2;
/// Retransmitted at least once (its delivery gives an ambiguous RTT).
const EVER_RETRANS: u8 = 4;

/// The worst-case delayed-ACK time a tail-loss probe allows for when one segment is in flight
/// (RFC 8985 §7.2 WCDelAckT).
const WC_DELACK: Ns = 200_000_000;

/// RACK-TLP state (RFC 8985) of a sender with `loss_detection = "rack"` and SACK.
///
/// The engine sees one timer (`Sender::rto_deadline`); with RACK it is the earliest of three,
/// kept here: the retransmission timeout, the reordering timer and the probe timeout. Between
/// calls `rto_deadline` holds that earliest deadline; inside a call it holds the RTO, so the
/// shared code keeps managing the RTO as before.
#[derive(Debug, Clone)]
pub struct Rack {
    /// Send time and flags of every segment in [snd_una, snd_max), front = snd_una.
    segs: VecDeque<(Ns, u8)>,
    /// Send time and end (seq + 1) of the most recently sent segment delivered so far.
    xmit_ts: Ns,
    end_seq: u32,
    /// RTT of that segment.
    rtt: Ns,
    /// Smallest unambiguous RTT seen (over the whole connection), ns; u64::MAX before any.
    min_rtt: Ns,
    /// A never-retransmitted segment was delivered below a SACKed one (reordering).
    reord_seen: bool,
    /// One past the highest segment delivered (for the reordering test).
    high_delivered: u32,
    /// The delivered state advanced since the last loss detection.
    advanced: bool,
    /// Lowest segment that may be lost and not yet retransmitted.
    rxt_from: u32,
    /// Deadlines, 0 = not armed.
    rto_at: Ns,
    reo_at: Ns,
    tlp_at: Ns,
    /// Outstanding probe: snd_max after it, whether it was a retransmission, and the
    /// recovery/timeout counts when it was sent.
    tlp: Option<(u32, bool, u64)>,
    /// After a timeout, until snd_una passes `recover` (no probes there).
    in_loss: bool,
    /// Tail-loss probes sent, and RACK reordering-timer expiries.
    pub probes: u64,
    pub reo_timeouts: u64,
}

impl Rack {
    fn new() -> Rack {
        Rack {
            segs: VecDeque::new(),
            xmit_ts: 0,
            end_seq: 0,
            rtt: 0,
            min_rtt: u64::MAX,
            reord_seen: false,
            high_delivered: 0,
            advanced: false,
            rxt_from: 0,
            rto_at: 0,
            reo_at: 0,
            tlp_at: 0,
            tlp: None,
            in_loss: false,
            probes: 0,
            reo_timeouts: 0,
        }
    }
}

/// RFC 8985 `RACK_sent_after`: was (t1, s1) sent after (t2, s2)?
#[inline]
fn sent_after(t1: Ns, s1: u32, t2: Ns, s2: u32) -> bool {
    t1 > t2 || (t1 == t2 && s1 > s2)
}

/// Field order is layout (repr(C)): sequence state, flags and the window first (one cache
/// line), then the RTT and timer state (two lines, with pacing), RTT sums and counters, and the
/// SACK scoreboard last.
#[derive(Debug, Clone)]
#[repr(C)]
pub struct Sender {
    pub snd_una: u32,
    pub snd_nxt: u32,
    /// One past the highest segment ever sent.
    pub snd_max: u32,
    /// Segments the application has to send (u32::MAX = unlimited).
    pub total: u32,
    pub dupacks: u32,
    pub dupthresh: u32,
    pub backoff: u32,
    pub in_recovery: bool,
    pub recovery: Recovery,
    /// SACK-based loss recovery (RFC 6675) instead of `recovery`.
    pub sack: bool,
    pub started: bool,
    pub done: bool,
    /// A partial ACK has been seen in the current recovery.
    partial_seen: bool,
    /// Classic recovery after a timeout: duplicate ACKs start a fast retransmit only once the
    /// cumulative ACK covers more than `recover` (RFC 6582 §3.2 step 1), not when it just
    /// reaches recover + 1 (where go-back-N duplicates produce duplicate ACKs).
    after_rto: bool,
    /// Proportional rate reduction (RFC 6937) in SACK recovery (its state is below).
    prr: bool,
    /// PRR as Linux's `tcp_cwnd_reduction` (`TcpParams::prr_linux`).
    prr_linux: bool,
    /// The congestion control may pace (its registration's flag; true unless the engine
    /// knows better): false skips asking it for a rate on every ACK.
    pub paced: bool,
    pub w: Window,
    /// Window cap (segments), f64::INFINITY when none.
    pub max_window: f64,
    /// Highest segment outstanding when recovery started; -1 before any.
    pub recover: i64,
    // RTT estimation (nanoseconds).
    pub srtt: Option<f64>,
    /// `srtt` in whole nanoseconds, as the congestion control sees it (converted once per
    /// sample rather than on every ACK).
    srtt_ns: Option<Ns>,
    pub rttvar: f64,
    pub rto: Ns,
    pub max_rto: Ns,
    /// Retransmission timer deadline (0 = stopped).
    pub rto_deadline: Ns,
    timing: Option<(u32, Ns)>,
    /// Pacing rate in segments per second (None = unpaced), from the congestion control.
    pub pace: Option<f64>,
    /// Earliest time the next paced segment may leave.
    next_send: Ns,
    /// When pacing held a segment back: the time the engine should call `fill` again (0 = none).
    pub wake_at: Ns,
    pub min_rto: Ns,
    /// Sum (ns) and number of the RTT samples taken (for the mean RTT a flow saw).
    pub rtt_sum: f64,
    pub rtt_samples: u64,
    /// The congestion control's draw (mean 1) for the gap after the next paced segment;
    /// None until asked (once per paced segment, so each segment consumes one draw).
    pace_draw: Option<f64>,
    // Counters (incremented by the engine's window test through `count`).
    pub retransmits: u64,
    pub timeouts: u64,
    pub fast_retransmits: u64,
    /// Highest segment retransmitted in SACK recovery (HighRxt), -1 = none.
    high_rxt: i64,
    // Incremental scoreboard (so an ACK costs O(1) amortized, not O(window)):
    /// Unsacked segments at or below this one are lost (IsLost); -1 = none. Only rises.
    lost_limit: i64,
    /// SACKed segments in [snd_una, snd_max).
    n_sacked: u32,
    /// Unsacked segments in [snd_una, lost_limit].
    lost_out: u32,
    /// Unsacked segments in [snd_una, high_rxt] (all of them were retransmitted).
    retrans_out: u32,
    // PRR state: data delivered and sent since recovery began, and FlightSize at its start.
    prr_delivered: u32,
    prr_out: u32,
    recover_fs: u32,
    /// The `dupthresh` highest SACKed segments, descending.
    top_sacked: Vec<u32>,
    /// Segments above snd_una reported by SACK (the scoreboard).
    sacked: OooSet,
    /// Delivery-rate samples for a model-based control (None for all others).
    pub rate: Option<Box<RateSampler>>,
    /// RACK-TLP loss detection (None: duplicate ACKs / RFC 6675's DupThresh).
    pub rack: Option<Box<Rack>>,
}

// The line boundaries described above (Flow keeps the sender 64-byte aligned).
const _: () = assert!(
    std::mem::offset_of!(Sender, recover) == 64
        && std::mem::offset_of!(Sender, rto_deadline) == 128
        && std::mem::offset_of!(Sender, min_rto) == 192
);

/// Events the sender reports so the engine can count them in the measurement window.
#[derive(Debug, Clone, Copy, Default)]
pub struct Report {
    /// Segments newly acknowledged by this ACK.
    pub acked: u32,
    pub timeout: bool,
    pub fast_retransmit: bool,
}

/// May one more segment be outstanding with `n` already out under window `wnd`? That is
/// `n < max(floor(wnd), 1)`, written without the floor (a libm call on baseline x86_64): for
/// an integer n, n < floor(w) exactly when n + 1 <= w; a NaN or sub-1 window allows one.
#[inline]
fn below_window(n: u32, wnd: f64) -> bool {
    n == 0 || (n as f64 + 1.0) <= wnd
}

impl Sender {
    /// Hand the connection to a model-based control (BBR): it owns cwnd and takes a
    /// delivery-rate sample on every ACK. Call once, right after [`Sender::new`].
    pub fn enable_rate_samples(&mut self, mss: u32) {
        self.rate = Some(Box::new(RateSampler::new(mss)));
        // The control's own packet conservation replaces PRR in recovery.
        self.prr = false;
    }

    pub fn new(cfg: &TcpParams, recovery: Recovery, total: u32) -> Sender {
        let iw = cfg.initial_window as f64;
        let max_window = cfg.max_window_packets.map_or(f64::INFINITY, |m| m as f64);
        Sender {
            w: Window {
                cwnd: iw.min(max_window),
                ssthresh: f64::INFINITY,
            },
            max_window,
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            total,
            dupacks: 0,
            dupthresh: cfg.dupack_threshold,
            in_recovery: false,
            recover: -1,
            recovery,
            partial_seen: false,
            after_rto: false,
            sack: cfg.sack,
            sacked: OooSet::default(),
            high_rxt: -1,
            n_sacked: 0,
            lost_limit: -1,
            lost_out: 0,
            retrans_out: 0,
            top_sacked: Vec::new(),
            prr: cfg.prr && cfg.sack,
            prr_linux: cfg.prr_linux,
            prr_delivered: 0,
            prr_out: 0,
            recover_fs: 0,
            paced: true,
            srtt: None,
            srtt_ns: None,
            rttvar: 0.0,
            rto: ns(cfg.initial_rto_s),
            backoff: 1,
            min_rto: ns(cfg.min_rto_s),
            max_rto: ns(cfg.max_rto_s),
            timing: None,
            rto_deadline: 0,
            pace: None,
            next_send: 0,
            pace_draw: None,
            wake_at: 0,
            started: false,
            done: false,
            retransmits: 0,
            timeouts: 0,
            fast_retransmits: 0,
            rtt_sum: 0.0,
            rtt_samples: 0,
            rate: None,
            rack: (cfg.sack && cfg.loss_detection == LossDetection::Rack)
                .then(|| Box::new(Rack::new())),
        }
    }

    /// Segments sent and not yet acknowledged.
    #[inline]
    pub fn flight(&self) -> u32 {
        self.snd_max - self.snd_una
    }

    #[inline]
    fn current_rto(&self) -> Ns {
        (self.rto.saturating_mul(self.backoff as u64)).min(self.max_rto)
    }

    #[inline]
    fn restart_timer(&mut self, now: Ns) {
        self.rto_deadline = now + self.current_rto();
    }

    fn rtt_sample(&mut self, r: Ns) {
        let r = r as f64;
        self.rtt_sum += r;
        self.rtt_samples += 1;
        match self.srtt {
            None => {
                self.srtt = Some(r);
                self.rttvar = r / 2.0;
            }
            Some(s) => {
                self.rttvar = 0.75 * self.rttvar + 0.25 * (s - r).abs();
                self.srtt = Some(0.875 * s + 0.125 * r);
            }
        }
        self.srtt_ns = self.srtt.map(|s| s as Ns);
        let rto = self.srtt.unwrap() + 4.0 * self.rttvar;
        self.rto = (rto.ceil() as Ns).max(self.min_rto).min(self.max_rto);
        self.backoff = 1;
    }

    /// Send what the window allows; `send(seq)` transmits one segment.
    #[inline]
    pub fn fill(&mut self, now: Ns, mut send: impl FnMut(u32)) {
        if self.rack.is_some() {
            let mark = self.rack_enter();
            if self.rack_in_loss() {
                self.sack_send(now, &mut send);
            } else {
                self.fill_inner(now, send);
            }
            self.rack_exit(now, mark);
        } else {
            self.fill_inner(now, send);
        }
    }

    #[inline]
    fn fill_inner(&mut self, now: Ns, mut send: impl FnMut(u32)) {
        let mut wnd = self.w.cwnd.min(self.max_window);
        self.wake_at = 0;
        if let Some(r) = &self.rate {
            if self.sack && self.in_recovery {
                // A model-based control's recovery sends (paced) from the scoreboard.
                self.sack_send(now, &mut send);
                return;
            }
            // Duplicate ACKs without SACK: those segments left the pipe.
            wnd = (self.w.cwnd + r.reno_sacked as f64).min(self.max_window);
        }
        while self.snd_nxt < self.total && below_window(self.snd_nxt - self.snd_una, wnd) {
            let seq = self.snd_nxt;
            if self.sack && seq < self.snd_max && self.sacked.has(self.snd_una, seq) {
                // Go-back-N after a timeout skips what the receiver already reported.
                self.snd_nxt += 1;
                continue;
            }
            if let Some(rate) = self.pace {
                if now < self.next_send {
                    self.wake_at = self.next_send;
                    break;
                }
                let scale = self.pace_draw.take().unwrap_or(1.0);
                self.next_send =
                    now.max(self.next_send) + ((scale * 1e9 / rate).ceil() as Ns).max(1);
            }
            self.transmit(now, seq, &mut send);
            self.snd_nxt += 1;
            if self.snd_nxt > self.snd_max {
                self.snd_max = self.snd_nxt;
            }
        }
    }

    #[inline]
    fn transmit(&mut self, now: Ns, seq: u32, send: &mut impl FnMut(u32)) {
        if let Some(r) = self.rate.as_mut() {
            r.on_send(seq, now, self.snd_max == self.snd_una, seq < self.snd_max);
        }
        if seq < self.snd_max {
            self.retransmits += 1;
            self.timing = None; // Karn
        } else if self.timing.is_none() {
            self.timing = Some((seq, now));
        }
        if self.rto_deadline == 0 {
            self.restart_timer(now);
        }
        if self.rack.is_some() {
            self.rack_on_send(now, seq);
        }
        send(seq);
    }

    /// An ACK arrived with cumulative value `ack`, reporting segment `sacked` as received
    /// (u32::MAX: no SACK information).
    pub fn on_ack(
        &mut self,
        now: Ns,
        ack: u32,
        sacked: u32,
        cc: &mut dyn CongestionControl,
        send: impl FnMut(u32),
    ) -> Report {
        if self.rack.is_some() {
            let mark = self.rack_enter();
            let rep = self.on_ack_sack(now, ack, sacked, cc, send);
            self.rack_exit(now, mark);
            rep
        } else if self.sack {
            self.on_ack_sack(now, ack, sacked, cc, send)
        } else {
            self.on_ack_classic(now, ack, cc, send)
        }
    }

    /// Ask the congestion control for the pacing rate (before a transmission opportunity).
    #[inline]
    pub fn update_pacing(&mut self, cc: &dyn CongestionControl) {
        if !self.paced {
            return; // `pace` stays None
        }
        self.pace = cc.pacing_rate(&self.w, self.srtt_ns);
        if self.pace.is_some() && self.pace_draw.is_none() {
            self.pace_draw = Some(cc.pacing_gap_scale());
        }
    }

    /// RTT sample (Karn), snd_una advance; returns the number of segments newly acked.
    fn advance_una(&mut self, now: Ns, ack: u32) -> (u32, Option<Ns>) {
        let acked = ack - self.snd_una;
        let mut sample = None;
        if let Some((seq, t0)) = self.timing {
            if ack > seq {
                sample = Some(now - t0);
                self.rtt_sample(now - t0);
                self.timing = None;
            }
        }
        if let Some(rk) = self.rack.as_mut() {
            for s in self.snd_una..ack {
                let (_, fl) = rk.segs.pop_front().unwrap_or((0, 0));
                if self.sacked.take(s) {
                    self.n_sacked -= 1;
                } else {
                    if fl & LOST != 0 {
                        self.lost_out -= 1;
                    }
                    if fl & RETRANS != 0 {
                        self.retrans_out -= 1;
                    }
                }
            }
            if rk.rxt_from < ack {
                rk.rxt_from = ack;
            }
        } else if self.sack {
            for s in self.snd_una..ack {
                if self.sacked.take(s) {
                    self.n_sacked -= 1;
                } else {
                    if s as i64 <= self.lost_limit {
                        self.lost_out -= 1;
                    }
                    if s as i64 <= self.high_rxt {
                        self.retrans_out -= 1;
                    }
                }
            }
            self.top_sacked.retain(|&x| x >= ack);
        }
        self.snd_una = ack;
        if self.snd_nxt < self.snd_una {
            self.snd_nxt = self.snd_una;
        }
        (acked, sample)
    }

    /// Record a SACK for segment `s` (snd_una <= s < snd_max) and keep the counters; returns
    /// how many segments this newly deems lost.
    fn mark_sacked(&mut self, s: u32) -> u32 {
        if !self.sacked.insert(self.snd_una, s) {
            return 0;
        }
        let mut newly_lost = 0;
        self.n_sacked += 1;
        if let Some(rk) = self.rack.as_ref() {
            let fl = rk.segs[(s - self.snd_una) as usize].1;
            if fl & LOST != 0 {
                self.lost_out -= 1;
            }
            if fl & RETRANS != 0 {
                self.retrans_out -= 1;
            }
            return 0;
        }
        if s as i64 <= self.lost_limit {
            self.lost_out -= 1;
        }
        if s as i64 <= self.high_rxt {
            self.retrans_out -= 1;
        }
        let k = self.dupthresh as usize;
        let pos = self.top_sacked.partition_point(|&x| x > s);
        if pos < k {
            self.top_sacked.insert(pos, s);
            self.top_sacked.truncate(k);
        }
        if self.top_sacked.len() == k {
            // IsLost: DupThresh SACKed segments above (RFC 6675 §4, counted in segments).
            let cand = self.top_sacked[k - 1] as i64 - 1;
            if cand > self.lost_limit {
                let from = (self.lost_limit + 1).max(self.snd_una as i64);
                for q in from..=cand {
                    if !self.sacked.has(self.snd_una, q as u32) {
                        self.lost_out += 1;
                        newly_lost += 1;
                    }
                }
                self.lost_limit = cand;
            }
        }
        newly_lost
    }

    /// RFC 6675 SetPipe(): for each unsacked segment, 1 if not lost, plus 1 if retransmitted.
    #[inline]
    fn pipe(&self) -> u32 {
        (self.snd_max - self.snd_una) - self.n_sacked - self.lost_out + self.retrans_out
    }

    /// The same pipe from a full scan of the scoreboard (checks the counters in debug builds).
    #[cfg(debug_assertions)]
    fn scoreboard(&self) -> (i64, u32) {
        let mut above = 0u32;
        let mut lost_limit: i64 = -1;
        let mut pipe = 0u32;
        let mut s = self.snd_max;
        while s > self.snd_una {
            s -= 1;
            if self.sacked.has(self.snd_una, s) {
                above += 1;
                continue;
            }
            if lost_limit < 0 && above >= self.dupthresh {
                lost_limit = s as i64;
            }
            let lost = (s as i64) <= lost_limit;
            if !lost {
                pipe += 1;
            }
            if (s as i64) <= self.high_rxt {
                pipe += 1;
            }
        }
        (lost_limit, pipe)
    }

    /// RFC 6675 §5 step (C): while cwnd - pipe >= 1, send NextSeg(): the lowest lost segment
    /// not yet retransmitted, else new data. (The optional rules 3 and 4 of NextSeg, and the
    /// rescue retransmission, are not implemented.)
    fn sack_send(&mut self, now: Ns, send: &mut impl FnMut(u32)) -> u32 {
        let lost_limit = self.lost_limit;
        let mut pipe = self.pipe();
        let pipe0 = pipe;
        let wnd = self.w.cwnd.min(self.max_window);
        let mut next = (self.high_rxt + 1).max(self.snd_una as i64);
        // Model-based controls pace their recovery too.
        let pace = if self.rate.is_some() { self.pace } else { None };
        if pace.is_some() {
            self.wake_at = 0;
        }
        let rack = self.rack.is_some();
        while wnd - pipe as f64 >= 1.0 {
            if rack {
                next = self.rack_next_lost().map_or(i64::MAX, |q| q as i64);
            } else {
                while next <= lost_limit && self.sacked.has(self.snd_una, next as u32) {
                    next += 1;
                }
            }
            let lost_limit = if rack { i64::MAX - 1 } else { lost_limit };
            if let Some(rate) = pace {
                if next > lost_limit && self.snd_max >= self.total {
                    break;
                }
                if now < self.next_send {
                    self.wake_at = self.next_send;
                    break;
                }
                self.next_send = now.max(self.next_send) + ((1e9 / rate).ceil() as Ns).max(1);
            }
            if next <= lost_limit {
                let seq = next as u32;
                self.transmit(now, seq, send);
                if !rack {
                    // (RACK's transmit keeps its own per-segment counts)
                    self.high_rxt = next;
                    self.retrans_out += 1;
                } else if self.snd_nxt <= seq {
                    self.snd_nxt = seq + 1; // after a timeout: resent up to here
                }
                next += 1;
            } else if self.snd_max < self.total {
                let seq = self.snd_max;
                self.transmit(now, seq, send);
                self.snd_max += 1;
                self.snd_nxt = self.snd_max;
            } else {
                break;
            }
            pipe += 1;
        }
        pipe - pipe0
    }

    /// RFC 6937 §3: the window for this ACK of a SACK recovery, from the data delivered so far
    /// (`prr_delivered`), sent so far (`prr_out`) and by this ACK (`delivered`): in proportion
    /// ssthresh/RecoverFS while pipe > ssthresh, else slow start back up to ssthresh, at most one
    /// segment more than delivered (the PRR-SSRB bound). The first call sends the retransmission.
    ///
    /// With `prr_linux` (Linux's `tcp_cwnd_reduction`): an ACK that delivers nothing leaves cwnd
    /// as it is, and the one segment more than delivered is allowed only when `una_clean` (the
    /// ACK advanced snd_una and marked no new loss); `recover_fs` is then the window at the start
    /// of recovery (set there).
    fn prr_window(&mut self, delivered: u32, una_clean: bool) {
        if self.prr_linux && delivered == 0 && self.prr_out > 0 {
            return;
        }
        self.prr_delivered += delivered;
        let pipe = self.pipe() as f64;
        let ssthresh = self.w.ssthresh;
        let out = self.prr_out as f64;
        let extra = (!self.prr_linux || una_clean) as u32 as f64;
        let mut sndcnt = if pipe > ssthresh {
            (self.prr_delivered as f64 * ssthresh / self.recover_fs.max(1) as f64).ceil() - out
        } else {
            (ssthresh - pipe).min((self.prr_delivered as f64 - out).max(delivered as f64) + extra)
        };
        if self.prr_out == 0 {
            sndcnt = sndcnt.max(1.0);
        }
        self.w.cwnd = pipe + sndcnt.max(0.0);
    }

    /// New data acknowledged outside recovery: let the congestion control grow the window,
    /// then apply the window cap (`max_window_packets`).
    #[inline]
    fn grow(
        &mut self,
        cc: &mut dyn CongestionControl,
        acked: u32,
        now: Ns,
        rtt_sample: Option<Ns>,
        flight: u32,
    ) {
        let info = AckInfo {
            acked,
            now,
            rtt_sample,
            srtt: self.srtt_ns,
            flight,
        };
        cc.on_ack(&mut self.w, &info);
        if self.w.cwnd > self.max_window {
            self.w.cwnd = self.max_window;
        }
    }

    /// Finish the ACK's rate sample and let a model-based control set the window (Linux's
    /// `tcp_rate_gen` + `cong_control`); `in_flight` is the pipe, `delivered` the segments this
    /// ACK newly delivered.
    fn control(
        &mut self,
        now: Ns,
        mut r: Box<RateSampler>,
        cc: &mut dyn CongestionControl,
        delivered: u32,
        in_flight: u32,
    ) {
        let rs = r.finish_ack(now, delivered);
        let state = if self.in_recovery {
            CaState::Recovery
        } else if r.in_loss && self.snd_una as i64 <= self.recover {
            CaState::Loss
        } else {
            r.in_loss = false;
            CaState::Open
        };
        let c = ConnState {
            now,
            delivered: r.delivered,
            delivered_time: r.delivered_time,
            lost: r.lost,
            in_flight,
            state,
            srtt: self.srtt_ns,
            min_rtt: r.min_rtt,
            mss: r.mss,
        };
        let app_limited = cc.on_rate_sample(&mut self.w, &rs, &c);
        if self.w.cwnd > self.max_window {
            self.w.cwnd = self.max_window;
        }
        if app_limited || (self.snd_max >= self.total && (in_flight as f64) < self.w.cwnd) {
            r.mark_app_limited(in_flight);
        }
        self.rate = Some(r);
    }

    fn on_ack_sack(
        &mut self,
        now: Ns,
        ack: u32,
        sacked: u32,
        cc: &mut dyn CongestionControl,
        mut send: impl FnMut(u32),
    ) -> Report {
        let mut rep = Report::default();
        let valid = ack >= self.snd_una && ack <= self.snd_max;
        if !valid {
            return rep;
        }
        let flight_before = self.flight();
        let known_before = self.snd_una + self.n_sacked;
        let new_data = ack > self.snd_una;
        let mut rate = self.rate.take();
        let retx_before = self.retransmits;
        if let Some(r) = rate.as_mut() {
            r.begin_ack(self.pipe());
            for q in self.snd_una..ack {
                r.on_delivered(q, now);
            }
            r.release_below(ack);
        }
        let mut sample = None;
        let mut lost_now = 0u32; // segments this ACK newly deemed lost (for prr_linux)
        let sack_valid =
            sacked != u32::MAX && sacked >= self.snd_una && sacked < self.snd_max && sacked >= ack;
        let mut rack_rtt = None;
        if self.rack.is_some() {
            rack_rtt = self.rack_rtt_of_ack(now, ack, sack_valid.then_some(sacked));
            // RACK step 2: the most recently sent delivered segment, before the scoreboard
            // forgets the cumulatively acknowledged ones.
            for q in self.snd_una..ack {
                if !self.sacked.has(self.snd_una, q) {
                    self.rack_delivered(now, q);
                }
            }
            if sack_valid && !self.sacked.has(self.snd_una, sacked) {
                self.rack_delivered(now, sacked);
            }
        }
        if new_data {
            let (acked, smp) = self.advance_una(now, ack);
            rep.acked = acked;
            sample = smp;
        }
        if let Some(r) = rack_rtt {
            self.rtt_sample(r);
            sample = Some(r);
        }
        if sack_valid {
            let newly_lost = self.mark_sacked(sacked);
            lost_now += newly_lost;
            if let Some(r) = rate.as_mut() {
                r.on_delivered(sacked, now);
                r.on_lost(newly_lost);
            }
        }
        if self.rack.is_some() {
            self.rack_tlp_acked(now, cc, rate.is_some());
            if self.rack.as_ref().is_some_and(|rk| rk.advanced) {
                let newly_lost = self.rack_detect(now);
                lost_now += newly_lost;
                if let Some(r) = rate.as_mut() {
                    r.on_lost(newly_lost);
                }
            }
        }
        // RFC 6937 DeliveredData: segments newly known to have arrived (cumulatively or SACKed)
        let delivered = (self.snd_una + self.n_sacked).saturating_sub(known_before);
        if new_data {
            if self.in_recovery && ack as i64 > self.recover {
                self.in_recovery = false;
                self.dupacks = 0;
                if self.prr {
                    self.w.cwnd = self.w.ssthresh; // RFC 6937: cwnd = ssthresh when recovery ends
                }
            } else if !self.in_recovery {
                self.dupacks = 0;
                self.grow(cc, rep.acked, now, sample, flight_before);
            }
            if self.snd_una == self.snd_max {
                self.rto_deadline = 0;
                if self.snd_una >= self.total {
                    self.done = true;
                }
            } else {
                self.restart_timer(now);
            }
        } else if self.snd_una < self.snd_max {
            self.dupacks += 1;
        }
        if !self.in_recovery && self.snd_una < self.snd_max && ack as i64 > self.recover {
            // RFC 6675 §5 step (4): enter recovery on DupThresh duplicate ACKs or when the
            // scoreboard already deems the first unacknowledged segment lost.
            let trigger = if self.rack.is_some() {
                // RACK: a segment has been deemed lost by time.
                self.lost_out > self.retrans_out
            } else {
                self.dupacks >= self.dupthresh
                    || (self.lost_limit >= self.snd_una as i64
                        && !self.sacked.has(self.snd_una, self.snd_una))
            };
            if trigger && self.rack.is_some() {
                self.rate = rate.take();
                self.rack_enter_recovery(now, cc, &mut send);
                rep.fast_retransmit = true;
                rate = self.rate.take();
            } else if trigger {
                let flight = self.flight();
                self.w.ssthresh = cc.ssthresh_on_loss(&self.w, flight, now);
                self.recover = self.snd_max as i64 - 1;
                self.in_recovery = true;
                self.fast_retransmits += 1;
                rep.fast_retransmit = true;
                let seq = self.snd_una;
                if let Some(r) = rate.as_mut() {
                    if (seq as i64) > self.lost_limit {
                        r.on_lost(1); // the head is deemed lost by the duplicate ACKs
                    }
                }
                // (rate is out of self here: this transmission is recorded below)
                self.rate = rate.take();
                self.transmit(now, seq, &mut send);
                rate = self.rate.take();
                // RFC 6675 §5 (4.3): HighRxt = the segment just retransmitted (even if an
                // earlier recovery had gone higher), so only it counts as retransmitted.
                self.high_rxt = seq as i64;
                self.retrans_out = 1;
                self.restart_timer(now);
                if self.prr {
                    // RFC 6937: the window falls with the deliveries, not at once
                    self.recover_fs = if self.prr_linux {
                        self.w.cwnd.ceil() as u32 // Linux's prior_cwnd
                    } else {
                        flight
                    };
                    self.prr_delivered = 0;
                    self.prr_out = 1;
                } else if rate.is_none() {
                    self.w.cwnd = self.w.ssthresh;
                }
            }
        }
        if let Some(r) = rate {
            // The control sees the pipe as it was before this ACK's retransmissions.
            let pipe = self
                .pipe()
                .saturating_sub((self.retransmits - retx_before) as u32);
            self.control(now, r, cc, delivered, pipe);
            self.update_pacing(cc);
        }
        if self.in_recovery {
            if self.prr {
                self.prr_window(delivered, new_data && lost_now == 0);
            }
            let sent = self.sack_send(now, &mut send);
            self.prr_out += sent;
        } else if self.rack_in_loss() {
            self.update_pacing(cc);
            self.sack_send(now, &mut send);
        } else {
            self.update_pacing(cc);
            self.fill_inner(now, send);
        }
        #[cfg(debug_assertions)]
        if self.snd_max - self.snd_una < 4096 {
            // The full scan is O(window): checked for windows below 4096 segments.
            let full = if self.rack.is_some() {
                self.rack_scoreboard()
            } else {
                self.scoreboard().1
            };
            debug_assert_eq!(self.pipe(), full, "incremental SACK scoreboard drifted");
        }
        rep
    }

    fn on_ack_classic(
        &mut self,
        now: Ns,
        ack: u32,
        cc: &mut dyn CongestionControl,
        mut send: impl FnMut(u32),
    ) -> Report {
        let mut rep = Report::default();
        // Model-based control: segments newly delivered, and retransmissions before the count.
        let mut newly_delivered = 0u32;
        let retx_before = self.retransmits;
        if let Some(r) = self.rate.as_mut() {
            r.begin_ack((self.snd_max - self.snd_una).saturating_sub(r.reno_sacked));
        }
        if ack > self.snd_una && ack <= self.snd_max {
            let acked = ack - self.snd_una;
            let flight_before = self.flight();
            let mut sample = None;
            if let Some((seq, t0)) = self.timing {
                if ack > seq {
                    sample = Some(now - t0);
                    self.rtt_sample(now - t0);
                    self.timing = None;
                }
            }
            if let Some(r) = self.rate.as_mut() {
                for q in self.snd_una..ack {
                    r.on_delivered(q, now);
                }
                r.release_below(ack);
                // Linux's Reno bookkeeping: one segment filled the hole, the rest had already
                // been counted by their duplicate ACKs.
                newly_delivered = acked.saturating_sub(r.reno_sacked).max(1);
                r.reno_sacked = r.reno_sacked.saturating_sub(acked - 1);
            }
            self.snd_una = ack;
            if self.snd_nxt < self.snd_una {
                self.snd_nxt = self.snd_una;
            }
            rep.acked = acked;
            if self.in_recovery {
                let full = ack as i64 > self.recover;
                if full || self.recovery == Recovery::Reno {
                    self.in_recovery = false;
                    if let Some(r) = self.rate.as_mut() {
                        r.reno_sacked = 0;
                    } else {
                        self.w.cwnd = self.w.ssthresh.min(self.max_window);
                    }
                    self.dupacks = 0;
                } else {
                    // Partial ACK (RFC 6582 §3.2 step 3): retransmit the next hole, deflate.
                    let seq = self.snd_una;
                    if let Some(r) = self.rate.as_mut() {
                        r.on_lost(1); // the new head is deemed lost
                    }
                    self.transmit(now, seq, &mut send);
                    if self.rate.is_none() {
                        self.w.cwnd = (self.w.cwnd - acked as f64 + 1.0).max(1.0);
                    }
                    // Timer: the first partial ACK restarts it (RFC 6582's "Impatient"
                    // variant), and so does every partial ACK that covers more than DupThresh
                    // segments ("Slow-but-Steady", as RFC 6298 §5.3 and Linux restart it on
                    // any ACK of new data). Sparse holes are repaired one per RTT without a
                    // timeout (with RTO = 200 ms and RTT >= 100 ms, Impatient alone turns three
                    // holes into a timeout); dense holes (a slow-start overshoot) still end in
                    // a timeout, where go-back-N resends little that had arrived.
                    if !self.partial_seen || acked > self.dupthresh {
                        self.restart_timer(now);
                    }
                    self.partial_seen = true;
                }
            } else {
                self.dupacks = 0;
                self.grow(cc, acked, now, sample, flight_before);
            }
            if self.snd_una == self.snd_max {
                self.rto_deadline = 0;
                if self.snd_una >= self.total {
                    self.done = true;
                }
            } else if !self.in_recovery {
                self.restart_timer(now);
            }
        } else if ack == self.snd_una && self.snd_una < self.snd_max {
            self.dupacks += 1;
            let flight = self.snd_max - self.snd_una;
            if let Some(r) = self.rate.as_mut() {
                // A duplicate ACK: one more segment arrived (Linux's Reno `sacked_out`, at
                // most all but the first outstanding segment).
                if r.reno_sacked + 1 < flight {
                    r.reno_sacked += 1;
                    newly_delivered = 1;
                }
            }
            if self.in_recovery {
                if self.rate.is_none() {
                    self.w.cwnd += 1.0; // inflation: one more segment has left the network
                }
            } else if self.dupacks == self.dupthresh
                && (self.recovery == Recovery::Reno
                    || ack as i64 > self.recover + self.after_rto as i64)
            {
                self.after_rto = false;
                // FlightSize, but never more than the window: after a Reno recovery (left on the
                // first new ACK) the data sent on inflated windows is still outstanding, and
                // halving it would raise ssthresh above the window that just lost; with many
                // flows and repeated losses that fed on itself (Σcwnd reached 80 times the pipe
                // at 1 Gb/s, 500 flows). ns-2 and Linux halve cwnd here.
                let flight = self.flight().min(self.w.cwnd.max(1.0).ceil() as u32);
                self.w.ssthresh = cc.ssthresh_on_loss(&self.w, flight, now);
                self.recover = self.snd_max as i64 - 1;
                self.in_recovery = true;
                self.partial_seen = false;
                self.fast_retransmits += 1;
                rep.fast_retransmit = true;
                let seq = self.snd_una;
                if let Some(r) = self.rate.as_mut() {
                    r.on_lost(1); // the head is deemed lost
                }
                self.transmit(now, seq, &mut send);
                // Restart the timer with the retransmission (as Linux and ns-2 do), so the
                // repair gets a full RTO before a timeout is declared.
                self.restart_timer(now);
                if self.rate.is_none() {
                    self.w.cwnd = self.w.ssthresh + self.dupthresh as f64;
                }
            }
        }
        if let Some(r) = self.rate.take() {
            let pipe = (self.snd_max - self.snd_una)
                .saturating_sub(r.reno_sacked)
                .saturating_sub((self.retransmits - retx_before) as u32);
            self.control(now, r, cc, newly_delivered, pipe);
        }
        self.update_pacing(cc);
        self.fill_inner(now, send);
        rep
    }

    /// The retransmission timer fired at `now` (the engine checks the deadline first). With
    /// RACK-TLP this one timer is also the reordering timer and the probe timeout.
    pub fn on_timeout(
        &mut self,
        now: Ns,
        cc: &mut dyn CongestionControl,
        mut send: impl FnMut(u32),
    ) -> Report {
        if self.rack.is_none() {
            return self.rto_fire(now, cc, send);
        }
        let mark = self.rack_enter();
        // Every deadline that is due, the reordering timer and the probe before the RTO (a
        // probe clamped to the RTO's time goes out instead of the timeout, as in Linux).
        let mut rep = Report::default();
        loop {
            let rk = self.rack.as_mut().unwrap();
            if rk.reo_at != 0 && rk.reo_at <= now {
                rk.reo_at = 0;
                rk.reo_timeouts += 1;
                self.rack_reo_timeout(now, cc, &mut send);
            } else if rk.tlp_at != 0 && rk.tlp_at <= now {
                rk.tlp_at = 0;
                self.rack_probe(now, &mut send);
            } else if self.rto_deadline != 0 && self.rto_deadline <= now {
                rep = self.rto_fire(now, cc, &mut send);
                break;
            } else {
                break;
            }
        }
        self.rack_exit(now, mark);
        rep
    }

    /// The retransmission timeout proper.
    fn rto_fire(
        &mut self,
        now: Ns,
        cc: &mut dyn CongestionControl,
        mut send: impl FnMut(u32),
    ) -> Report {
        let mut rep = Report::default();
        if self.snd_una >= self.snd_max {
            self.rto_deadline = 0;
            return rep;
        }
        rep.timeout = true;
        self.timeouts += 1;
        // FlightSize: what was sent since the last go-back-N restart (on a repeated timeout
        // of the same segment that is just the retransmission, so ssthresh falls to 2). With
        // SACK, no more than the scoreboard's pipe: SACK recovery keeps sending new data while
        // snd_una waits for a lost retransmission, so snd_nxt - snd_una can grow to several
        // windows, and halving that would raise ssthresh above the window that just overflowed
        // (Linux keeps the recovery's ssthresh; ns-3 halves its scoreboard's bytes in flight).
        let mut flight = self.snd_nxt - self.snd_una;
        if self.sack {
            flight = flight.min(self.pipe());
        }
        let classic_recovery = self.in_recovery && !self.sack;
        let recovery_ssthresh = self.w.ssthresh;
        if classic_recovery {
            // The timeout ends a fast recovery: the inflated cwnd counted duplicate ACKs, not
            // window; and snd_nxt - snd_una includes everything sent during the recovery.
            self.w.cwnd = self.w.cwnd.min(self.w.ssthresh);
            flight = flight.min(self.w.cwnd.ceil() as u32);
        }
        cc.on_timeout(&mut self.w, flight, now);
        if classic_recovery {
            // Same congestion episode: keep the recovery's ssthresh (Linux tcp_enter_loss
            // recomputes it only outside Recovery); the control still resets its own state.
            self.w.ssthresh = recovery_ssthresh;
        }
        self.after_rto = !self.sack;
        if let Some(r) = self.rate.as_mut() {
            // Linux marks everything outstanding lost and stays in its Loss state until it is
            // all acknowledged.
            r.lost += flight as u64;
            r.in_loss = true;
            r.reno_sacked = 0;
        }
        self.w.cwnd = 1.0;
        self.in_recovery = false;
        self.dupacks = 0;
        self.recover = self.snd_max as i64 - 1;
        self.high_rxt = -1;
        self.retrans_out = 0;
        if let Some(rk) = self.rack.as_mut() {
            // Linux's tcp_enter_loss: every unsacked outstanding segment is lost, none is
            // retransmitted yet; go-back-N resends them.
            self.lost_out = 0;
            for (i, e) in rk.segs.iter_mut().enumerate() {
                if self.sacked.has(self.snd_una, self.snd_una + i as u32) {
                    continue;
                }
                e.1 = (e.1 | LOST) & !RETRANS;
                self.lost_out += 1;
            }
            rk.rxt_from = self.snd_una;
            rk.reo_at = 0;
            rk.tlp_at = 0;
            rk.tlp = None;
            rk.in_loss = true;
        }
        self.snd_nxt = self.snd_una;
        self.timing = None;
        self.backoff = (self.backoff * 2).min(1 << 16);
        self.rto_deadline = now + self.current_rto();
        self.update_pacing(cc);
        if self.rack.is_some() {
            self.sack_send(now, &mut send);
        } else {
            self.fill_inner(now, send);
        }
        rep
    }
}

/// RACK-TLP (RFC 8985). Approximations: min_RTT is the smallest RTT of the whole connection
/// (not a windowed filter); the reordering window is min_RTT/4 (at most SRTT) and not adapted
/// by DSACK (the engine's receiver sends none); it is 0 in recovery, after a timeout, or once
/// DupThresh segments are SACKed, until reordering is seen (RFC 8985 §6.2 step 4). A probe is
/// scheduled only outside recovery and the timeout's go-back-N; a retransmitted probe whose
/// ACK covers it, with no recovery or timeout since, counts as a repaired loss (Linux's
/// `tcp_process_tlp_ack` without DSACK: ssthresh from the control, cwnd at most ssthresh).
impl Sender {
    /// Tail-loss probes sent (0 without RACK).
    pub fn probes(&self) -> u64 {
        self.rack.as_ref().map_or(0, |r| r.probes)
    }

    /// Start of a call with RACK: `rto_deadline` is the RTO again. (RTT samples come from
    /// [`Sender::rack_rtt_of_ack`], not from the one timed segment: the timing the shared code
    /// may have started is dropped here.)
    fn rack_enter(&mut self) -> (u32, u32) {
        self.timing = None;
        let rk = self.rack.as_ref().unwrap();
        self.rto_deadline = rk.rto_at;
        (self.snd_una, self.snd_max)
    }

    /// End of a call with RACK: (re)arm the probe timeout and show the engine the earliest of
    /// the three deadlines.
    fn rack_exit(&mut self, now: Ns, (una0, max0): (u32, u32)) {
        let flight = self.snd_max - self.snd_una;
        let srtt = self.srtt_ns;
        let rk = self.rack.as_mut().unwrap();
        rk.rto_at = self.rto_deadline;
        if rk.in_loss && self.snd_una as i64 > self.recover {
            rk.in_loss = false;
        }
        if flight == 0 {
            rk.reo_at = 0;
            rk.tlp_at = 0;
        } else if self.in_recovery || rk.in_loss || rk.reo_at != 0 {
            rk.tlp_at = 0;
        } else if (self.snd_una != una0 || self.snd_max != max0) && rk.tlp.is_none() {
            // RFC 8985 §7.2: after new data is sent or acknowledged, PTO = 2·SRTT, plus the
            // worst-case delayed ACK when one segment is out, and never after the RTO.
            let pto = match srtt {
                Some(s) => 2 * s + if flight == 1 { WC_DELACK } else { 0 },
                None => 1_000_000_000,
            };
            let at = now + pto;
            rk.tlp_at = if rk.rto_at != 0 {
                at.min(rk.rto_at)
            } else {
                at
            };
        }
        let mut d = 0;
        for t in [rk.rto_at, rk.reo_at, rk.tlp_at] {
            if t != 0 && (d == 0 || t < d) {
                d = t;
            }
        }
        self.rto_deadline = d;
    }

    /// A transmission of `seq` (new when seq == snd_max).
    fn rack_on_send(&mut self, now: Ns, seq: u32) {
        let idx = (seq - self.snd_una) as usize;
        let sacked = self.sacked.has(self.snd_una, seq);
        let rk = self.rack.as_mut().unwrap();
        if idx >= rk.segs.len() {
            debug_assert_eq!(idx, rk.segs.len());
            rk.segs.push_back((now, 0));
            return;
        }
        let e = &mut rk.segs[idx];
        e.0 = now;
        e.1 |= EVER_RETRANS;
        if !sacked {
            if e.1 & LOST == 0 {
                e.1 |= LOST;
                self.lost_out += 1;
            }
            if e.1 & RETRANS == 0 {
                e.1 |= RETRANS;
                self.retrans_out += 1;
            }
        }
    }

    /// After a timeout, until snd_una passes `recover` (Linux's `TCP_CA_Loss`): with RACK the
    /// sender retransmits what is deemed lost by the pipe, as in SACK recovery, and then sends
    /// new data (Linux's `tcp_xmit_retransmit_queue`): every unSACKed segment outstanding at the
    /// timeout first (go-back-N without the SACKed ones), and a retransmission RACK finds lost
    /// at once, where go-back-N counted it in the window and waited for the next timeout.
    #[inline]
    fn rack_in_loss(&self) -> bool {
        !self.in_recovery
            && self.snd_una as i64 <= self.recover
            && self.rack.as_ref().is_some_and(|rk| rk.in_loss)
    }

    /// The RTT sample of an ACK as Linux takes it (`tcp_clean_rtx_queue`, `tcp_ack_update_rtt`):
    /// the time since the oldest segment it newly acknowledges cumulatively was sent, if none of
    /// those was ever retransmitted (Karn); else, from the newly SACKed segment `sacked` if it was
    /// never retransmitted. Every ACK of data sent once gives a sample, so a connection that
    /// retransmits in every flight still measures its RTT (the one-timed-segment estimator of
    /// ns-2 rarely does there, and its RTO stays at the initial 1 s, backed off).
    fn rack_rtt_of_ack(&self, now: Ns, ack: u32, sacked: Option<u32>) -> Option<Ns> {
        let rk = self.rack.as_ref().unwrap();
        let una = self.snd_una;
        let mut first = None;
        for q in una..ack {
            if self.sacked.has(una, q) {
                continue;
            }
            let (ts, fl) = rk.segs[(q - una) as usize];
            if fl & EVER_RETRANS != 0 {
                first = None;
                break;
            }
            first.get_or_insert(ts);
        }
        if first.is_none() {
            if let Some(q) = sacked.filter(|&q| !self.sacked.has(una, q)) {
                let (ts, fl) = rk.segs[(q - una) as usize];
                if fl & EVER_RETRANS == 0 {
                    first = Some(ts);
                }
            }
        }
        first.map(|ts| now.saturating_sub(ts))
    }

    /// RFC 8985 §6.2 step 2 for a newly delivered segment `q` (not yet SACKed).
    fn rack_delivered(&mut self, now: Ns, q: u32) {
        let rk = self.rack.as_mut().unwrap();
        let Some(&(ts, fl)) = rk.segs.get((q - self.snd_una) as usize) else {
            return;
        };
        let rtt = now.saturating_sub(ts);
        if fl & EVER_RETRANS == 0 {
            rk.min_rtt = rk.min_rtt.min(rtt);
            if q + 1 < rk.high_delivered {
                rk.reord_seen = true;
            }
        } else if rtt < rk.min_rtt {
            return; // may be the original's delivery: ambiguous
        }
        rk.high_delivered = rk.high_delivered.max(q + 1);
        rk.advanced = true;
        if sent_after(ts, q + 1, rk.xmit_ts, rk.end_seq) {
            rk.xmit_ts = ts;
            rk.end_seq = q + 1;
            rk.rtt = rtt;
        }
    }

    /// RFC 8985 §6.2 step 5: mark lost every outstanding segment sent before the most recently
    /// sent delivered one and more than RACK.rtt + reo_wnd ago; arm the reordering timer for
    /// the rest. Returns the number newly marked.
    fn rack_detect(&mut self, now: Ns) -> u32 {
        let una = self.snd_una;
        let srtt = self.srtt_ns;
        let quick = self.in_recovery || self.n_sacked >= self.dupthresh;
        let rk = self.rack.as_mut().unwrap();
        rk.advanced = false;
        let reo_wnd = if !rk.reord_seen && (quick || rk.in_loss) {
            0
        } else {
            let m = if rk.min_rtt == u64::MAX {
                0
            } else {
                rk.min_rtt / 4
            };
            srtt.map_or(m, |s| m.min(s))
        };
        let mut timeout: Ns = 0;
        let mut newly = 0;
        for (i, e) in rk.segs.iter_mut().enumerate() {
            let seq = una + i as u32;
            if self.sacked.has(una, seq) || (e.1 & LOST != 0 && e.1 & RETRANS == 0) {
                continue;
            }
            if !sent_after(rk.xmit_ts, rk.end_seq, e.0, seq + 1) {
                if e.1 & EVER_RETRANS == 0 {
                    break; // every later segment was sent later still
                }
                continue;
            }
            let deadline = e.0 + rk.rtt + reo_wnd;
            if deadline <= now {
                if e.1 & RETRANS != 0 {
                    e.1 &= !RETRANS; // a lost retransmission: send it again
                    self.retrans_out -= 1;
                } else {
                    e.1 |= LOST;
                    self.lost_out += 1;
                }
                newly += 1;
                rk.rxt_from = rk.rxt_from.min(seq);
            } else {
                timeout = timeout.max(deadline - now);
            }
        }
        rk.reo_at = if timeout > 0 { now + timeout } else { 0 };
        newly
    }

    /// The lowest segment deemed lost and not retransmitted since.
    fn rack_next_lost(&mut self) -> Option<u32> {
        if self.lost_out <= self.retrans_out {
            return None;
        }
        let una = self.snd_una;
        let rk = self.rack.as_mut().unwrap();
        let mut q = rk.rxt_from.max(una);
        while q < self.snd_max {
            let fl = rk.segs[(q - una) as usize].1;
            if fl & LOST != 0 && fl & RETRANS == 0 && !self.sacked.has(una, q) {
                rk.rxt_from = q;
                return Some(q);
            }
            q += 1;
        }
        rk.rxt_from = self.snd_max;
        None
    }

    /// Enter SACK recovery on a loss RACK detected: reduce, retransmit the first lost segment.
    fn rack_enter_recovery(
        &mut self,
        now: Ns,
        cc: &mut dyn CongestionControl,
        send: &mut impl FnMut(u32),
    ) {
        let flight = self.flight();
        self.w.ssthresh = cc.ssthresh_on_loss(&self.w, flight, now);
        self.recover = self.snd_max as i64 - 1;
        self.in_recovery = true;
        self.fast_retransmits += 1;
        if let Some(seq) = self.rack_next_lost() {
            self.transmit(now, seq, send);
        }
        self.restart_timer(now);
        if self.prr {
            self.recover_fs = if self.prr_linux {
                self.w.cwnd.ceil() as u32 // Linux's prior_cwnd
            } else {
                flight
            };
            self.prr_delivered = 0;
            self.prr_out = 1;
        } else if self.rate.is_none() {
            self.w.cwnd = self.w.ssthresh;
        }
    }

    /// The reordering timer fired: detect losses again, recover.
    fn rack_reo_timeout(
        &mut self,
        now: Ns,
        cc: &mut dyn CongestionControl,
        send: &mut impl FnMut(u32),
    ) {
        let newly = self.rack_detect(now);
        if let Some(r) = self.rate.as_mut() {
            r.on_lost(newly);
        }
        if !self.in_recovery
            && self.snd_una as i64 > self.recover
            && self.lost_out > self.retrans_out
        {
            self.rack_enter_recovery(now, cc, send);
        }
        if self.in_recovery {
            if self.prr {
                // (Linux enters recovery on this timer with one segment counted as delivered)
                let d = (self.prr_linux && self.prr_delivered == 0) as u32;
                self.prr_window(d, false);
            }
            let sent = self.sack_send(now, send);
            self.prr_out += sent;
        }
    }

    /// RFC 8985 §7.3: the probe timeout fired: send one new segment if the window allows,
    /// else the highest unSACKed one again; then restart the RTO.
    fn rack_probe(&mut self, now: Ns, send: &mut impl FnMut(u32)) {
        let flight = self.snd_max - self.snd_una;
        if flight == 0 {
            return;
        }
        let retrans = if self.snd_max < self.total && (flight as f64) < self.max_window {
            let seq = self.snd_max;
            self.transmit(now, seq, send);
            self.snd_max += 1;
            self.snd_nxt = self.snd_max;
            false
        } else {
            let mut q = self.snd_max - 1;
            while q > self.snd_una && self.sacked.has(self.snd_una, q) {
                q -= 1;
            }
            self.transmit(now, q, send);
            true
        };
        let episode = self.fast_retransmits + self.timeouts;
        let rk = self.rack.as_mut().unwrap();
        rk.tlp = Some((self.snd_max, retrans, episode));
        rk.probes += 1;
        self.restart_timer(now);
    }

    /// RFC 8985 §7.4: the ACK covers the probe. A retransmitted probe that repaired a loss
    /// (no recovery or timeout since) still reduces the window.
    fn rack_tlp_acked(&mut self, now: Ns, cc: &mut dyn CongestionControl, model: bool) {
        let rk = self.rack.as_mut().unwrap();
        let Some((end, retrans, episode)) = rk.tlp else {
            return;
        };
        if self.snd_una < end {
            return;
        }
        rk.tlp = None;
        if retrans && !model && episode == self.fast_retransmits + self.timeouts {
            let w = self.w.cwnd.max(1.0).ceil() as u32;
            self.w.ssthresh = cc.ssthresh_on_loss(&self.w, w, now);
            self.w.cwnd = self.w.cwnd.min(self.w.ssthresh);
        }
    }

    /// The pipe from a full scan of RACK's per-segment flags (debug check).
    #[cfg(debug_assertions)]
    fn rack_scoreboard(&self) -> u32 {
        let rk = self.rack.as_ref().unwrap();
        debug_assert_eq!(rk.segs.len() as u32, self.snd_max - self.snd_una);
        let mut pipe = 0;
        for (i, e) in rk.segs.iter().enumerate() {
            if self.sacked.has(self.snd_una, self.snd_una + i as u32) {
                continue;
            }
            pipe += (e.1 & LOST == 0) as u32 + (e.1 & RETRANS != 0) as u32;
        }
        pipe
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::reno::Reno;

    fn sender(sack: bool, recovery: Recovery) -> Sender {
        let cfg = TcpParams {
            sack,
            initial_window: 10,
            ..TcpParams::default()
        };
        Sender::new(&cfg, recovery, u32::MAX)
    }

    fn sent(s: &mut Sender, f: impl FnOnce(&mut Sender, &mut Vec<u32>)) -> Vec<u32> {
        let mut v = vec![];
        f(s, &mut v);
        v
    }

    #[test]
    fn rto_backs_off_exponentially_up_to_the_cap() {
        let mut s = sender(false, Recovery::NewReno);
        let mut cc = Reno;
        let first = sent(&mut s, |s, v| s.fill(0, |q| v.push(q)));
        assert_eq!(first, (0..10).collect::<Vec<_>>());
        assert_eq!(s.rto_deadline, 1_000_000_000); // initial RTO 1 s
        let mut now = s.rto_deadline;
        let mut gaps = vec![];
        for _ in 0..8 {
            let re = sent(&mut s, |s, v| {
                s.on_timeout(now, &mut cc, |q| v.push(q));
            });
            assert_eq!(
                re,
                vec![0],
                "go-back-N starts with the first unacked segment"
            );
            assert_eq!(s.w.cwnd, 1.0);
            gaps.push(s.rto_deadline - now);
            now = s.rto_deadline;
        }
        assert_eq!(gaps[0], 2_000_000_000);
        assert_eq!(gaps[1], 4_000_000_000);
        assert_eq!(*gaps.last().unwrap(), 60_000_000_000); // max_rto
        assert_eq!(s.timeouts, 8);
        assert_eq!(s.w.ssthresh, 2.0); // repeated timeouts: FlightSize is the one retransmission
    }

    #[test]
    fn newreno_partial_acks_retransmit_each_hole_then_exit_at_recover() {
        let mut s = sender(false, Recovery::NewReno);
        let mut cc = Reno;
        sent(&mut s, |s, v| s.fill(0, |q| v.push(q)));
        // Segments 0 and 3 lost; receiver ACKs 1, 2 (dupacks for 0), then 4..9 (dupacks).
        let mut out = vec![];
        for _ in 0..3 {
            s.on_ack(10, 0, u32::MAX, &mut cc, |q| out.push(q));
        }
        assert!(s.in_recovery);
        assert_eq!(out[0], 0, "fast retransmit of the first hole");
        assert_eq!(s.w.ssthresh, 5.0);
        assert_eq!(s.fast_retransmits, 1);
        // Retransmitted 0 arrives: cumulative ACK 3 is partial (recover = 9).
        out.clear();
        s.on_ack(20, 3, u32::MAX, &mut cc, |q| out.push(q));
        assert!(s.in_recovery);
        assert_eq!(
            out.first(),
            Some(&3),
            "partial ACK retransmits the next hole"
        );
        // Full ACK.
        s.on_ack(30, 10, u32::MAX, &mut cc, |_| {});
        assert!(!s.in_recovery);
        assert_eq!(s.w.cwnd, 5.0);
        assert_eq!(s.fast_retransmits, 1, "one recovery for both losses");
    }

    #[test]
    fn timeout_in_recovery_keeps_its_ssthresh_and_ignores_dupacks_at_recover() {
        let mut s = sender(false, Recovery::NewReno);
        let mut cc = Reno;
        sent(&mut s, |s, v| s.fill(0, |q| v.push(q)));
        for _ in 0..3 {
            s.on_ack(10, 0, u32::MAX, &mut cc, |_| {});
        }
        // 40 more duplicate ACKs inflate cwnd (and send new data) in the recovery.
        for _ in 0..40 {
            s.on_ack(11, 0, u32::MAX, &mut cc, |_| {});
        }
        assert!(s.in_recovery && s.w.cwnd > 40.0 && s.flight() > 40);
        let now = s.rto_deadline;
        s.on_timeout(now, &mut cc, |_| {});
        // ssthresh stays the recovery's (10 / 2), not half the inflated flight.
        assert_eq!(s.w.ssthresh, 5.0);
        assert_eq!(s.w.cwnd, 1.0);
        // Go-back-N: the cumulative ACK reaches recover + 1 = snd_max, then three duplicate
        // ACKs from segments resent needlessly: not a new loss (RFC 6582 §3.2 step 1).
        let top = s.snd_max;
        s.on_ack(now + 10, top, u32::MAX, &mut cc, |_| {});
        for _ in 0..3 {
            s.on_ack(now + 11, top, u32::MAX, &mut cc, |_| {});
        }
        assert!(!s.in_recovery);
        assert_eq!(s.fast_retransmits, 1);
        // Beyond recover + 1 duplicate ACKs mean a loss again.
        let una = s.snd_una + 1;
        s.on_ack(now + 20, una, u32::MAX, &mut cc, |_| {});
        for _ in 0..3 {
            s.on_ack(now + 21, una, u32::MAX, &mut cc, |_| {});
        }
        assert!(s.in_recovery);
        assert_eq!(s.fast_retransmits, 2);
    }

    #[test]
    fn sparse_partial_acks_restart_the_timer_dense_ones_do_not() {
        let cfg = TcpParams {
            initial_window: 40,
            ..TcpParams::default()
        };
        let mut cc = Reno;
        for (hole_gap, restarts) in [(10u32, true), (1, false)] {
            let mut s = Sender::new(&cfg, Recovery::NewReno, u32::MAX);
            sent(&mut s, |s, v| s.fill(0, |q| v.push(q)));
            for _ in 0..3 {
                s.on_ack(10, 0, u32::MAX, &mut cc, |_| {});
            }
            // First partial ACK: restarts the timer (Impatient).
            s.on_ack(100, hole_gap, u32::MAX, &mut cc, |_| {});
            assert_eq!(s.rto_deadline, 100 + s.current_rto());
            // Second partial ACK: only if it covers more than DupThresh segments.
            s.on_ack(200, 2 * hole_gap, u32::MAX, &mut cc, |_| {});
            assert!(s.in_recovery);
            assert_eq!(
                s.rto_deadline == 200 + s.current_rto(),
                restarts,
                "gap {hole_gap}"
            );
        }
    }

    #[test]
    fn reno_leaves_recovery_on_the_first_new_ack() {
        let mut s = sender(false, Recovery::Reno);
        let mut cc = Reno;
        sent(&mut s, |s, v| s.fill(0, |q| v.push(q)));
        for _ in 0..3 {
            s.on_ack(10, 0, u32::MAX, &mut cc, |_| {});
        }
        assert!(s.in_recovery);
        s.on_ack(20, 3, u32::MAX, &mut cc, |_| {});
        assert!(!s.in_recovery);
    }

    #[test]
    fn sack_retransmits_only_the_holes() {
        let mut s = sender(true, Recovery::NewReno);
        let mut cc = Reno;
        sent(&mut s, |s, v| s.fill(0, |q| v.push(q)));
        // Segments 0, 2 and 5 lost out of 0..9: the receiver SACKs 1, 3, 4, 6, 7, 8, 9.
        let mut out = vec![];
        for q in [1, 3, 4, 6, 7, 8, 9] {
            s.on_ack(10, 0, q, &mut cc, |x| out.push(x));
        }
        assert!(s.in_recovery);
        assert_eq!(s.w.cwnd, 5.0);
        // Holes 0, 2, 5 are all "lost" (>= 3 SACKed above each): all retransmitted, in order,
        // and nothing that was SACKed is sent again.
        let retx: Vec<u32> = out.iter().copied().filter(|&q| q < 10).collect();
        assert_eq!(retx, vec![0, 2, 5]);
        assert_eq!(s.retransmits, 3);
        s.on_ack(20, 10, u32::MAX, &mut cc, |_| {});
        assert!(!s.in_recovery);
    }
}

#[cfg(test)]
mod window_tests {
    use super::below_window;

    #[test]
    fn below_window_is_the_floored_window_test() {
        let wnds = [
            f64::NAN,
            f64::NEG_INFINITY,
            -3.5,
            0.0,
            0.3,
            1.0,
            1.999_999,
            2.0,
            2.000_001,
            7.5,
            10.0,
            4_294_967_296.0,
            f64::INFINITY,
        ];
        for w in wnds {
            for n in [0u32, 1, 2, 3, 7, 8, 9, 10, 11, u32::MAX - 1, u32::MAX] {
                let reference = (n as f64) < w.floor().max(1.0);
                assert_eq!(below_window(n, w), reference, "n {n} wnd {w}");
            }
        }
    }
}

#[cfg(test)]
mod pacing_tests {
    use super::*;

    #[test]
    fn paced_fill_releases_one_segment_per_gap() {
        let cfg = TcpParams {
            initial_window: 10,
            ..TcpParams::default()
        };
        let mut s = Sender::new(&cfg, Recovery::NewReno, u32::MAX);
        s.pace = Some(1000.0); // one segment per ms
        let mut out = vec![];
        s.fill(0, |q| out.push(q));
        assert_eq!(out, vec![0]);
        assert_eq!(s.wake_at, 1_000_000);
        s.fill(999_999, |q| out.push(q));
        assert_eq!(out, vec![0], "too early");
        s.fill(1_000_000, |q| out.push(q));
        assert_eq!(out, vec![0, 1]);
        assert_eq!(s.wake_at, 2_000_000);
        // Unpaced: the whole window at once.
        s.pace = None;
        s.fill(1_500_000, |q| out.push(q));
        assert_eq!(out.len(), 10);
        assert_eq!(s.wake_at, 0);
    }
}
