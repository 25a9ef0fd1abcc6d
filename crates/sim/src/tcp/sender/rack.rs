//! RACK-TLP loss detection (RFC 8985): per-segment send times and flags, the reordering
//! window and timer, the tail-loss probe.
use super::Sender;
use crate::tcp::cc::CongestionControl;
use crate::tcp::receiver::OooSet;
use crate::time::Ns;
use std::collections::VecDeque;

// Per-segment flags of the RACK scoreboard.
/// Deemed lost (stays set after the retransmission, as Linux's `TCPCB_LOST`).
pub(super) const LOST: u8 = 1;
/// The latest transmission is a retransmission still outstanding.
pub(super) const RETRANS: u8 = 2;
/// Retransmitted at least once (its delivery gives an ambiguous RTT).
pub(super) const EVER_RETRANS: u8 = 4;

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
    pub(super) segs: VecDeque<(Ns, u8)>,
    /// Every transmission as (send time, segment), oldest first (Linux's `tsorted_sent_queue`).
    /// Entries go stale, without being removed at once, when their segment is acknowledged,
    /// SACKed, deemed lost and not yet resent, or sent again; [`Sender::rack_detect`] walks this
    /// list instead of the whole scoreboard and drops the stale entries it passes.
    pub(super) sent_order: VecDeque<(Ns, u32)>,
    /// The segments deemed lost and not resent since, SACKed ones excluded (kept with every
    /// change of the flags, so the next one to resend is found a bitmap word at a time).
    pub(super) to_resend: OooSet,
    /// Send time and end (seq + 1) of the most recently sent segment delivered so far.
    pub(super) xmit_ts: Ns,
    pub(super) end_seq: u32,
    /// RTT of that segment.
    pub(super) rtt: Ns,
    /// Smallest unambiguous RTT seen (over the whole connection), ns; u64::MAX before any.
    pub(super) min_rtt: Ns,
    /// A never-retransmitted segment was delivered below a SACKed one (reordering).
    pub(super) reord_seen: bool,
    /// One past the highest segment delivered (for the reordering test).
    pub(super) high_delivered: u32,
    /// The delivered state advanced since the last loss detection.
    pub(super) advanced: bool,
    /// Lowest segment that may be lost and not yet retransmitted.
    pub(super) rxt_from: u32,
    /// Deadlines, 0 = not armed.
    pub(super) rto_at: Ns,
    pub(super) reo_at: Ns,
    pub(super) tlp_at: Ns,
    /// Outstanding probe: snd_max after it, whether it was a retransmission, and the
    /// recovery/timeout counts when it was sent.
    pub(super) tlp: Option<(u32, bool, u64)>,
    /// After a timeout, until snd_una passes `recover` (no probes there).
    pub(super) in_loss: bool,
    /// Tail-loss probes sent, and RACK reordering-timer expiries.
    pub probes: u64,
    pub reo_timeouts: u64,
}

