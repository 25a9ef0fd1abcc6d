//! The TCP endpoints of a flow as the engine drives them: data reaching the receiver (ACK now
//! or delay it), ACKs reaching the sender, the sender's segments leaving, and the three per-flow
//! timers (retransmission, delayed ACK, pacing). The timers are lazy: the deadline lives in the
//! sender or receiver, and the flow keeps the time of the one event that will look at it
//! (`rto_ev`, `delack_ev`, `pace_ev`); an event that finds the deadline moved later re-arms.
use crate::engine::{Ev, Simulation};
use crate::flows::{window_cwnd, NONE};
use crate::net::packet::{Kind, Packet, Tag};
use crate::tcp::params::Ecn;
use crate::tcp::receiver::{AckAction, EcnAction};
use crate::tcp::sender::Report;

impl Simulation {
    pub(crate) fn send_ack(&mut self, f: usize, sacked: u32) {
        let ece = self.flows[f].receiver.ece;
        self.send_ack_ece(f, sacked, ece);
    }

    /// `send_ack` with the ECE flag given (DCTCP's flush of a delayed ACK keeps the old one).
    #[inline]
    fn send_ack_ece(&mut self, f: usize, sacked: u32, ece: bool) {
        let fl = &mut self.flows[f];
        fl.receiver.unacked = 0;
        fl.receiver.delack_deadline = 0;
        let mut tag = Tag::new(Kind::Ack);
        tag.set_ece(ece);
        let p = Packet {
            flow: f as u32,
            seq: fl.receiver.rcv_nxt,
            sacked,
            bytes: fl.ack_bytes,
            hop: 0,
            tag,
        };
        fl.in_net += self.track_net as u32;
        self.sent += 1;
        self.forward(p, self.now);
    }

    pub(crate) fn on_data_at_receiver(&mut self, f: usize, seq: u32, tag: Tag) {
        let now = self.now;
        let fl = &mut self.flows[f];
        let (ecn, ack_now) = fl.receiver.on_ecn(tag.ce(), tag.cwr());
        if let EcnAction::FlushAck { ece } = ecn {
            self.send_ack_ece(f, u32::MAX, ece);
        }
        let fl = &mut self.flows[f];
        let before = fl.receiver.rcv_nxt;
        let mut action = fl.receiver.on_segment(seq, fl.delayed_ack);
        if before < fl.sender.total && fl.receiver.rcv_nxt >= fl.sender.total {
            self.cold[f].tr_delivered = now;
        }
        let fl = &mut self.flows[f];
        if ack_now {
            action = AckAction::Now;
        }
        if let Some(rx) = fl.sobas.as_mut() {
            let pkt = fl.data_bytes as u32;
            if rx.data(now, fl.receiver.rcv_nxt - before, pkt) {
                self.apply_sobas(f);
            }
        }
        let fl = &mut self.flows[f];
        match action {
            AckAction::Now => self.send_ack(f, seq),
            AckAction::Delay => {
                if fl.receiver.delack_deadline == 0 {
                    let d = now + fl.delack_timeout;
                    fl.receiver.delack_deadline = d;
                    if fl.delack_ev == NONE || d < fl.delack_ev {
                        fl.delack_ev = d;
                        self.cal.push(d, Ev::DelAck(f as u32));
                    }
                }
            }
        }
    }

    pub(crate) fn on_delack(&mut self, f: usize) {
        let now = self.now;
        let fl = &mut self.flows[f];
        if now >= fl.delack_ev {
            fl.delack_ev = NONE;
        }
        let d = fl.receiver.delack_deadline;
        if d == 0 {
            return;
        }
        if d <= now {
            self.send_ack(f, u32::MAX);
        } else if fl.delack_ev == NONE || d < fl.delack_ev {
            fl.delack_ev = d;
            self.cal.push(d, Ev::DelAck(f as u32));
        }
    }

    /// Emit the segments the sender queued in `self.out`; `hi` is the sender's snd_max before
    /// it queued them (below it, a segment is a retransmission).
    pub(crate) fn emit(&mut self, f: usize, out: &mut Vec<u32>, hi: u32) {
        let fl = &mut self.flows[f];
        let n = out.len() as u64;
        if fl.sender.w.cwnd < fl.sender.w.ssthresh {
            fl.ss_pkts += n;
        } else {
            fl.ca_pkts += n;
        }
        if self.track_net {
            fl.in_net += n as u32;
        }
        let bytes = fl.data_bytes;
        let ecn = fl.sender.ecn;
        for &seq in out.iter() {
            let tag = if ecn != Ecn::Off {
                self.ecn_tag(f, seq >= hi)
            } else {
                Tag::new(Kind::Data)
            };
            let p = Packet {
                flow: f as u32,
                seq,
                sacked: u32::MAX,
                bytes,
                hop: 0,
                tag,
            };
            self.sent += 1;
            self.forward(p, self.now);
        }
        out.clear();
    }

    /// The tag of flow f's data segment with its ECN bits (`new`: not a retransmission):
    /// ECT(0), except a classic ECN retransmission (Not-ECT, RFC 3168 §6.1.5, as Linux; DCTCP
    /// marks every segment ECT, as Linux does for a control that needs ECN); CWR on the first
    /// new segment after a reduction. Returned rather than set in the packet, so that the
    /// packet, whose address is then never taken, is built where `forward` reads it.
    #[cold]
    fn ecn_tag(&mut self, f: usize, new: bool) -> Tag {
        let s = &mut self.flows[f].sender;
        let mut tag = Tag::new(Kind::Data);
        if new || s.ecn == Ecn::Dctcp {
            tag.set_ect0();
        }
        if new && s.cwr_pending {
            tag.set_cwr();
            s.cwr_pending = false;
        }
        tag
    }

