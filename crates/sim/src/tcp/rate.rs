//! Delivery-rate samples, one per ACK, for controls that model the path (BBR).
//!
//! The estimator of Linux's `tcp_rate.c` (Cheng, Cardwell, Hassas Yeganeh, Jacobson,
//! draft-cheng-iccrg-delivery-rate-estimation), written for the engine's whole-segment
//! sequence numbers:
//!
//! - when a segment is (re)transmitted the sender records, for that segment, the connection's
//!   `delivered` count and the time it last changed (`delivered_time`), and the send time of
//!   the first segment of the current flight (`first_sent`); if nothing is in flight the
//!   flight restarts there (both times set to now);
//! - on an ACK, of the segments newly delivered (cumulatively or by SACK) the most recently
//!   sent one gives the sample: `delivered` now minus its recorded `delivered`, over the longer
//!   of the send interval (its send time minus its `first_sent`) and the ACK interval (now
//!   minus its recorded `delivered_time`); an interval shorter than the flow's minimum RTT is
//!   not trusted (as Linux, to ignore ACK compression);
//! - a sample is application-limited when the segment was sent while the connection had
//!   nothing more to send (`app_limited` marks the `delivered` count up to which that holds).
//!
//! The RTT sample of an ACK is the time since the most recently sent newly delivered segment
//! left, if it was not retransmitted (Linux's `ca_rtt_us`); the minimum over the connection is
//! Linux's `tcp_min_rtt` (whose 5-minute window is longer than any run here).
//!
//! Only senders whose control asks for samples keep this state (`Sender::rate`), so loss-based
//! controls pay nothing for it.
use crate::time::Ns;
use std::collections::VecDeque;

/// What was recorded when a segment was last transmitted.
#[derive(Debug, Clone, Copy)]
struct TxRecord {
    sent: Ns,
    first_sent: Ns,
    delivered_time: Ns,
    delivered: u64,
    app_limited: bool,
    retransmitted: bool,
    /// False once the segment's delivery has been counted (SACKed, then cumulatively ACKed).
    pending: bool,
}

const EMPTY: TxRecord = TxRecord {
    sent: 0,
    first_sent: 0,
    delivered_time: 0,
    delivered: 0,
    app_limited: false,
    retransmitted: false,
    pending: false,
};

/// One delivery-rate sample (Linux `struct rate_sample`), in segments and nanoseconds.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct RateSample {
    /// Segments delivered over `interval`; -1 when this ACK gave no sample.
    pub delivered: i64,
    /// The sample's interval, ns; 0 when no valid sample (none, or shorter than the min RTT).
    pub interval: Ns,
    /// The connection's `delivered` count when the sampled segment was sent.
    pub prior_delivered: u64,
    /// Segments newly delivered (cumulatively ACKed or SACKed) by this ACK.
    pub acked_sacked: u32,
    /// Segments newly deemed lost on this ACK.
    pub losses: u32,
    /// Segments in flight (the pipe) before this ACK.
    pub prior_in_flight: u32,
    /// RTT of the most recently sent newly delivered segment, if it was not retransmitted.
    pub rtt: Option<Ns>,
    /// The sampled segment was sent while the application had nothing more to send.
    pub is_app_limited: bool,
}

impl RateSample {
    /// Delivery rate of a valid sample, segments per second.
    pub fn rate(&self) -> Option<f64> {
        (self.delivered >= 0 && self.interval > 0)
            .then(|| self.delivered as f64 * 1e9 / self.interval as f64)
    }
}

/// The per-connection estimator. Records are kept for segments [base, base + len).
#[derive(Debug, Clone, Default)]
pub struct RateSampler {
    /// Payload bytes per segment (what a control converts rates to bytes with).
    pub mss: u32,
    recs: VecDeque<TxRecord>,
    base: u32,
    /// Segments delivered so far (Linux `tp->delivered`).
    pub delivered: u64,
    /// When `delivered` last changed (Linux `tp->delivered_mstamp`).
    pub delivered_time: Ns,
    first_sent: Ns,
    /// Non-zero: samples are app-limited until `delivered` exceeds this (Linux `tp->app_limited`).
    pub app_limited: u64,
    /// Segments ever deemed lost (Linux `tp->lost`).
    pub lost: u64,
    /// Smallest RTT sample of the connection, ns.
    pub min_rtt: Option<Ns>,
    // The sample being built from the current ACK.
    cur: RateSample,
    cur_have: bool,
    cur_prior_time: Ns,
    cur_send_elapsed: Ns,
    cur_rtt_sent: Ns,
    cur_sent: Ns,
    cur_seq: u32,
    /// Segments the receiver reported by duplicate ACKs without SACK (Linux's Reno
    /// `sacked_out`): counted as delivered and as out of the pipe.
    pub reno_sacked: u32,
    /// The connection is in the state after a retransmission timeout, until the cumulative
    /// ACK passes what was outstanding then (Linux's `TCP_CA_Loss`).
    pub in_loss: bool,
}

