//! ACK processing with SACK: the RFC 6675 scoreboard (kept incrementally), NextSeg and the
//! pipe, PRR (RFC 6937), and the model-based controls' recovery sends.
use super::rack::{LOST, RETRANS};
use super::{Report, Sender};
use crate::tcp::cc::CongestionControl;
use crate::tcp::params::Ecn;
use crate::time::Ns;

impl Sender {
    /// RTT sample (Karn), snd_una advance; returns the number of segments newly acked.
    fn advance_una(&mut self, now: Ns, ack: u32) -> (u32, Option<Ns>) {
        let acked = ack - self.snd_una;
        let sample = self.timed_sample(now, ack);
        if let Some(rk) = self.rack.as_mut() {
            for s in self.snd_una..ack {
                let (_, fl) = rk.segs.pop_front().unwrap_or((0, 0));
                rk.to_resend.take_from(self.snd_una, s);
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
            while rk.sent_order.front().is_some_and(|&(_, s)| s < ack) {
                rk.sent_order.pop_front();
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
        if let Some(rk) = self.rack.as_mut() {
            rk.to_resend.take_from(self.snd_una, s);
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
    pub(super) fn pipe(&self) -> u32 {
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
            if lost_limit < 0 && above >= self.dupthresh as u32 {
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
    pub(super) fn sack_send(&mut self, now: Ns, send: &mut impl FnMut(u32)) -> u32 {
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
                if next <= lost_limit {
                    // skip the SACKed run (to one past lost_limit if all of it is SACKed)
                    let end = (lost_limit + 1) as u32;
                    let found = self
                        .sacked
                        .next_unmarked_from(self.snd_una, next as u32, end)
                        as i64;
                    #[cfg(debug_assertions)]
                    {
                        let mut q = next;
                        while q <= lost_limit && self.sacked.has(self.snd_una, q as u32) {
                            q += 1;
                        }
                        debug_assert_eq!(found, q);
                    }
                    next = found;
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
    pub(super) fn prr_window(&mut self, delivered: u32, una_clean: bool) {
        if self.prr_linux && delivered == 0 && self.prr_out > 0 {
            return;
        }
        self.prr_delivered += delivered;
        let pipe = self.pipe() as f64;
        let ssthresh = self.w.ssthresh;
        let out = self.prr_out as f64;
        let extra = (!self.prr_linux || una_clean) as u32 as f64;
        let mut sndcnt = if pipe > ssthresh && self.prr_wrap_mss > 0 && !self.prr_linux {
            self.prr_proportional_32bit(ssthresh, out)
        } else if pipe > ssthresh {
            (self.prr_delivered as f64 * ssthresh / self.recover_fs.max(1) as f64).ceil() - out
        } else {
            (ssthresh - pipe).min((self.prr_delivered as f64 - out).max(delivered as f64) + extra)
        };
        if self.prr_out == 0 {
            sndcnt = sndcnt.max(1.0);
        }
        self.w.cwnd = pipe + sndcnt.max(0.0);
    }

    /// The proportional part of PRR as ns-3 3.37 computes it, in bytes: ⌈(prr_delivered ×
    /// ssthresh mod 2^32) / RecoverFS⌉ − prr_out, the product of two 32-bit counts wrapping
    /// (`TcpParams::prr_wraps_32bit`); in segments, as a fraction where it is one.
    fn prr_proportional_32bit(&self, ssthresh: f64, out: f64) -> f64 {
        let mss = self.prr_wrap_mss as u64;
        let delivered = self.prr_delivered as u64 * mss;
        let ssthresh_bytes = (ssthresh * mss as f64) as u64;
        let product = (delivered * ssthresh_bytes) & 0xffff_ffff;
        let recover_fs = self.recover_fs.max(1) as u64 * mss;
        (product.div_ceil(recover_fs) as f64 - out * mss as f64) / mss as f64
    }

    pub(super) fn on_ack_sack(
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
                if self.ecn != Ecn::Off && self.cwr_prr && !self.in_cwr() {
                    // The ECE reduction's episode is over: cwnd = ssthresh (RFC 6937).
                    self.cwr_prr = false;
                    self.w.cwnd = self.w.ssthresh;
                }
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
                self.dupacks >= self.dupthresh as u32
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
                let reduced = self.start_recovery(cc, now);
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
                self.recovery_window(reduced, flight, rate.is_some());
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
            // An ECE reduction by PRR sets the window for this ACK and counts what it sends.
            let cwr = self.ecn != Ecn::Off && self.cwr_prr && self.in_cwr();
            if cwr {
                self.prr_window(delivered, new_data && lost_now == 0);
            }
            self.update_pacing(cc);
            let nxt = self.snd_nxt;
            self.fill_inner(now, send);
            if cwr {
                self.prr_out += self.snd_nxt - nxt;
            }
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
}
