//! TCP receiver: cumulative ACKs, out-of-order bookkeeping, optional delayed ACKs.
//!
//! ACK policy (RFC 5681 §4.2, as ns-3 and Linux do it): without delayed ACKs every segment is
//! acknowledged at once. With delayed ACKs an in-order segment is acknowledged when a second
//! one arrives or when the delayed-ACK timer (default 200 ms, ns-3's value) expires; a segment
//! that is out of order, fills a hole, or is a duplicate is acknowledged at once.
//!
//! ECN echo ([`Receiver::on_ecn`]): RFC 3168 §6.1.3 — a CE mark sets ECE on every ACK until a
//! segment with CWR arrives; the first CE mark is acknowledged at once (Linux enters quick-ACK
//! mode on it). RFC 8257 §3.2 (DCTCP) — ECE repeats the CE bit of the segments acknowledged;
//! when that bit changes while an ACK is delayed, the delayed ACK leaves at once with the old
//! bit, so each ACK covers segments of one kind.
use super::params::Ecn;

/// Segments received above the cumulative point, as a growable circular bitmap.
#[derive(Debug, Clone, Default)]
pub struct OooSet {
    bits: Vec<u64>,
    /// Number of bits (power of two, or 0).
    cap: u32,
    count: u32,
}

impl OooSet {
    #[inline]
    fn idx(&self, seq: u32) -> (usize, u64) {
        let i = seq & (self.cap - 1);
        ((i / 64) as usize, 1u64 << (i % 64))
    }

    /// Mark `seq`, given the cumulative point `base` (seq > base). Returns false if already set.
    pub fn insert(&mut self, base: u32, seq: u32) -> bool {
        let dist = seq - base;
        if dist >= self.cap {
            self.grow(base, dist + 1);
        }
        let (w, m) = self.idx(seq);
        if self.bits[w] & m != 0 {
            return false;
        }
        self.bits[w] |= m;
        self.count += 1;
        true
    }

    /// Is `seq` marked? (Must lie within the window of the current base.)
    #[inline]
    pub fn contains(&self, seq: u32) -> bool {
        if self.cap == 0 || self.count == 0 {
            return false;
        }
        let (w, m) = self.idx(seq);
        self.bits[w] & m != 0
    }

    /// Is `seq` marked, given the base it was inserted against? False for anything outside
    /// the bitmap's current span [base, base + capacity).
    #[inline]
    pub fn has(&self, base: u32, seq: u32) -> bool {
        seq.wrapping_sub(base) < self.cap && self.contains(seq)
    }

    /// Remove `seq` if marked; returns whether it was.
    #[inline]
    pub fn take(&mut self, seq: u32) -> bool {
        if self.contains(seq) {
            let (w, m) = self.idx(seq);
            self.bits[w] &= !m;
            self.count -= 1;
            true
        } else {
            false
        }
    }

    /// The lowest segment in [from, end) that is not marked, or `end` if all are, for marks
    /// inserted against `base` (from >= base); a word of the bitmap at a time.
    pub fn next_unmarked_from(&self, base: u32, from: u32, end: u32) -> u32 {
        if self.count == 0 {
            return from.min(end);
        }
        // beyond the bitmap's span nothing is marked (its bits there are other segments')
        let limit = end.min(base.saturating_add(self.cap));
        let mut p = from;
        while p < limit {
            let i = p & (self.cap - 1);
            let off = i % 64;
            let word = !self.bits[(i / 64) as usize] >> off;
            if word != 0 {
                return (p + word.trailing_zeros()).min(limit);
            }
            p += 64 - off;
        }
        limit.max(from.min(end))
    }

    /// Remove `seq` if marked, for marks inserted against `base`: nothing outside the bitmap's
    /// span [base, base + capacity) is touched (where [`OooSet::take`] would clear an alias).
    #[inline]
    pub fn take_from(&mut self, base: u32, seq: u32) -> bool {
        if self.count == 0 || seq.wrapping_sub(base) >= self.cap {
            return false;
        }
        let (w, m) = self.idx(seq);
        let marked = self.bits[w] & m != 0;
        self.bits[w] &= !m;
        self.count -= marked as u32;
        marked
    }

    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// The lowest marked segment in [from, end), for marks inserted against `base` (from >=
    /// base); a word of the bitmap at a time.
    pub fn next_from(&self, base: u32, from: u32, end: u32) -> Option<u32> {
        if self.count == 0 {
            return None;
        }
        let end = end.min(base.saturating_add(self.cap));
        let mut p = from;
        while p < end {
            let i = p & (self.cap - 1);
            let off = i % 64;
            let word = self.bits[(i / 64) as usize] >> off;
            if word != 0 {
                let q = p + word.trailing_zeros();
                return (q < end).then_some(q);
            }
            p += 64 - off;
        }
        None
    }

