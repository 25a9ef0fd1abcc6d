//! A unidirectional link: a drop-tail queue, serialization at a fixed rate, then propagation.
//!
//! The link is FIFO, so a packet's transmission start is known on arrival:
//! start = max(arrival, time the link frees up), departure = start + size/rate. The packet's
//! arrival at the next hop is departure + delay. One event per hop at most.
//!
//! A link may instead be *shaped* like Linux's htb (`Link::shape`): a token bucket of a given
//! depth, filled at the rate, releases a packet whenever its level is not negative and charges
//! the packet's size, so after an idle spell up to a bucketful leaves back to back (on the
//! kernel testbed the veth behind htb is, for these rates, infinitely fast). A deep bucket is a
//! buffer the queue limit does not count; the testbed twin uses this to mirror htb's `burst`.
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
    /// A token-bucket shaper (`shape`); here, in the first line, because every packet asks.
    shaped: bool,
    /// The waiting packets are held by a queue discipline (`net::aqm`, driven by `ports.rs`),
    /// not by `queue`; set by `attach_port`. In the first line: every packet asks.
    queued: bool,
    pub queue: DropTail,
    pub rate_bps: f64,
    /// Nanoseconds per byte on the wire.
    ns_per_byte: f64,
    pub drops: u64,
    /// Drops over the whole run (for the conservation account).
    pub drops_total: u64,
    /// Shaped link (`shape`): the bucket's depth as time at the rate (0 = ideal serialization).
    bucket_ns: Ns,
    /// Shaped link: the time at which the bucket's level is zero (level at x = rate·(x − v),
    /// capped at the depth); a packet leaves at the first x ≥ v, then v moves on by its size.
    bucket_v: Ns,
    /// With a discipline (`queued`): the index of its port in the engine's port list.
    pub port: u32,
}