    /// Bookkeeping after the sender ran: Σcwnd, per-flow cwnd average, the RTO timer.
    pub(crate) fn after_sender(&mut self, f: usize, _rep: Report) {
        if self.flows[f].sender.done && !self.flows[f].finished {
            self.on_transfer_done(f);
        }
        let now = self.now;
        let (lo, hi) = (self.warm, self.end);
        let fl = &mut self.flows[f];
        let w = if fl.sender.done {
            0.0
        } else {
            window_cwnd(&fl.sender)
        };
        if w != fl.counted_cwnd {
            let a = fl.cwnd_t.max(lo);
            let b = now.min(hi);
            if b > a {
                fl.cwnd_area += fl.counted_cwnd * (b - a) as f64;
                fl.cwnd_area2 += fl.counted_cwnd * fl.counted_cwnd * (b - a) as f64;
            }
            fl.cwnd_t = now;
            self.meter.sum_cwnd += w - fl.counted_cwnd;
            fl.counted_cwnd = w;
        }
        let flight = fl.sender.snd_nxt - fl.sender.snd_una;
        if flight != fl.counted_flight {
            self.meter.sum_flight =
                self.meter.sum_flight + flight as u64 - fl.counted_flight as u64;
            fl.counted_flight = flight;
        }
        let d = fl.sender.rto_deadline;
        if d != 0 && (fl.rto_ev == NONE || d < fl.rto_ev) {
            fl.rto_ev = d;
            self.cal.push(d, Ev::Rto(f as u32));
        }
        let w = fl.sender.wake_at;
        if w > now && (fl.pace_ev == NONE || w < fl.pace_ev) {
            fl.pace_ev = w;
            self.cal.push(w, Ev::Pace(f as u32));
        }
    }

    /// Start the current transfer of flow f: send the initial window.
    pub(crate) fn launch(&mut self, f: usize) {
        let now = self.now;
        let mut out = std::mem::take(&mut self.out);
        let fl = &mut self.flows[f];
        if let Some(rx) = fl.sobas.as_mut() {
            if !fl.sender.started {
                rx.start(now);
                self.cal.push(now, Ev::Probe(f as u32));
            }
        }
        fl.sender.started = true;
        fl.cwnd_t = now;
        fl.sender.update_pacing(self.ccs[f].as_ref());
        let hi = fl.sender.snd_max;
        fl.sender.fill(now, |s| out.push(s));
        self.emit(f, &mut out, hi);
        self.out = out;
        self.after_sender(f, Report::default());
    }

    pub(crate) fn on_ack_at_sender(&mut self, f: usize, ack: u32, sacked: u32, tag: Tag) {
        let now = self.now;
        let mut out = std::mem::take(&mut self.out);
        let fl = &mut self.flows[f];
        let hi = fl.sender.snd_max;
        let rep = fl
            .sender
            .on_ack(now, ack, sacked, self.ccs[f].as_mut(), |s| out.push(s));
        if fl.sender.ecn != Ecn::Off {
            // After the ACK's own processing: a loss it reveals takes precedence (the sender
            // ignores ECE in recovery), and what it released left under the window before.
            let cc = self.ccs[f].as_mut();
            let s = &mut fl.sender;
            cc.on_ecn_ack(rep.acked, tag.ece(), s.snd_una, s.snd_max);
            if tag.ece() {
                s.on_ece(now, cc, rep.acked, s.snd_max.saturating_sub(hi));
            }
        }
        self.emit(f, &mut out, hi);
        self.out = out;
        self.after_sender(f, rep);
    }

    pub(crate) fn on_pace(&mut self, f: usize) {
        let now = self.now;
        let fl = &mut self.flows[f];
        if now >= fl.pace_ev {
            fl.pace_ev = NONE;
        }
        let w = fl.sender.wake_at;
        if w == 0 || w > now || fl.sender.done {
            // Stale (the sender moved on) or early: after_sender re-arms if needed.
            self.after_sender(f, Report::default());
            return;
        }
        let mut out = std::mem::take(&mut self.out);
        fl.sender.update_pacing(self.ccs[f].as_ref());
        let hi = fl.sender.snd_max;
        fl.sender.fill(now, |s| out.push(s));
        self.emit(f, &mut out, hi);
        self.out = out;
        self.after_sender(f, Report::default());
    }

    pub(crate) fn on_rto(&mut self, f: usize) {
        let now = self.now;
        let fl = &mut self.flows[f];
        if now >= fl.rto_ev {
            fl.rto_ev = NONE;
        }
        let d = fl.sender.rto_deadline;
        if d == 0 {
            return;
        }
        if d > now {
            if fl.rto_ev == NONE || d < fl.rto_ev {
                fl.rto_ev = d;
                self.cal.push(d, Ev::Rto(f as u32));
            }
            return;
        }
        let mut out = std::mem::take(&mut self.out);
        let hi = fl.sender.snd_max;
        let rep = fl
            .sender
            .on_timeout(now, self.ccs[f].as_mut(), |s| out.push(s));
        self.emit(f, &mut out, hi);
        self.out = out;
        self.after_sender(f, rep);
    }
}
