//! The retransmission timeout (RFC 6298 with go-back-N), and the one timer through which
//! RACK-TLP's reordering timer and probe timeout also fire.
use super::rack::{LOST, RETRANS};
use super::{Report, Sender};
use crate::tcp::cc::CongestionControl;
use crate::tcp::params::FlightSize;
use crate::time::Ns;

impl Sender {
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
        self.cwr_prr = false;
        // FlightSize: what was sent since the last go-back-N restart (on a repeated timeout
        // of the same segment that is just the retransmission, so ssthresh falls to 2). With
        // SACK, no more than the scoreboard's pipe: SACK recovery keeps sending new data while
        // snd_una waits for a lost retransmission, so snd_nxt - snd_una can grow to several
        // windows, and halving that would raise ssthresh above the window that just overflowed
        // (Linux keeps the recovery's ssthresh; ns-3 halves its scoreboard's bytes in flight).
        let mut flight = self.snd_nxt - self.snd_una;
        if self.flight_size == FlightSize::Cwnd {
            flight = self.loss_flight(); // the window, as Linux's tcp_enter_loss
        } else if self.sack {
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
        // A repeat of a timeout with no RTT sample in between (backoff > 1): RFC 5681 §3.1 holds
        // ssthresh there, as ns-3 and Linux do; off, it falls to what one retransmission gives.
        let held = (self.repeat_rto_holds_ssthresh && self.backoff > 1).then_some(self.w.ssthresh);
        let window = self.w.cwnd.min(self.max_window);
        cc.on_timeout(&mut self.w, flight, now);
        if self.ns2_halves() {
            self.w.ssthresh = (window / 2.0).floor().max(2.0); // ns-2: ⌊windowd() / 2⌋
        }
        self.ns2_half = 0.0; // a timeout ends the recovery the halving started
        if let Some(h) = held {
            self.w.ssthresh = h;
        }
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
                let seq = self.snd_una + i as u32;
                if self.sacked.has(self.snd_una, seq) {
                    continue;
                }
                e.1 = (e.1 | LOST) & !RETRANS;
                rk.to_resend.insert(self.snd_una, seq);
                self.lost_out += 1;
            }
            rk.rxt_from = self.snd_una;
            // every entry of the send-order list is now dead (SACKed, or lost and not resent)
            rk.sent_order.clear();
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
