//! The event calendar: a priority queue of (time, insertion number) keys.
//!
//! Ties in time are broken by the insertion number, so the order of events, and therefore
//! every result, is fully determined by the scenario and seed.
//!
//! Two implementations with the same interface:
//! - [`HeapCalendar`]: a binary heap (std `BinaryHeap`);
//! - [`RadixCalendar`]: a radix heap, which exploits that simulated time never goes backwards
//!   (every key pushed is >= the last key popped): each entry moves between at most 65 buckets
//!   over its life and a pop is usually O(1).
//!
//! `bench/sim_speed.md` records the comparison; the engine uses [`Calendar`] (the faster one).
use crate::time::Ns;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// The calendar the engine uses.
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
        HeapCalendar { heap: BinaryHeap::new(), seq: 0 }
    }
}

impl<E> HeapCalendar<E> {
    pub fn new() -> Self {
        Self::default()
    }
    #[inline]
    pub fn push(&mut self, t: Ns, ev: E) {
        self.seq += 1;
        self.heap.push(HeapEntry { t, seq: self.seq, ev });
    }
    #[inline]
    pub fn pop(&mut self) -> Option<(Ns, E)> {
        self.heap.pop().map(|e| (e.t, e.ev))
    }
    #[inline]
    pub fn peek_time(&mut self) -> Option<Ns> {
        self.heap.peek().map(|e| e.t)
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

/// Radix heap over 128-bit keys (time << 64 | insertion number).
///
/// Bucket 0 holds keys equal to `last` (the last key popped); bucket k >= 1 holds keys whose
/// highest bit differing from `last` is bit k-1. When bucket 0 is empty, the lowest non-empty
/// bucket is redistributed around its minimum. Requires monotone keys, which a simulation
/// provides; `push` panics in debug builds on a key below the last popped one.
pub struct RadixCalendar<E> {
    buckets: Vec<Vec<(u128, E)>>,
    last: u128,
    len: usize,
    seq: u64,
}

impl<E> Default for RadixCalendar<E> {
    fn default() -> Self {
        RadixCalendar { buckets: (0..129).map(|_| Vec::new()).collect(), last: 0, len: 0, seq: 0 }
    }
}

#[inline]
fn bucket_of(key: u128, last: u128) -> usize {
    let x = key ^ last;
    if x == 0 {
        0
    } else {
        128 - x.leading_zeros() as usize
    }
}

impl<E> RadixCalendar<E> {
    pub fn new() -> Self {
        Self::default()
    }

    #[inline]
    pub fn push(&mut self, t: Ns, ev: E) {
        self.seq += 1;
        let key = ((t as u128) << 64) | self.seq as u128;
        debug_assert!(key >= self.last, "event scheduled in the past");
        let b = bucket_of(key, self.last);
        self.buckets[b].push((key, ev));
        self.len += 1;
    }

    /// Move the smallest entries into bucket 0 (which then holds exactly one key, since keys
    /// are unique). Returns false when the calendar is empty.
    #[inline]
    fn refill(&mut self) -> bool {
        if !self.buckets[0].is_empty() {
            return true;
        }
        if self.len == 0 {
            return false;
        }
        let mut i = 1;
        while self.buckets[i].is_empty() {
            i += 1;
        }
        let min = self.buckets[i].iter().map(|e| e.0).min().unwrap();
        self.last = min;
        let mut v = std::mem::take(&mut self.buckets[i]);
        for e in v.drain(..) {
            let b = bucket_of(e.0, min);
            debug_assert!(b < i);
            self.buckets[b].push(e);
        }
        // Keep the (now empty) vector's capacity for reuse.
        self.buckets[i] = v;
        true
    }

    #[inline]
    pub fn pop(&mut self) -> Option<(Ns, E)> {
        if !self.refill() {
            return None;
        }
        let (key, ev) = self.buckets[0].pop().unwrap();
        self.len -= 1;
        Some(((key >> 64) as Ns, ev))
    }

    #[inline]
    pub fn peek_time(&mut self) -> Option<Ns> {
        if !self.refill() {
            return None;
        }
        self.buckets[0].last().map(|e| (e.0 >> 64) as Ns)
    }

    pub fn len(&self) -> usize {
        self.len
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    pub fn for_each(&self, mut f: impl FnMut(Ns, &E)) {
        for b in &self.buckets {
            for e in b {
                f((e.0 >> 64) as Ns, &e.1);
            }
        }
    }
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
