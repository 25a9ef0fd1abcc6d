//! The radix-heap calendar (see the parent module).
use crate::time::Ns;

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
        RadixCalendar {
            buckets: (0..129).map(|_| Vec::new()).collect(),
            last: 0,
            len: 0,
            seq: 0,
        }
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