impl RateSampler {
    pub fn new(mss: u32) -> RateSampler {
        RateSampler {
            mss,
            ..RateSampler::default()
        }
    }

    #[inline]
    fn slot(&mut self, seq: u32) -> Option<&mut TxRecord> {
        let i = seq.wrapping_sub(self.base) as usize;
        self.recs.get_mut(i)
    }

    /// Segment `seq` is transmitted at `now`; `idle`: nothing was outstanding before it.
    pub fn on_send(&mut self, seq: u32, now: Ns, idle: bool, retransmission: bool) {
        if idle {
            // A new flight starts: measure from here, not from the last ACK of the old one.
            self.first_sent = now;
            self.delivered_time = now;
        }
        let rec = TxRecord {
            sent: now,
            first_sent: self.first_sent,
            delivered_time: self.delivered_time,
            delivered: self.delivered,
            app_limited: self.app_limited != 0,
            retransmitted: retransmission,
            pending: true,
        };
        if self.recs.is_empty() {
            self.base = seq;
        }
        let i = seq.wrapping_sub(self.base) as usize;
        if i >= self.recs.len() {
            self.recs.resize(i + 1, EMPTY);
        }
        self.recs[i] = rec;
    }

    /// Start the sample of a new ACK; `prior_in_flight` is the pipe before it.
    pub fn begin_ack(&mut self, prior_in_flight: u32) {
        self.cur = RateSample {
            delivered: -1,
            prior_in_flight,
            ..RateSample::default()
        };
        self.cur_have = false;
        self.cur_rtt_sent = 0;
    }

    /// Segment `seq` is newly known to have arrived (SACKed or cumulatively ACKed) at `now`.
    /// Returns false if its delivery was already counted.
    pub fn on_delivered(&mut self, seq: u32, now: Ns) -> bool {
        let Some(rec) = self.slot(seq).map(|r| *r) else {
            return false;
        };
        if !rec.pending {
            return false;
        }
        if let Some(r) = self.slot(seq) {
            r.pending = false;
        }
        // The most recently sent segment of those delivered (ties: the higher one).
        if !self.cur_have
            || rec.sent > self.cur_sent
            || (rec.sent == self.cur_sent && seq > self.cur_seq)
        {
            self.cur_have = true;
            self.cur_sent = rec.sent;
            self.cur_seq = seq;
            self.cur.prior_delivered = rec.delivered;
            self.cur_prior_time = rec.delivered_time;
            self.cur.is_app_limited = rec.app_limited;
            self.cur_send_elapsed = rec.sent.saturating_sub(rec.first_sent);
            // Later samples measure their send interval from this segment's departure.
            self.first_sent = rec.sent;
        }
        if !rec.retransmitted && rec.sent >= self.cur_rtt_sent {
            self.cur_rtt_sent = rec.sent;
            // Linux takes RTT samples from its microsecond clock (tcp_clock_us: both stamps
            // truncated to whole µs); BBR's strict `<` on min_rtt depends on the ties this makes.
            self.cur.rtt = Some(now / 1_000 * 1_000 - rec.sent / 1_000 * 1_000);
        }
        true
    }

    /// Forget the records below `una` (cumulatively acknowledged).
    pub fn release_below(&mut self, una: u32) {
        while !self.recs.is_empty() && self.base != una {
            self.recs.pop_front();
            self.base = self.base.wrapping_add(1);
        }
        if self.recs.is_empty() {
            self.base = una;
        }
    }

    /// `n` segments newly deemed lost on this ACK.
    pub fn on_lost(&mut self, n: u32) {
        self.lost += n as u64;
        self.cur.losses += n;
    }

    /// Finish the ACK's sample (Linux `tcp_rate_gen`): `newly_delivered` segments were
    /// delivered by it.
    pub fn finish_ack(&mut self, now: Ns, newly_delivered: u32) -> RateSample {
        self.delivered += newly_delivered as u64;
        if self.app_limited != 0 && self.delivered > self.app_limited {
            self.app_limited = 0;
        }
        if newly_delivered > 0 {
            self.delivered_time = now;
        }
        if let Some(r) = self.cur.rtt {
            self.min_rtt = Some(self.min_rtt.map_or(r, |m| m.min(r)));
        }
        let mut rs = self.cur;
        rs.acked_sacked = newly_delivered;
        if !self.cur_have {
            rs.delivered = -1;
            rs.interval = 0;
            return rs;
        }
        rs.delivered = (self.delivered - rs.prior_delivered) as i64;
        let ack_elapsed = now.saturating_sub(self.cur_prior_time);
        rs.interval = self.cur_send_elapsed.max(ack_elapsed);
        if rs.interval < self.min_rtt.unwrap_or(0) {
            rs.interval = 0; // shorter than a round trip: ACK compression, not the path's rate
        }
        rs
    }