    fn grow(&mut self, base: u32, need: u32) {
        let new_cap = need.next_power_of_two().max(64);
        let mut n = OooSet {
            bits: vec![0; (new_cap / 64) as usize],
            cap: new_cap,
            count: 0,
        };
        if self.count > 0 {
            for d in 0..self.cap {
                let s = base.wrapping_add(d);
                if self.contains(s) {
                    let (w, m) = n.idx(s);
                    n.bits[w] |= m;
                    n.count += 1;
                }
            }
        }
        *self = n;
    }
}

/// What the receiver wants done after a segment arrives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AckAction {
    /// Send an ACK now.
    Now,
    /// Hold the ACK; make sure the delayed-ACK timer is armed.
    Delay,
}

/// Field order is layout (repr(C)): the scalars an in-order segment updates, then the bitmap.
#[derive(Debug, Clone, Default)]
#[repr(C)]
pub struct Receiver {
    /// Next segment expected (cumulative ACK value).
    pub rcv_nxt: u32,
    /// In-order segments received and not yet acknowledged (delayed ACKs; at most 2).
    pub unacked: u16,
    /// The connection's ECN (set with the flow; the ACKs' ECE flag is `ece`).
    pub ecn: Ecn,
    /// ECE on the ACKs sent now: RFC 3168, a CE mark not yet answered by CWR; DCTCP, the CE bit
    /// of the last segment.
    pub ece: bool,
    /// Delayed-ACK timer deadline (0 = not armed).
    pub delack_deadline: u64,
    /// Segments delivered in order to the application (counted once each).
    pub delivered: u64,
    pub ooo: OooSet,
}

/// What the ECN echo asks of the engine for an arriving segment, before the segment itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EcnAction {
    /// Nothing to do before the segment.
    None,
    /// DCTCP: the CE bit changed with an ACK delayed: send that ACK now, with ECE = `ece`
    /// (the old state), then take the segment.
    FlushAck { ece: bool },
}

impl Receiver {
    /// The ECN bits of an arriving data segment (CE mark, CWR flag): update the echo. Returns
    /// what must happen first, and whether the segment's own ACK must leave at once.
    #[inline]
    pub fn on_ecn(&mut self, ce: bool, cwr: bool) -> (EcnAction, bool) {
        match self.ecn {
            Ecn::Off => (EcnAction::None, false),
            Ecn::Classic => {
                // CWR ends the echo of the marks before it; a CE on the same segment starts a
                // new one (RFC 3168 §6.1.3).
                if cwr {
                    self.ece = false;
                }
                let first = ce && !self.ece;
                self.ece |= ce;
                (EcnAction::None, first)
            }
            Ecn::Dctcp => {
                if ce == self.ece {
                    return (EcnAction::None, false);
                }
                let old = self.ece;
                self.ece = ce;
                if self.unacked > 0 {
                    (EcnAction::FlushAck { ece: old }, false)
                } else {
                    (EcnAction::None, false)
                }
            }
        }
    }

