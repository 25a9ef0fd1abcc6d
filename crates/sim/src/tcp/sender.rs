//! TCP sender: window-based transmission, RTT estimation and RTO (RFC 6298), fast retransmit
//! and fast recovery (RFC 5681 / RFC 6582 NewReno). Sequence numbers count whole segments.
//!
//! Details chosen here (ns-2/ns-3 style):
//! - one segment is timed at a time for RTT samples; the timing is abandoned when anything is
//!   retransmitted (Karn's rule), so a sample never comes from a retransmitted segment;
//! - RTO = max(min_rto, SRTT + 4·RTTVAR) (clock granularity G = 0, the simulated clock is
//!   exact), or SRTT + max(4·RTTVAR, min_rto) as Linux computes it (`rto_min_above_srtt`), doubled on each expiry up to max_rto; the backoff is cleared by the next valid
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
use super::params::{Ecn, FlightSize, LossDetection, TcpParams};
use super::rate::RateSampler;
use super::receiver::OooSet;
use crate::time::{ns, Ns};

// The sender's concepts, one file each (all `impl Sender`): ACK processing with SACK (RFC 6675
// scoreboard, PRR) and without (NewReno / Reno), the retransmission timeout, RACK-TLP.
mod classic;
#[cfg(test)]
mod ecn_tests;
mod rack;
mod rto;
mod sack;
#[cfg(test)]
mod tests;

pub use rack::Rack;

/// Field order is layout (repr(C)), by what an ACK touches: sequence state, flags and the
/// window (line 1); the recovery point, srtt as the control sees it, the timer and the optional
/// machinery's pointers (line 2); sending and pacing (line 3). An ACK of new data outside
/// recovery without an RTT sample touches these three lines and no other (it touched five when
/// the RTT estimator, counters and pointers were spread over lines 2-6 and 9). Then the RTT
/// estimator and sums (an RTT sample), counters, and the SACK scoreboard last.
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
    pub dupthresh: u16,
    /// The connection's ECN; read on every transmission, so in the first line.
    pub ecn: Ecn,
    /// The next new data segment carries CWR (a reduction answered ECE).
    pub cwr_pending: bool,
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
    /// What FlightSize on a loss is (`TcpParams::flight_size`).
    flight_size: FlightSize,
    /// Limited transmit (RFC 3042, `TcpParams::limited_transmit`): one new segment on each of the
    /// first two duplicate ACKs.
    limited_transmit: bool,
    /// The congestion control may pace (its registration's flag; true unless the engine
    /// knows better): false skips asking it for a rate on every ACK.
    pub paced: bool,
    pub w: Window,
    /// Window cap (segments), f64::INFINITY when none.
    pub max_window: f64,
    // Line 2: what an ACK reads or writes besides line 1 (recovery point, srtt as the control
    // sees it, the timer, the optional machinery's pointers, the retransmit count).
    /// Highest segment outstanding when recovery started; -1 before any.
    pub recover: i64,
    /// `srtt` in whole nanoseconds, as the congestion control sees it (converted once per
    /// sample rather than on every ACK).
    srtt_ns: Option<Ns>,
    pub rto: Ns,
    /// Retransmission timer deadline (0 = stopped).
    pub rto_deadline: Ns,
    /// Delivery-rate samples for a model-based control (None for all others).
    pub rate: Option<Box<RateSampler>>,
    /// RACK-TLP loss detection (None: duplicate ACKs / RFC 6675's DupThresh).
    pub rack: Option<Box<Rack>>,
    // Counters (incremented by the engine's window test through `count`); retransmits is read
    // on every ACK (to see whether it retransmitted), the others only when they change.
    pub retransmits: u64,
    // Line 3: sending (the timed segment, pacing) and the RTO floor.
    timing: Option<(u32, Ns)>,
    /// Pacing rate in segments per second (None = unpaced), from the congestion control.
    pub pace: Option<f64>,
    /// Earliest time the next paced segment may leave.
    next_send: Ns,
    /// When pacing held a segment back: the time the engine should call `fill` again (0 = none).
    pub wake_at: Ns,
    pub min_rto: Ns,
    // Line 4: RTT estimation (nanoseconds), touched by an RTT sample (about one per RTT with
    // classic timing), and the pacing draw.
    pub srtt: Option<f64>,
    pub rttvar: f64,
    pub max_rto: Ns,
    /// Sum (ns) and number of the RTT samples taken (for the mean RTT a flow saw).
    pub rtt_sum: f64,
    pub rtt_samples: u64,
    /// The congestion control's draw (mean 1) for the gap after the next paced segment;
    /// None until asked (once per paced segment, so each segment consumes one draw).
    pace_draw: Option<f64>,
    pub timeouts: u64,
    pub fast_retransmits: u64,
    /// `TcpParams::repeat_rto_holds_ssthresh` (read on a timeout only: cold, out of the ACK lines).
    repeat_rto_holds_ssthresh: bool,
    /// `TcpParams::rto_min_above_srtt` (read at an RTT sample, about once per RTT).
    rto_min_above_srtt: bool,
    /// `TcpParams::loss_in_cwr_keeps_reduction` (read when a recovery starts).
    loss_in_cwr_keeps_reduction: bool,
    /// ECN: snd_max at the last ECE reduction (-1: none yet). Until an ACK moves snd_una above
    /// it the connection is in its reduction episode (Linux's CA_CWR, ns-3's CA_CWR): ECE does
    /// not act again and the window does not grow (see `in_cwr`).
    ecn_until: i64,
    /// An ECE reduction is being made by PRR (see `on_ece`): set there, cleared when its
    /// episode ends (`in_cwr`), at a loss's recovery or at a timeout. Read only with ECN on.
    cwr_prr: bool,
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
    /// The MSS in bytes when PRR multiplies in 32 bits as ns-3 3.37
    /// (`TcpParams::prr_wraps_32bit`), else 0; read in SACK recovery only.
    prr_wrap_mss: u32,
    /// The `dupthresh` highest SACKed segments, descending.
    top_sacked: Vec<u32>,
    /// Segments above snd_una reported by SACK (the scoreboard).
    sacked: OooSet,
    /// Window reductions made in answer to ECE.
    pub ecn_reductions: u64,
    /// Reno's fast retransmit only past the last recovery point (`TcpParams::reno_careful`);
    /// read on a third duplicate ACK only, so out of the hot lines.
    reno_careful: bool,
    /// ns-2's halving (`TcpParams::ns2_halving`) and, while a recovery it started lasts, the
    /// fractional window the recovery ends at (0 otherwise); read on losses and recovery exits.
    ns2_halving: bool,
    ns2_half: f64,
}

