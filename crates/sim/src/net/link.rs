//! A unidirectional link: a drop-tail queue, serialization at a fixed rate, then propagation.
//!
//! The link is FIFO, so a packet's transmission start is known on arrival:
//! start = max(arrival, time the link frees up), departure = start + size/rate. The packet's
//! arrival at the next hop is departure + delay. One event per hop at most.
use super::queue::DropTail;
use crate::time::Ns;

/// Field order is layout: the first 64-byte line holds what every packet reads or writes, the
/// second the queue (touched when packets wait), the rest what rarer events need. With the
/// alignment a link's per-packet state is one cache line (most links are private access links,
/// touched once per packet, so each extra line was a cache miss).
#[derive(Debug, Clone)]
#[repr(C, align(64))]
pub struct Link {
    /// When the last accepted packet finishes transmission.
    pub busy_until: Ns,
    /// Serialization time of a packet of `tx_bytes` (the last size offered: a link mostly
    /// carries one size, data or ACKs, and this saves the float product and rounding).
    tx_time: Ns,
    pub delay_ns: Ns,
    // Counters over the measurement window.
    pub arrivals: u64,
    pub packets: u64,
    pub bytes: u64,
    /// Bits serialized inside the measurement window; a packet straddling a window edge counts
    /// only for the part of its serialization inside the window, so utilization ≤ 1 exactly.
    pub window_bits: f64,
    tx_bytes: u32,
    /// Used by a single flow in a single direction (and not measured): its arrivals can be
    /// processed ahead of simulated time, inline with the previous hop.
    pub private: bool,
    pub queue: DropTail,
    pub rate_bps: f64,
    /// Nanoseconds per byte on the wire.
    ns_per_byte: f64,
    pub drops: u64,
    /// Drops over the whole run (for the conservation account).
    pub drops_total: u64,
}

/// What happened to a packet offered to a link.
pub enum Offer {
    Dropped,
    /// Accepted; the packet reaches the far end at `arrive` and waited `wait` in the queue.
    Accepted {
        arrive: Ns,
        wait: Ns,
        depart: Ns,
    },
}

impl Link {
    pub fn new(rate_bps: f64, delay_ns: Ns, queue: DropTail) -> Link {
        Link {
            rate_bps,
            ns_per_byte: 8e9 / rate_bps,
            delay_ns,
            queue,
            busy_until: 0,
            private: false,
            arrivals: 0,
            drops: 0,
            packets: 0,
            bytes: 0,
            window_bits: 0.0,
            drops_total: 0,
            tx_time: 1,
            tx_bytes: 0,
        }
    }

    /// Serialization time of `bytes`, rounded up to a whole nanosecond (never faster than
    /// the nominal rate).
    #[inline]
    pub fn tx_ns(&self, bytes: u32) -> Ns {
        ((bytes as f64 * self.ns_per_byte).ceil() as Ns).max(1)
    }

    /// Drop queue entries whose transmission has started by `t` (no measurement).
    #[inline]
    pub fn advance(&mut self, t: Ns) {
        while let Some(s) = self.queue.next_start() {
            if s > t {
                break;
            }
            self.queue.pop();
        }
    }

    /// Bits serialized inside the measurement window `window` up to time `t`, counting only
    /// packets offered so far. Work accepted but not yet serialized at `t` forms one busy
    /// period from `t` to `busy_until` (FIFO, no gaps), so it is subtracted from `window_bits`.
    pub fn serialized_bits(&self, t: Ns, window: (Ns, Ns)) -> f64 {
        let from = t.max(window.0);
        let to = self.busy_until.min(window.1);
        let pending = if to > from {
            (to - from) as f64 * self.rate_bps / 1e9
        } else {
            0.0
        };
        (self.window_bits - pending).max(0.0)
    }

