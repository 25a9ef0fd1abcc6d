//! The event calendar: a priority queue of (time, insertion number) keys.
//!
//! Ties in time are broken by the insertion number, so the order of events, and therefore
//! every result, is fully determined by the scenario and seed.
//!
//! Three implementations with the same interface:
//! - [`HeapCalendar`]: a binary heap (std `BinaryHeap`);
//! - [`RadixCalendar`]: a radix heap, which exploits that simulated time never goes backwards
//!   (every key pushed is >= the last key popped);
//! - [`WheelCalendar`]: a two-level timing wheel (`calendar/wheel.rs`): fine buckets for the
//!   current span of time, a list of chunks per later span within a 0.25-s horizon, a heap
//!   beyond it. Push is O(1); a bucket is sorted when it becomes current.
//!
//! All three pop in exactly the same (time, insertion) order, so the choice never changes a
//! result. `bench/sim_speed.md` records the comparison; the engine uses [`Calendar`].
use crate::time::Ns;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

mod radix;
mod wheel;
pub use radix::RadixCalendar;
pub use wheel::WheelCalendar;

/// The calendar the engine uses (the wheel; the `heap-calendar` feature swaps in the heap for
/// speed comparisons; results are identical).
#[cfg(not(feature = "heap-calendar"))]
pub type Calendar<E> = WheelCalendar<E>;
#[cfg(feature = "heap-calendar")]
pub type Calendar<E> = HeapCalendar<E>;

struct HeapEntry<E> {
    t: Ns,
    seq: u64,
    ev: E,
}

impl<E> PartialEq for HeapEntry<E> {
    fn eq(&self, o: &Self) -> bool {
        self.t == o.t && self.seq == o.seq
    }
}
impl<E> Eq for HeapEntry<E> {}
impl<E> PartialOrd for HeapEntry<E> {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl<E> Ord for HeapEntry<E> {
    // Reversed: BinaryHeap is a max-heap, we want the earliest (t, seq) first.
    fn cmp(&self, o: &Self) -> Ordering {
        (o.t, o.seq).cmp(&(self.t, self.seq))
    }
}

pub struct HeapCalendar<E> {
    heap: BinaryHeap<HeapEntry<E>>,
    seq: u64,
}

impl<E> Default for HeapCalendar<E> {
    fn default() -> Self {
        HeapCalendar {
            heap: BinaryHeap::new(),
            seq: 0,
        }
    }
}

impl<E> HeapCalendar<E> {
    pub fn new() -> Self {
        Self::default()
    }
    /// Same constructor as the wheel's; a heap has no geometry.
    pub fn with_geometry(_shift: u32, _log2_buckets: u32) -> Self {
        Self::default()
    }
    #[inline]
    pub fn push(&mut self, t: Ns, ev: E) {
        self.seq += 1;
        self.heap.push(HeapEntry {
            t,
            seq: self.seq,
            ev,
        });
    }
    #[inline]
    pub fn pop(&mut self) -> Option<(Ns, E)> {
        self.heap.pop().map(|e| (e.t, e.ev))
    }
    #[inline]
    pub fn peek_time(&mut self) -> Option<Ns> {
        self.heap.peek().map(|e| e.t)
    }
    /// The event the next `pop` returns.
    #[inline]
    pub fn peek_next(&self) -> Option<&E> {
        self.heap.peek().map(|e| &e.ev)
    }
    /// Nothing to walk ahead in a heap.
    #[inline]
    pub fn prefetch_ahead(&mut self) -> Option<&E> {
        None
    }
    pub fn len(&self) -> usize {
        self.heap.len()
    }
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
    pub fn for_each(&self, mut f: impl FnMut(Ns, &E)) {
        for e in self.heap.iter() {
            f(e.t, &e.ev);
        }
    }
}

/// Ask the processor to bring the cache line at `p` in (a hint: no effect on any result).
#[inline(always)]
pub(crate) fn prefetch<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch never faults and writes nothing, whatever the address.
    #[allow(unused_unsafe)]
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>(p as *const i8);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// Wheel geometry (shift, log2 of the horizon in buckets) for an expected number of events per
/// simulated second: buckets about two mean inter-event gaps wide and a horizon of at least
/// 0.25 s (later events wait in the overflow heap). Chosen by measuring S1-S3. Up to 2^22
/// buckets: at 100 Gb/s and more the buckets are at their narrowest (64 ns), and a shorter
/// horizon would send ACKs one RTT ahead and timers through the heap. Only the current span's
/// 2^11 buckets have heads; the rest of the horizon is one chunk list per span.
pub fn wheel_geometry(events_per_second: f64) -> (u32, u32) {
    let shift = (2e9 / events_per_second.max(1.0))
        .log2()
        .round()
        .clamp(6.0, 20.0) as u32;
    let log_n = (0.25e9 / (1u64 << shift) as f64)
        .log2()
        .ceil()
        .clamp(10.0, 22.0) as u32;
    (shift, log_n)
}

/// Bytes of one pending event in the wheel (the same in either level).
pub fn node_bytes<E>() -> usize {
    wheel::event_bytes::<E>()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    /// Both calendars pop a random monotone workload in exactly the same (time, seq) order.
    #[test]
    fn heap_and_radix_agree_on_order() {
        let mut h = HeapCalendar::new();
        let mut r = RadixCalendar::new();
        let mut rng = Rng::stream(5, 77);
        let mut now = 0u64;
        let mut id = 0u32;
        let mut popped_h = vec![];
        let mut popped_r = vec![];
        for _ in 0..20_000 {
            let k = rng.next_u64() % 3;
            for _ in 0..k {
                // Many ties: times on a coarse grid.
                let t = now + (rng.next_u64() % 50) * 1000;
                h.push(t, id);
                r.push(t, id);
                id += 1;
            }
            if let Some((t, e)) = h.pop() {
                let (t2, e2) = r.pop().unwrap();
                assert!(t >= now);
                now = t;
                popped_h.push((t, e));
                popped_r.push((t2, e2));
            }
        }
        assert_eq!(popped_h, popped_r);
        assert!(popped_h.len() > 10_000);
        // Ties come out in insertion order.
        for w in popped_h.windows(2) {
            assert!(w[0].0 < w[1].0 || (w[0].0 == w[1].0 && w[0].1 < w[1].1));
        }
    }
}

#[cfg(test)]
mod wheel_tests {
    use super::*;
    use crate::rng::Rng;