// The first line holds what a packet crossing an idle link reads and writes (the queue, behind
// it, only matters while the link is busy).
const _: () = assert!(
    std::mem::offset_of!(Link, shaped) < 64
        && std::mem::offset_of!(Link, queued) < 64
        && std::mem::offset_of!(Link, queue) == 64
);
// A discipline's port index fits in the padding: a link stays three cache lines.
const _: () = assert!(std::mem::size_of::<Link>() == 192);

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
            shaped: false,
            queued: false,
            arrivals: 0,
            drops: 0,
            packets: 0,
            bytes: 0,
            window_bits: 0.0,
            drops_total: 0,
            tx_time: 1,
            tx_bytes: 0,
            bucket_ns: 0,
            bucket_v: 0,
            port: u32::MAX,
        }
    }

    /// Hand the link's waiting packets to the discipline of port `port` (see `ports.rs`).
    pub fn attach_port(&mut self, port: u32) {
        self.queued = true;
        self.port = port;
    }

    /// Does a queue discipline hold this link's waiting packets?
    #[inline(always)]
    pub fn queued(&self) -> bool {
        self.queued
    }

    /// A link with a discipline starts transmitting a packet at `start` (the link is free):
    /// the counters as `offer` keeps them; returns (departure, arrival at the far end).
    pub fn transmit(&mut self, start: Ns, bytes: u32, window: (Ns, Ns)) -> (Ns, Ns) {
        debug_assert!(start >= self.busy_until && self.queued);
        let tx_ns = self.tx_ns(bytes);
        let depart = start + tx_ns;
        self.busy_until = depart;
        if depart >= window.0 && depart < window.1 {
            self.packets += 1;
            self.bytes += bytes as u64;
        }
        let (lo, hi) = (start.max(window.0), depart.min(window.1));
        if hi > lo {
            self.window_bits += bytes as f64 * 8.0 * ((hi - lo) as f64 / tx_ns as f64);
        }
        (depart, depart + self.delay_ns)
    }

    /// A link with a discipline lost a packet at `t` (counted like `offer`'s drops).
    pub fn count_drop(&mut self, t: Ns, window: (Ns, Ns)) {
        self.drops_total += 1;
        if t >= window.0 && t < window.1 {
            self.drops += 1;
        }
    }

    /// Shape instead of serializing: a token bucket of `burst_bytes` at the link's rate, released
    /// as Linux's htb does (see the module's comment).
    pub fn shape(&mut self, burst_bytes: u64) {
        self.bucket_ns = ((burst_bytes as f64 * self.ns_per_byte).round() as Ns).max(1);
        self.shaped = true;
    }

    /// Is this link a token-bucket shaper?
    #[inline]
    pub fn shaped(&self) -> bool {
        self.shaped
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
        if self.shaped() {
            // Packets leave whole at their release time: the pending ones are those still waiting.
            let pending: f64 = self
                .queue
                .waiting()
                .filter(|&(s, _)| s > t && s >= window.0 && s < window.1)
                .map(|(_, b)| b as f64 * 8.0)
                .sum();
            return (self.window_bits - pending).max(0.0);
        }
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
        if self.shaped() {
            return self.offer_shaped(t, bytes, window);
        }
        let start = t.max(self.busy_until);
        if start > t {
            if !self.queue.fits(bytes) {
                self.drops_total += 1;
                if t >= window.0 && t < window.1 {
                    self.arrivals += 1;
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
        if t >= window.0 && depart < window.1 {
            // Arrival, start and departure all inside the window (t <= start < depart): every
            // counter at once, with two comparisons instead of `count_window`'s eight.
            self.arrivals += 1;
            self.packets += 1;
            self.bytes += bytes as u64;
            self.window_bits += bytes as f64 * 8.0;
        } else {
            self.count_window(t, start, depart, bytes, window);
        }
        Offer::Accepted {
            arrive: depart + self.delay_ns,
            wait: start - t,
            depart,
        }
    }

    /// `offer`'s counters for a packet not wholly inside the window: its arrival if at `t` in
    /// the window, its departure if in it, and the part of its serialization (`start` to
    /// `depart`) inside it, prorated.
    #[cold]
    fn count_window(&mut self, t: Ns, start: Ns, depart: Ns, bytes: u32, window: (Ns, Ns)) {
        if t >= window.0 && t < window.1 {
            self.arrivals += 1;
        }
        if depart >= window.0 && depart < window.1 {
            self.packets += 1;
            self.bytes += bytes as u64;
        }
        let (lo, hi) = (start.max(window.0), depart.min(window.1));
        if hi > lo {
            let bits = bytes as f64 * 8.0;
            let tx_ns = depart - start;
            self.window_bits += if hi - lo == tx_ns {
                bits // the whole serialization (the same sum: x / x is exactly 1)
            } else {
                bits * ((hi - lo) as f64 / tx_ns as f64)
            };
        }
    }

    /// `offer` on a shaped link: the packet leaves whole at its release time, in FIFO order.
    #[cold]
    fn offer_shaped(&mut self, t: Ns, bytes: u32, window: (Ns, Ns)) -> Offer {
        if t >= window.0 && t < window.1 {
            self.arrivals += 1;
        }
        let fifo = t.max(self.busy_until); // not before the packet ahead of it
        let v = self.bucket_v.max(fifo.saturating_sub(self.bucket_ns)); // level capped at the depth
        let depart = fifo.max(v);
        if depart > t {
            if !self.queue.fits(bytes) {
                self.drops_total += 1;
                if t >= window.0 && t < window.1 {
                    self.drops += 1;
                }
                return Offer::Dropped;
            }
            self.queue.push(depart, bytes);
        }
        self.bucket_v = v + self.tx_ns(bytes);
        self.busy_until = depart;
        if depart >= window.0 && depart < window.1 {
            self.packets += 1;
            self.bytes += bytes as u64;
            self.window_bits += bytes as f64 * 8.0;
        }
        Offer::Accepted {
            arrive: depart + self.delay_ns,
            wait: depart - t,
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

    fn departures(l: &mut Link, arrivals: &[Ns], bytes: u32) -> Vec<Option<Ns>> {
        let w = (0, u64::MAX);
        arrivals
            .iter()
            .map(|&t| {
                l.advance(t);
                match l.offer(t, bytes, w) {
                    Offer::Accepted { depart, .. } => Some(depart),
                    Offer::Dropped => None,
                }
            })
            .collect()
    }

    #[test]
    fn shaped_link_releases_a_bucketful_back_to_back_after_idle_then_paces_at_the_rate() {
        // 8 Mb/s, 1000-byte packets: 1 ms of tokens each. A 3000-byte bucket, full at t = 10 ms,
        // releases packets while its level is not negative: 3000, 2000, 1000, 0 -> four at once
        // (the level ends at -1000), then one per millisecond as the tokens come back.
        let mut l = Link::new(8e6, 0, DropTail::new(None, None));
        l.shape(3000);
        let d = departures(&mut l, &[10_000_000; 7], 1000);
        let ms = 1_000_000;
        let want: Vec<Option<Ns>> = [10, 10, 10, 10, 11, 12, 13]
            .iter()
            .map(|&x| Some(x * ms))
            .collect();
        assert_eq!(d, want);
        // The queue held the packets that had to wait for tokens, and they leave it at release.
        l.advance(11 * ms + ms / 2);
        assert_eq!(l.queue.len(), 2);
    }

    #[test]
    fn shaped_link_never_carries_more_than_rate_times_time_plus_the_bucket() {
        // Bursty arrivals for one simulated second: the bytes released by any time t never exceed
        // rate * t + bucket + one packet (the level may go one packet negative), and a saturated
        // shaper carries the rate on average.
        let mut l = Link::new(8e6, 0, DropTail::new(None, None));
        l.shape(15_000);
        let mut arrivals = Vec::new();
        let mut t = 0;
        while t < 1_000_000_000 {
            for _ in 0..40 {
                arrivals.push(t);
            }
            t += 37_000_000;
        }
        let d: Vec<Ns> = departures(&mut l, &arrivals, 1000)
            .into_iter()
            .flatten()
            .collect();
        for (k, &x) in d.iter().enumerate() {
            let released = (k as f64 + 1.0) * 1000.0;
            let bound = 8e6 / 8.0 * (x as f64 * 1e-9) + 15_000.0 + 1000.0;
            assert!(
                released <= bound + 1e-6,
                "packet {k} at {x} ns: {released} > {bound}"
            );
        }
        let last = *d.last().unwrap() as f64 * 1e-9;
        let rate = d.len() as f64 * 1000.0 * 8.0 / last;
        assert!(rate <= 8e6 * 1.02 && rate > 8e6 * 0.9, "mean rate {rate}");
    }

    #[test]
    fn shaped_link_never_releases_more_than_a_bucketful_above_the_rate_in_any_interval() {
        // Bursts of 30 packets every 60 ms at 8 Mb/s (1 ms per packet) leave the link idle half
        // the time, so the bucket refills: in every interval [d_i, d_j] of departures the packets
        // released are at most rate * (d_j - d_i) + bucket + one packet (a bucket deeper than
        // configured, or none, would release whole bursts at once and fail this).
        let mut l = Link::new(8e6, 0, DropTail::new(None, None));
        l.shape(15_000);
        let arrivals: Vec<Ns> = (0..20u64)
            .flat_map(|k| std::iter::repeat_n(k * 60_000_000, 30))
            .collect();
        let d: Vec<Ns> = departures(&mut l, &arrivals, 1000)
            .into_iter()
            .flatten()
            .collect();
        assert_eq!(d.len(), arrivals.len());
        for i in 0..d.len() {
            for j in i..d.len() {
                let released = (j - i + 1) as f64 * 1000.0;
                let bound = 8e6 / 8.0 * ((d[j] - d[i]) as f64 * 1e-9) + 15_000.0 + 1000.0;
                assert!(
                    released <= bound + 1e-6,
                    "packets {i}..={j}: {released} B > {bound} B"
                );
            }
        }
        // ... and a refilled bucket does release a burst: 16 packets at the start of each burst.
        assert_eq!(d.iter().filter(|&&x| x == 60_000_000).count(), 16);
    }

    #[test]
    fn shaped_link_counts_its_queue_limit_in_waiting_packets() {
        // A one-byte bucket releases one packet at once and one per packet time after it; with a
        // limit of 2 waiting packets the fourth simultaneous arrival is dropped, as with a pfifo.
        let mut l = Link::new(8e6, 0, DropTail::new(Some(2), None));
        l.shape(1);
        let d = departures(&mut l, &[0; 4], 1000);
        assert_eq!(d, vec![Some(0), Some(1_000_000), Some(2_000_000), None]);
        assert_eq!(l.drops, 1);
    }
}