    /// Offer a packet at time `t` (the queue must already be advanced to `t`).
    /// `window` is the measurement window [lo, hi).
    #[inline(always)] // one call site, in the engine's per-packet loop
    pub fn offer(&mut self, t: Ns, bytes: u32, window: (Ns, Ns)) -> Offer {
        let in_window = t >= window.0 && t < window.1;
        if in_window {
            self.arrivals += 1;
        }
        let start = t.max(self.busy_until);
        if start > t {
            if !self.queue.fits(bytes) {
                self.drops_total += 1;
                if in_window {
                    self.drops += 1;
                }
                return Offer::Dropped;
            }
            self.queue.push(start, bytes);
        }
        let tx_ns = if bytes == self.tx_bytes {
            self.tx_time
        } else {
            self.tx_bytes = bytes;
            self.tx_time = self.tx_ns(bytes);
            self.tx_time
        };
        let depart = start + tx_ns;
        self.busy_until = depart;
        if depart >= window.0 && depart < window.1 {
            self.packets += 1;
            self.bytes += bytes as u64;
        }
        let (lo, hi) = (start.max(window.0), depart.min(window.1));
        if hi > lo {
            let bits = bytes as f64 * 8.0;
            self.window_bits += if hi - lo == tx_ns {
                bits // wholly inside the window (the same sum: x / x is exactly 1)
            } else {
                bits * ((hi - lo) as f64 / tx_ns as f64)
            };
        }
        Offer::Accepted {
            arrive: depart + self.delay_ns,
            wait: start - t,
            depart,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_edges_are_prorated_so_a_busy_link_measures_exactly_one() {
        // 8 Mb/s, 1000-byte packets take 1 ms; the link is kept busy from t = 0. The window
        // [0.5 ms, 10.2 ms) cuts the first and the last packet: counting whole departing packets
        // would give 10 packets in 9.7 ms (utilization 1.03); prorating gives exactly 1.
        let mut l = Link::new(8e6, 0, DropTail::new(None, None));
        let w = (500_000, 10_200_000);
        for _ in 0..20 {
            l.advance(0);
            assert!(matches!(l.offer(0, 1000, w), Offer::Accepted { .. }));
        }
        let span_s = (w.1 - w.0) as f64 * 1e-9;
        let util = l.window_bits / (l.rate_bps * span_s);
        assert!((util - 1.0).abs() < 1e-12, "utilization {util}");
        assert_eq!(l.packets, 10);
    }

    #[test]
    fn fifo_timing_and_packet_limit() {
        // 8 Mb/s: 1000 bytes take 1 ms. Limit 2 waiting packets.
        let mut l = Link::new(8e6, 5_000_000, DropTail::new(Some(2), None));
        let w = (0, u64::MAX);
        let mut arrivals = vec![];
        for _ in 0..4 {
            l.advance(0);
            match l.offer(0, 1000, w) {
                Offer::Accepted { arrive, .. } => arrivals.push(arrive),
                Offer::Dropped => arrivals.push(0),
            }
        }
        // First transmits at once, two wait, the fourth is dropped.
        assert_eq!(arrivals, vec![6_000_000, 7_000_000, 8_000_000, 0]);
        assert_eq!(l.drops, 1);
        // At 1.5 ms one of the waiting packets has started: room for one more.
        l.advance(1_500_000);
        assert_eq!(l.queue.len(), 1);
        match l.offer(1_500_000, 1000, w) {
            Offer::Accepted { arrive, wait, .. } => {
                assert_eq!(arrive, 9_000_000);
                assert_eq!(wait, 1_500_000);
            }
            Offer::Dropped => panic!("should fit"),
        }
    }

    #[test]
    fn byte_limit() {
        let mut l = Link::new(8e6, 0, DropTail::new(None, Some(1500)));
        let w = (0, u64::MAX);
        let mut acc = 0;
        for _ in 0..4 {
            if let Offer::Accepted { .. } = l.offer(0, 1000, w) {
                acc += 1;
            }
        }
        // One in transmission, one waiting (1000 <= 1500), the next would need 2000 bytes.
        assert_eq!(acc, 2);
    }
}