    /// A data segment `seq` arrived.
    pub fn on_segment(&mut self, seq: u32, delayed_ack: bool) -> AckAction {
        if seq < self.rcv_nxt {
            // Duplicate (a spurious retransmission): ACK at once (RFC 5681 §4.2).
            return AckAction::Now;
        }
        if seq > self.rcv_nxt {
            self.ooo.insert(self.rcv_nxt, seq);
            return AckAction::Now;
        }
        // In order: advance over anything buffered above.
        self.rcv_nxt += 1;
        self.delivered += 1;
        let mut filled_hole = false;
        while self.ooo.take(self.rcv_nxt) {
            self.rcv_nxt += 1;
            self.delivered += 1;
            filled_hole = true;
        }
        if !delayed_ack || filled_hole || !self.ooo.is_empty() {
            return AckAction::Now;
        }
        self.unacked += 1;
        if self.unacked >= 2 {
            AckAction::Now
        } else {
            AckAction::Delay
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cumulative_ack_with_holes() {
        let mut r = Receiver::default();
        assert_eq!(r.on_segment(0, false), AckAction::Now);
        assert_eq!(r.rcv_nxt, 1);
        r.on_segment(2, false);
        r.on_segment(3, false);
        assert_eq!(r.rcv_nxt, 1);
        r.on_segment(1, false);
        assert_eq!(r.rcv_nxt, 4);
        // Far ahead forces the bitmap to grow and keep its marks.
        r.on_segment(10, false);
        r.on_segment(500, false);
        for s in 4..10 {
            r.on_segment(s, false);
        }
        assert_eq!(r.rcv_nxt, 11);
        for s in 11..500 {
            r.on_segment(s, false);
        }
        assert_eq!(r.rcv_nxt, 501);
        assert_eq!(r.delivered, 501);
        assert!(r.ooo.is_empty());
    }

    /// `next_from` finds the lowest mark at or above `from` across words and the ring's wrap,
    /// never beyond `end` or the bitmap's span; `take_from` leaves aliases outside the span.
    #[test]
    fn next_mark_from_a_point_and_span_safe_removal() {
        let mut s = OooSet::default();
        let base = 1000;
        for q in [1003, 1070, 1190] {
            s.insert(base, q);
        }
        assert_eq!(s.next_from(base, 1000, 2000), Some(1003));
        assert_eq!(s.next_from(base, 1004, 2000), Some(1070));
        assert_eq!(s.next_from(base, 1071, 2000), Some(1190));
        assert_eq!(s.next_from(base, 1071, 1190), None);
        assert_eq!(s.next_from(base, 1191, 5000), None);
        // the span is 256 here: 1003 + 256 aliases 1003 and must be neither found nor removed
        let cap = 256;
        assert!(!s.take_from(base, 1003 + cap));
        assert_eq!(s.next_from(base, 1003, 2000), Some(1003));
        // a later base: marks inserted against it wrap around the ring
        let base2 = 1100;
        s.take_from(base, 1003);
        s.take_from(base, 1070);
        s.insert(base2, 1300);
        assert_eq!(s.next_from(base2, 1100, 2000), Some(1190));
        assert_eq!(s.next_from(base2, 1191, 2000), Some(1300));
        assert!(s.take_from(base2, 1300));
        assert_eq!(s.next_from(base2, 1191, 2000), None);
    }

    /// `next_unmarked_from` skips a marked run across words and the ring's wrap, stops at
    /// `end`, and treats everything beyond the bitmap's span as unmarked.
    #[test]
    fn next_unmarked_skips_a_marked_run() {
        let mut s = OooSet::default();
        assert_eq!(s.next_unmarked_from(0, 5, 9), 5);
        let base = 1000;
        for q in 1000..1130 {
            s.insert(base, q);
        }
        s.take(1070);
        assert_eq!(s.next_unmarked_from(base, 1000, 2000), 1070);
        assert_eq!(s.next_unmarked_from(base, 1071, 2000), 1130);
        assert_eq!(s.next_unmarked_from(base, 1071, 1100), 1100);
        // marks run to the end of the 256-wide span after a later base: nothing beyond is marked
        let base2 = 1100;
        for q in 1130..1356 {
            s.insert(base2, q);
        }
        assert_eq!(s.next_unmarked_from(base2, 1100, 5000), 1356);
    }

    fn rx(ecn: Ecn) -> Receiver {
        Receiver {
            ecn,
            ..Receiver::default()
        }
    }

    #[test]
    fn classic_ece_repeats_from_a_ce_mark_until_a_cwr_segment() {
        let mut r = rx(Ecn::Classic);
        assert_eq!(r.on_ecn(false, false), (EcnAction::None, false));
        assert!(!r.ece);
        // The first mark: ECE, and its ACK leaves at once (even with one segment delayed).
        assert_eq!(r.on_ecn(true, false), (EcnAction::None, true));
        assert!(r.ece);
        // Unmarked segments keep the echo; a second mark is no first mark.
        assert_eq!(r.on_ecn(false, false), (EcnAction::None, false));
        assert_eq!(r.on_ecn(true, false), (EcnAction::None, false));
        assert!(r.ece);
        // CWR ends it ...
        r.on_ecn(false, true);
        assert!(!r.ece);
        // ... unless the CWR segment is itself marked: a new echo starts.
        r.on_ecn(true, false);
        assert_eq!(r.on_ecn(true, true), (EcnAction::None, true));
        assert!(r.ece);
        // ECN off: a CE mark is not echoed.
        let mut r = rx(Ecn::Off);
        r.on_ecn(true, false);
        assert!(!r.ece);
    }

    #[test]
    fn dctcp_ece_follows_the_ce_bit_and_flushes_a_delayed_ack_when_it_changes() {
        let mut r = rx(Ecn::Dctcp);
        assert_eq!(r.on_segment(0, true), AckAction::Delay); // one segment waits
                                                             // CE arrives: the waiting ACK leaves first with the old (clear) ECE.
        assert_eq!(
            r.on_ecn(true, false),
            (EcnAction::FlushAck { ece: false }, false)
        );
        assert!(r.ece);
        r.unacked = 0; // (the engine's send_ack)
                       // Nothing waiting: no flush on the next change.
        assert_eq!(r.on_ecn(false, false), (EcnAction::None, false));
        assert!(!r.ece);
        // CWR means nothing to a DCTCP receiver.
        r.on_ecn(true, true);
        r.on_ecn(true, true);
        assert!(r.ece);
    }

    #[test]
    fn delayed_ack_every_second_segment() {
        let mut r = Receiver::default();
        assert_eq!(r.on_segment(0, true), AckAction::Delay);
        assert_eq!(r.on_segment(1, true), AckAction::Now);
        r.unacked = 0;
        assert_eq!(r.on_segment(3, true), AckAction::Now); // out of order
        assert_eq!(r.on_segment(2, true), AckAction::Now); // fills the hole
    }
}