    /// The wheel pops exactly like the heap, with near events, same-bucket events, ties and
    /// events far beyond the horizon (which start in the overflow heap).
    #[test]
    fn wheel_matches_heap_order() {
        // The engine's split (2^11 buckets a span), one level only, and small spans with few
        // of them, so that events pass through all three places (level 1, level 2's chunks,
        // the heap) and chunks fill up.
        for (shift, near, far) in [(10, 11, 7), (4, 6, 0), (12, 3, 4), (16, 4, 10)] {
            let mut h = HeapCalendar::new();
            let mut w = WheelCalendar::with_levels(shift, near, far);
            let mut rng = Rng::stream(9, 78);
            let mut now = 0u64;
            let mut id = 0u32;
            let mut n = 0;
            for step in 0..60_000 {
                let k = rng.next_u64() % 3;
                for _ in 0..k {
                    let d = match rng.next_u64() % 4 {
                        0 => rng.next_u64() % 100,           // same bucket
                        1 => (rng.next_u64() % 50) * 1000,   // ties on a grid
                        2 => rng.next_u64() % 200_000_000,   // up to 0.2 s
                        _ => rng.next_u64() % 3_000_000_000, // beyond the horizon
                    };
                    h.push(now + d, id);
                    w.push(now + d, id);
                    id += 1;
                }
                if step % 7 == 0 {
                    assert_eq!(h.peek_time(), w.peek_time());
                }
                if let Some((t, e)) = h.pop() {
                    let got = w.pop().unwrap();
                    assert_eq!((t, e), got);
                    now = t;
                    n += 1;
                }
                assert_eq!(h.len(), w.len());
            }
            while let Some(x) = h.pop() {
                assert_eq!(Some(x), w.pop());
            }
            assert!(w.pop().is_none());
            assert!(n > 30_000);
        }
    }
}