// The line boundaries described above (Flow keeps the sender 64-byte aligned).
const _: () = assert!(
    std::mem::offset_of!(Sender, recover) == 64
        && std::mem::offset_of!(Sender, retransmits) == 120
        && std::mem::offset_of!(Sender, timing) == 128
        && std::mem::offset_of!(Sender, min_rto) == 184
        && std::mem::offset_of!(Sender, srtt) == 192
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
            dupthresh: cfg.dupack_threshold.min(u16::MAX as u32) as u16,
            ecn: if cfg.ecn { Ecn::Classic } else { Ecn::Off },
            cwr_pending: false,
            cwr_prr: false,
            ecn_until: -1,
            ecn_reductions: 0,
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
            prr_wrap_mss: if cfg.prr_wraps_32bit { cfg.mss() } else { 0 },
            flight_size: cfg.flight_size,
            limited_transmit: cfg.limited_transmit,
            reno_careful: cfg.reno_careful,
            ns2_halving: cfg.ns2_halving,
            ns2_half: 0.0,
            repeat_rto_holds_ssthresh: cfg.repeat_rto_holds_ssthresh,
            rto_min_above_srtt: cfg.rto_min_above_srtt,
            loss_in_cwr_keeps_reduction: cfg.loss_in_cwr_keeps_reduction,
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

    /// FlightSize as the congestion control sees it on a loss (`TcpParams::flight_size`). Never
    /// snd_max - snd_una beyond the window: with SACK that counts the SACKed segments of a
    /// recovery that keeps sending new data while a hole waits, several windows of them, and
    /// halving it raised ssthresh above the window that had just overflowed, recovery after
    /// recovery (one NewReno flow of 40 reached cwnd 1 900 where path and buffer hold 1 100,
    /// at 15 % loss); without SACK, the data sent on a Reno recovery's inflated window does
    /// the same.
    #[inline]
    pub(super) fn loss_flight(&self) -> u32 {
        let wnd = self.w.cwnd.max(1.0).ceil() as u32;
        match self.flight_size {
            FlightSize::Cwnd => wnd,
            FlightSize::Pipe if self.sack => self.pipe(),
            _ => self.flight().min(wnd),
        }
    }

    /// A loss starts a congestion episode: ssthresh from the control, given `loss_flight`. A
    /// loss never raises a loss-based control's threshold above the window that overflowed
    /// (checked in debug builds; a model-based control, which keeps its own, returns it as is).
    #[inline]
    pub(super) fn reduce_on_loss(&mut self, cc: &mut dyn CongestionControl, now: Ns) {
        let (before, kept) = (self.w.cwnd, self.w.ssthresh);
        self.w.ssthresh = cc.ssthresh_on_loss(&self.w, self.loss_flight(), now);
        if self.ns2_halves() {
            self.ns2_half = self.w.cwnd.min(self.max_window) / 2.0;
            self.w.ssthresh = self.ns2_half.floor().max(2.0);
        }
        debug_assert!(
            self.w.ssthresh == kept || self.w.ssthresh <= before.max(2.0).ceil(),
            "a loss raised ssthresh to {} above cwnd {before}",
            self.w.ssthresh
        );
    }

    /// Does ns-2's halving apply (`TcpParams::ns2_halving`: loss-based controls without SACK)?
    #[inline]
    pub(super) fn ns2_halves(&self) -> bool {
        self.ns2_halving && self.rate.is_none() && !self.sack
    }

    /// A loss starts a fast recovery (any loss detection): the reduction and the recovery
    /// point. A loss found in an ECE reduction's episode with `loss_in_cwr_keeps_reduction`
    /// (Linux's tcp_enter_recovery, which reduces only when not already in CA_CWR) makes no
    /// second reduction: ssthresh stays, and the recovery ends where the episode would have
    /// (Linux keeps the CWR's high_seq). Returns whether it reduced; when it did not, the
    /// caller goes on with the episode's PRR (`recovery_window`) instead of starting one.
    pub(super) fn start_recovery(&mut self, cc: &mut dyn CongestionControl, now: Ns) -> bool {
        self.in_recovery = true;
        if self.loss_in_cwr_keeps_reduction && self.ecn != Ecn::Off && self.in_cwr() {
            self.recover = self.ecn_until - 1;
            return false;
        }
        self.reduce_on_loss(cc, now);
        self.recover = self.snd_max as i64 - 1;
        true
    }

    /// The window of a recovery `start_recovery` began (`reduced` is what it returned), after the
    /// first retransmission, with `flight` segments out before it. Without a new reduction the
    /// recovery takes over the ECE episode's PRR (prior window, deliveries, transmissions),
    /// counting that retransmission. Otherwise PRR starts; without PRR a new reduction brings the
    /// window to ssthresh at once, unless a model-based control (`model_based`) sets it.
    pub(super) fn recovery_window(&mut self, reduced: bool, flight: u32, model_based: bool) {
        if !reduced && self.cwr_prr {
            self.cwr_prr = false;
            self.prr_out += 1;
        } else if self.prr {
            self.begin_prr(flight);
        } else if reduced && !model_based {
            self.w.cwnd = self.w.ssthresh;
        }
    }

    /// The timed segment's RTT sample when `ack` covers it (Karn: one segment timed at a time,
    /// never a retransmitted one); feeds the estimator and stops the timing.
    fn timed_sample(&mut self, now: Ns, ack: u32) -> Option<Ns> {
        let (seq, t0) = self.timing?;
        if ack <= seq {
            return None;
        }
        self.rtt_sample(now - t0);
        self.timing = None;
        Some(now - t0)
    }

    /// Start proportional rate reduction (RFC 6937) with `flight` segments out: the window then
    /// falls with the deliveries, not at once.
    fn begin_prr(&mut self, flight: u32) {
        self.recover_fs = if self.prr_linux {
            self.w.cwnd.ceil() as u32 // Linux's prior_cwnd
        } else {
            flight
        };
        self.prr_delivered = 0;
        self.prr_out = 1;
        self.cwr_prr = false; // the loss's reduction takes over an ECE one
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
        let srtt = self.srtt.unwrap();
        let rto = if self.rto_min_above_srtt {
            // Linux: rttvar is kept at least TCP_RTO_MIN, and RTO = srtt + rttvar
            (srtt + (4.0 * self.rttvar).max(self.min_rto as f64)).ceil() as Ns
        } else {
            (srtt + 4.0 * self.rttvar).ceil() as Ns
        };
        self.rto = rto.max(self.min_rto).min(self.max_rto);
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
        } else if self.limited_transmit
            && !self.in_recovery
            && self.rack.is_none()
            && self.dupacks > 0
        {
            // RFC 3042: each of the first two duplicate ACKs lets one new segment out, the window
            // itself unchanged (at most cwnd + 2 outstanding).
            wnd = (wnd + self.dupacks.min(2) as f64).min(self.max_window);
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

    /// In the episode of an ECE reduction: from the reduction until an ACK covers more than the
    /// data outstanding at it, i.e. until the segment sent after it (which carried CWR) is
    /// acknowledged. An ACK of exactly that data still answers segments sent before the
    /// reduction, and the receiver has not seen CWR yet, so its ECE echoes the same congestion
    /// (RFC 3168 §6.1.2: at most one reduction per window of data; Linux keeps CA_CWR until
    /// snd_una passes high_seq, ns-3 until the ACK passes m_recover).
    #[inline]
    pub fn in_cwr(&self) -> bool {
        (self.snd_una as i64) <= self.ecn_until
    }

    /// An ACK carried ECE (after the ACK itself was processed; it newly delivered `delivered`
    /// segments and released `released` new ones under the old window): reduce the window as
    /// for a loss, by the control's own rule for ECN (`ssthresh_on_ece`), at most once per
    /// window of data (`in_cwr`) and not during loss recovery (whose reduction already answers
    /// this congestion), without retransmitting anything; the next new segment carries CWR (RFC
    /// 3168 §6.1.2). The window does not grow until the episode ends, as during a loss's
    /// recovery (Linux makes no congestion-avoidance increase in CA_CWR, ns-3 none in its
    /// CA_CWR state). With PRR (SACK, a loss-based control) the window comes down to ssthresh
    /// as in a loss's recovery, in proportion to the data delivered over the episode, and is
    /// ssthresh when it ends (Linux's `tcp_cwnd_reduction` in CA_CWR, ns-3's PRR in CA_CWR);
    /// otherwise it falls to ssthresh at once. Returns whether it reduced.
    pub fn on_ece(
        &mut self,
        now: Ns,
        cc: &mut dyn CongestionControl,
        delivered: u32,
        released: u32,
    ) -> bool {
        if self.ecn == Ecn::Off
            || self.in_recovery
            || self.in_cwr()
            || (self.snd_una as i64) <= self.recover
        {
            return false;
        }
        let before = self.w.cwnd;
        self.w.ssthresh = cc.ssthresh_on_ece(&self.w, self.loss_flight(), now);
        if self.prr && self.rate.is_none() {
            // RFC 6937 from this ACK on: what it delivered and what it released count, and no
            // more leaves until the next ACK (`sack::prr_window` sets the window from then on).
            let pipe = self.pipe();
            self.recover_fs = if self.prr_linux {
                before.ceil() as u32 // Linux's prior_cwnd
            } else {
                pipe
            };
            self.prr_delivered = delivered;
            self.prr_out = released;
            self.cwr_prr = true;
            self.w.cwnd = (pipe as f64).min(before).max(1.0);
        } else {
            self.w.cwnd = self.w.ssthresh.min(before).max(1.0);
        }
        self.ecn_until = self.snd_max as i64;
        self.cwr_pending = true;
        self.ecn_reductions += 1;
        true
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
        if self.ecn != Ecn::Off && self.in_cwr() {
            return; // an ECE reduction's episode: no increase (see `on_ece`)
        }
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