impl Rack {
    pub(super) fn new() -> Rack {
        Rack {
            segs: VecDeque::new(),
            sent_order: VecDeque::new(),
            to_resend: OooSet::default(),
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
    pub(super) fn rack_enter(&mut self) -> (u32, u32) {
        self.timing = None;
        let rk = self.rack.as_ref().unwrap();
        self.rto_deadline = rk.rto_at;
        (self.snd_una, self.snd_max)
    }

    /// End of a call with RACK: (re)arm the probe timeout and show the engine the earliest of
    /// the three deadlines.
    pub(super) fn rack_exit(&mut self, now: Ns, (una0, max0): (u32, u32)) {
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
    pub(super) fn rack_on_send(&mut self, now: Ns, seq: u32) {
        let idx = (seq - self.snd_una) as usize;
        let sacked = self.sacked.has(self.snd_una, seq);
        let rk = self.rack.as_mut().unwrap();
        debug_assert!(rk.sent_order.back().is_none_or(|&(t, _)| t <= now));
        if !sacked {
            rk.sent_order.push_back((now, seq));
        }
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
            rk.to_resend.take_from(self.snd_una, seq);
        }
    }

    /// After a timeout, until snd_una passes `recover` (Linux's `TCP_CA_Loss`): with RACK the
    /// sender retransmits what is deemed lost by the pipe, as in SACK recovery, and then sends
    /// new data (Linux's `tcp_xmit_retransmit_queue`): every unSACKed segment outstanding at the
    /// timeout first (go-back-N without the SACKed ones), and a retransmission RACK finds lost
    /// at once, where go-back-N counted it in the window and waited for the next timeout.
    #[inline]
    pub(super) fn rack_in_loss(&self) -> bool {
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
    pub(super) fn rack_rtt_of_ack(&self, now: Ns, ack: u32, sacked: Option<u32>) -> Option<Ns> {
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
    pub(super) fn rack_delivered(&mut self, now: Ns, q: u32) {
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
    pub(super) fn rack_detect(&mut self, now: Ns) -> u32 {
        let una = self.snd_una;
        let srtt = self.srtt_ns;
        let quick = self.in_recovery || self.n_sacked >= self.dupthresh as u32;
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
        #[cfg(debug_assertions)]
        let expected = Self::rack_detect_by_sequence(rk, &self.sacked, una, now, reo_wnd);
        // Walk the transmissions oldest first (RFC 8985 §6.2 step 5 in Linux's time order).
        // Only live entries matter: the segment is outstanding, this is its latest
        // transmission, and it is neither SACKed nor lost and waiting to be resent. Dead
        // entries met on the way are dropped (the gap closed below); entries still within
        // their reordering window, or sent at the very instant of RACK's segment but not
        // before it, are kept. The walk stops at the first entry sent after RACK's segment:
        // the list is in send order, so every later one was sent later still.
        let mut timeout: Ns = 0;
        let mut newly = 0;
        let (mut kept, mut i) = (0, 0);
        let n = rk.sent_order.len();
        while i < n {
            let (ts, seq) = rk.sent_order[i];
            if ts > rk.xmit_ts {
                break;
            }
            i += 1;
            let live = seq >= una
                && rk.segs[(seq - una) as usize].0 == ts
                && !self.sacked.has(una, seq)
                && {
                    let fl = rk.segs[(seq - una) as usize].1;
                    fl & LOST == 0 || fl & RETRANS != 0
                };
            if !live {
                continue;
            }
            if sent_after(rk.xmit_ts, rk.end_seq, ts, seq + 1) {
                let deadline = ts + rk.rtt + reo_wnd;
                if deadline <= now {
                    let e = &mut rk.segs[(seq - una) as usize];
                    if e.1 & RETRANS != 0 {
                        e.1 &= !RETRANS; // a lost retransmission: send it again
                        self.retrans_out -= 1;
                    } else {
                        e.1 |= LOST;
                        self.lost_out += 1;
                    }
                    rk.to_resend.insert(una, seq);
                    newly += 1;
                    rk.rxt_from = rk.rxt_from.min(seq);
                    continue;
                }
                timeout = timeout.max(deadline - now);
            }
            rk.sent_order[kept] = (ts, seq);
            kept += 1;
        }
        if kept < i {
            rk.sent_order.drain(kept..i);
        }
        #[cfg(debug_assertions)]
        {
            let got: Vec<u8> = rk.segs.iter().map(|e| e.1).collect();
            debug_assert_eq!(
                (newly, timeout, rk.rxt_from, &got),
                (expected.0, expected.1, expected.2, &expected.3)
            );
        }
        rk.reo_at = if timeout > 0 { now + timeout } else { 0 };
        newly
    }

    /// The same detection as a walk over the whole scoreboard in sequence order, on copies:
    /// (newly marked, reordering timeout, rxt_from, flags after). The debug build checks the
    /// time-ordered walk against it on every call.
    #[cfg(debug_assertions)]
    fn rack_detect_by_sequence(
        rk: &Rack,
        sacked: &crate::tcp::receiver::OooSet,
        una: u32,
        now: Ns,
        reo_wnd: Ns,
    ) -> (u32, Ns, u32, Vec<u8>) {
        let mut flags: Vec<u8> = rk.segs.iter().map(|e| e.1).collect();
        let (mut timeout, mut newly, mut rxt_from) = (0, 0, rk.rxt_from);
        for (i, (e, fl)) in rk.segs.iter().zip(flags.iter_mut()).enumerate() {
            let seq = una + i as u32;
            if sacked.has(una, seq) || (*fl & LOST != 0 && *fl & RETRANS == 0) {
                continue;
            }
            if !sent_after(rk.xmit_ts, rk.end_seq, e.0, seq + 1) {
                if *fl & EVER_RETRANS == 0 {
                    break;
                }
                continue;
            }
            let deadline = e.0 + rk.rtt + reo_wnd;
            if deadline <= now {
                if *fl & RETRANS != 0 {
                    *fl &= !RETRANS;
                } else {
                    *fl |= LOST;
                }
                newly += 1;
                rxt_from = rxt_from.min(seq);
            } else {
                timeout = Ns::max(timeout, deadline - now);
            }
        }
        (newly, timeout, rxt_from, flags)
    }

    /// The lowest segment deemed lost and not retransmitted since.
    pub(super) fn rack_next_lost(&mut self) -> Option<u32> {
        if self.lost_out <= self.retrans_out {
            return None;
        }
        let una = self.snd_una;
        let rk = self.rack.as_mut().unwrap();
        let from = rk.rxt_from.max(una);
        let found = rk.to_resend.next_from(una, from, self.snd_max);
        #[cfg(debug_assertions)]
        {
            let by_scan = (from..self.snd_max).find(|&q| {
                let fl = rk.segs[(q - una) as usize].1;
                fl & LOST != 0 && fl & RETRANS == 0 && !self.sacked.has(una, q)
            });
            debug_assert_eq!(found, by_scan);
        }
        rk.rxt_from = found.unwrap_or(self.snd_max);
        found
    }

    /// Enter SACK recovery on a loss RACK detected: reduce, retransmit the first lost segment.
    pub(super) fn rack_enter_recovery(
        &mut self,
        now: Ns,
        cc: &mut dyn CongestionControl,
        send: &mut impl FnMut(u32),
    ) {
        let flight = self.flight();
        let reduced = self.start_recovery(cc, now);
        self.fast_retransmits += 1;
        if let Some(seq) = self.rack_next_lost() {
            self.transmit(now, seq, send);
        }
        self.restart_timer(now);
        self.recovery_window(reduced, flight, self.rate.is_some());
    }

    /// The reordering timer fired: detect losses again, recover.
    pub(super) fn rack_reo_timeout(
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
    pub(super) fn rack_probe(&mut self, now: Ns, send: &mut impl FnMut(u32)) {
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
    pub(super) fn rack_tlp_acked(&mut self, now: Ns, cc: &mut dyn CongestionControl, model: bool) {
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
    pub(super) fn rack_scoreboard(&self) -> u32 {
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