    /// The application has nothing more to send with `in_flight` segments in the pipe: samples
    /// of what is sent from now on are app-limited (Linux `tcp_rate_check_app_limited`).
    pub fn mark_app_limited(&mut self, in_flight: u32) {
        self.app_limited = (self.delivered + in_flight as u64).max(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Ns = 1_000_000;

    /// A paced sender at one segment per ms over a 10-ms path: every sample is 1000 seg/s.
    #[test]
    fn steady_flow_samples_its_sending_rate() {
        let mut r = RateSampler::new(1000);
        let mut sent_at = vec![];
        let mut una = 0u32;
        let mut rates = vec![];
        for seq in 0..200u32 {
            let now = seq as Ns * MS;
            // ACKs of segments sent 10 ms ago arrive first.
            while (una as usize) < sent_at.len() && sent_at[una as usize] + 10 * MS <= now {
                r.begin_ack(seq - una);
                assert!(r.on_delivered(una, now));
                una += 1;
                r.release_below(una);
                let rs = r.finish_ack(now, 1);
                assert_eq!(rs.rtt, Some(10 * MS));
                if let Some(x) = rs.rate() {
                    rates.push(x);
                }
            }
            r.on_send(seq, now, seq == una, false);
            sent_at.push(now);
        }
        assert!(rates.len() > 150);
        for x in &rates[20..] {
            assert!((x - 1000.0).abs() < 1e-6, "{x}");
        }
        assert_eq!(r.min_rtt, Some(10 * MS));
    }

    /// RTT samples come from a microsecond clock as Linux's do: two segments whose true RTTs
    /// differ by under a microsecond give the same sample when their stamps truncate alike, so
    /// BBR's strict `<` on min_rtt sees a tie, not a new minimum.
    #[test]
    fn rtt_samples_are_whole_microseconds_of_the_stamps() {
        let mut r = RateSampler::new(1000);
        r.on_send(0, 400, true, false); // sent at 0.4 µs: stamp 0 µs
        r.begin_ack(1);
        assert!(r.on_delivered(0, 10 * MS + 900)); // ACKed at 10 ms + 0.9 µs: stamp 10 000 µs
        r.release_below(1);
        assert_eq!(r.finish_ack(10 * MS + 900, 1).rtt, Some(10 * MS));
        r.on_send(1, 10 * MS + 1_100, true, false); // sent at 10 001.1 µs: stamp 10 001 µs
        r.begin_ack(1);
        assert!(r.on_delivered(1, 20 * MS + 1_999)); // 20 001.999 µs: stamp 20 001 µs
        r.release_below(2);
        assert_eq!(r.finish_ack(20 * MS + 1_999, 1).rtt, Some(10 * MS));
    }

    /// A burst sent at once and ACKed 1 ms apart: the ACK interval dominates, so the sample is
    /// the bottleneck's rate (1000 seg/s), not the burst's infinite sending rate.
    #[test]
    fn burst_is_measured_at_the_ack_rate() {
        let mut r = RateSampler::new(1000);
        for seq in 0..20 {
            r.on_send(seq, 0, seq == 0, false);
        }
        let mut last = None;
        for seq in 0..20u32 {
            let now = 20 * MS + seq as Ns * MS;
            r.begin_ack(20 - seq);
            r.on_delivered(seq, now);
            r.release_below(seq + 1);
            last = Some(r.finish_ack(now, 1));
        }
        let rs = last.unwrap();
        assert_eq!(rs.delivered, 20);
        assert_eq!(rs.interval, 39 * MS);
        // A round and a bit: 20 segments over 39 ms (the first ACK came after 20 ms).
        assert!((rs.rate().unwrap() - 20.0 / 0.039).abs() < 1e-6);
    }

    #[test]
    fn sacked_then_acked_counts_once_and_app_limited_clears() {
        let mut r = RateSampler::new(1000);
        r.mark_app_limited(0);
        for seq in 0..4 {
            r.on_send(seq, 0, seq == 0, false);
        }
        r.begin_ack(4);
        assert!(r.on_delivered(2, 10 * MS)); // SACK of 2
        let rs = r.finish_ack(10 * MS, 1);
        assert!(rs.is_app_limited);
        r.begin_ack(3);
        assert!(r.on_delivered(0, 11 * MS));
        assert!(r.on_delivered(1, 11 * MS));
        assert!(!r.on_delivered(2, 11 * MS), "already counted");
        r.release_below(3);
        let rs = r.finish_ack(11 * MS, 2);
        assert_eq!(r.delivered, 3);
        assert_eq!(rs.acked_sacked, 2);
        // app_limited was 1 (delivered 0 + in flight 0, at least 1): cleared once 3 > 1.
        assert_eq!(r.app_limited, 0);
        // Retransmitted segments give no RTT sample.
        r.on_send(3, 12 * MS, false, true);
        r.begin_ack(1);
        r.on_delivered(3, 20 * MS);
        r.release_below(4);
        let rs = r.finish_ack(20 * MS, 1);
        assert_eq!(rs.rtt, None);
    }
}
