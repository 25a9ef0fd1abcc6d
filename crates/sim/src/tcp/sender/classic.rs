//! ACK processing without SACK: duplicate ACKs, NewReno (RFC 6582) and Reno fast recovery.
use super::{Report, Sender};
use crate::tcp::cc::{CongestionControl, Recovery};
use crate::time::Ns;

impl Sender {
    pub(super) fn on_ack_classic(
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
            let sample = self.timed_sample(now, ack);
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
                        let half = std::mem::take(&mut self.ns2_half);
                        if half > 0.0 {
                            // ns-2's halving: the halved window keeps its fraction, and this
                            // ACK grows it (opencwnd, congestion avoidance)
                            let w = half.max(self.w.ssthresh).min(self.max_window);
                            self.w.cwnd = (w + 1.0 / w).min(self.max_window);
                        }
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
                    if !self.partial_seen || acked > self.dupthresh as u32 {
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
            } else if self.dupacks == self.dupthresh as u32
                && ((self.recovery == Recovery::Reno && !self.reno_careful)
                    || ack as i64 > self.recover + self.after_rto as i64)
            {
                self.after_rto = false;
                // FlightSize, but never more than the window (`loss_flight`): after a Reno
                // recovery (left on the first new ACK) the data sent on inflated windows is still
                // outstanding, and halving it would raise ssthresh above the window that just
                // lost; with many flows and repeated losses that fed on itself (Σcwnd reached 80
                // times the pipe at 1 Gb/s, 500 flows).
                self.start_recovery(cc, now);
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
}
