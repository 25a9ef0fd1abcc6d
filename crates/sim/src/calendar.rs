//! The event calendar: a priority queue of (time, insertion number) keys.
//!
//! Ties in time are broken by the insertion number, so the order of events, and therefore
//! every result, is fully determined by the scenario and seed.
//!
//! Three implementations with the same interface:
//! - [`HeapCalendar`]: a binary heap (std `BinaryHeap`);
//! - [`RadixCalendar`]: a radix heap, which exploits that simulated time never goes backwards
//!   (every key pushed is >= the last key popped);
//! - [`WheelCalendar`]: a bucketed timing wheel (calendar queue with fixed 1.024 µs buckets
//!   over a 268 ms horizon, a bitmap to skip empty buckets, a heap for events beyond the
//!   horizon). Push is O(1); a bucket is sorted when it becomes current.
//!
//! All three pop in exactly the same (time, insertion) order, so the choice never changes a
//! result. `bench/sim_speed.md` records the comparison; the engine uses [`Calendar`].
use crate::time::Ns;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

mod radix;
pub use radix::RadixCalendar;

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

/// Bits of a wheel node's link to the next node of its bucket (the rest of the word is the
/// event's insertion number): 2^28 − 1 nodes at most, far beyond any memory target.
const NEXT_BITS: u32 = 28;
const NEXT_MASK: u64 = (1 << NEXT_BITS) - 1;
/// No node (end of a bucket's list, empty free list); the largest index the link can hold.
const NIL: u32 = NEXT_MASK as u32;
/// Insertion numbers must fit beside the link: 2^36 ≈ 6.9 × 10^10 events per run.
const SEQ_LIMIT: u64 = 1 << (64 - NEXT_BITS);

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

/// Wheel geometry (shift, log2 of the bucket count) for an expected number of events per
/// simulated second: buckets about two mean inter-event gaps wide and a horizon of at least
/// 0.25 s (later events wait in the overflow heap). Chosen by measuring S1-S3. Up to 2^22
/// buckets (16 MiB of heads): at 100 Gb/s and more the buckets are at their narrowest (64 ns)
/// and fewer buckets would shorten the horizon to a few ms, sending nearly every event (ACKs
/// one RTT ahead, timers) through the overflow heap, a cost that grows with the flows.
/// (Capping the wheel at 2^20 buckets, 256-ns buckets at 100 Gb/s, saves 12 MiB there but cost
/// 7 % more CPU per packet at 10^5 flows, measured twice interleaved: longer bucket lists.)
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

/// Bytes of one pending event in the wheel's node pool.
pub fn node_bytes<E>() -> usize {
    std::mem::size_of::<Node<E>>()
}

/// 32 bytes with the engine's 16-byte event: the insertion number and the link to the next node
/// share one word (a pending event per packet in flight makes this the calendar's memory).
struct Node<E> {
    t: Ns,
    /// `seq << NEXT_BITS | next`.
    seq_next: u64,
    ev: Option<E>,
}

impl<E> Node<E> {
    #[inline]
    fn seq(&self) -> u64 {
        self.seq_next >> NEXT_BITS
    }

    #[inline]
    fn next(&self) -> u32 {
        (self.seq_next & NEXT_MASK) as u32
    }

    #[inline]
    fn set_next(&mut self, next: u32) {
        self.seq_next = (self.seq_next & !NEXT_MASK) | next as u64;
    }
}

/// Bucketed timing wheel; see the module documentation.
pub struct WheelCalendar<E> {
    shift: u32,
    mask: u64,
    heads: Vec<u32>,
    bits: Vec<u64>,
    nodes: Vec<Node<E>>,
    free: u32,
    /// The bucket being drained, sorted by descending (t, seq): pop from the end.
    cur: Vec<(Ns, u64, u32)>,
    /// Absolute number of the bucket being drained (time >> shift).
    cur_abs: u64,
    /// Events at or beyond the horizon: (t, seq, node), min-heap.
    overflow: BinaryHeap<std::cmp::Reverse<(Ns, u64, u32)>>,
    len: usize,
    seq: u64,
    /// Prefetch cursor (`prefetch_ahead`): the bucket ahead, the last node of its list
    /// prefetched (NIL: none yet), and whether its list is done.
    pf_abs: u64,
    pf: u32,
    pf_done: bool,
}

impl<E> Default for WheelCalendar<E> {
    fn default() -> Self {
        Self::with_geometry(10, 18)
    }
}

impl<E> WheelCalendar<E> {
    pub fn new() -> Self {
        Self::default()
    }

    /// Room for `nodes` pending events from the start, without touching it: untouched pages
    /// cost no memory, and a pool that never has to grow is never copied. (A doubling pool
    /// briefly holds its old and its new array; at 10^5 flows that set the run's peak memory.
    /// An allocation this large is mapped on its own by the allocator, so if it does grow, it
    /// grows in place.)
    pub fn reserve_nodes(&mut self, nodes: usize) {
        self.nodes
            .reserve_exact(nodes.saturating_sub(self.nodes.len()));
    }

    /// Pending events the pool holds without growing.
    pub fn node_capacity(&self) -> usize {
        self.nodes.capacity()
    }

    /// Buckets of 2^shift ns, 2^log2_buckets of them.
    pub fn with_geometry(shift: u32, log2_buckets: u32) -> Self {
        let n = 1usize << log2_buckets;
        WheelCalendar {
            shift,
            mask: n as u64 - 1,
            heads: vec![NIL; n],
            bits: vec![0; n.div_ceil(64)],
            nodes: Vec::new(),
            free: NIL,
            cur: Vec::new(),
            cur_abs: 0,
            overflow: BinaryHeap::new(),
            len: 0,
            seq: 0,
            pf_abs: u64::MAX,
            pf: NIL,
            pf_done: true,
        }
    }

    /// A node holding the event, linked in front of `next` (NIL: none).
    #[inline]
    fn alloc(&mut self, t: Ns, seq: u64, next: u32, ev: E) -> u32 {
        let node = Node {
            t,
            seq_next: seq << NEXT_BITS | next as u64,
            ev: Some(ev),
        };
        if self.free != NIL {
            let i = self.free;
            let n = &mut self.nodes[i as usize];
            self.free = n.next();
            *n = node;
            i
        } else {
            self.new_node(node)
        }
    }

    /// The pool has no free node (only while the calendar grows): add one.
    #[cold]
    #[inline(never)]
    fn new_node(&mut self, node: Node<E>) -> u32 {
        assert!(
            self.nodes.len() < NIL as usize,
            "the wheel calendar holds at most {} pending events",
            NIL
        );
        self.nodes.push(node);
        (self.nodes.len() - 1) as u32
    }

    #[inline]
    fn link(&mut self, abs: u64, i: u32) {
        let b = (abs & self.mask) as usize;
        let head = self.heads[b];
        self.nodes[i as usize].set_next(head);
        self.heads[b] = i;
        self.bits[b >> 6] |= 1u64 << (b & 63);
    }

    #[inline]
    pub fn push(&mut self, t: Ns, ev: E) {
        self.seq += 1;
        let seq = self.seq;
        assert!(seq < SEQ_LIMIT, "more than 2^36 events in one run");
        let abs = t >> self.shift;
        debug_assert!(abs >= self.cur_abs, "event scheduled in the past");
        self.len += 1;
        // The common case (a later bucket within the horizon) is inline: the node is written
        // once, already linked in front of its bucket's list. The others are calls.
        if abs.wrapping_sub(self.cur_abs).wrapping_sub(1) < self.mask {
            let b = (abs & self.mask) as usize;
            let i = self.alloc(t, seq, self.heads[b], ev);
            self.heads[b] = i;
            self.bits[b >> 6] |= 1u64 << (b & 63);
        } else {
            let i = self.alloc(t, seq, NIL, ev);
            self.push_current_or_overflow(abs, t, seq, i);
        }
    }

    /// `push` for an event in the bucket being drained or beyond the horizon.
    #[inline(never)]
    fn push_current_or_overflow(&mut self, abs: u64, t: Ns, seq: u64, i: u32) {
        if abs <= self.cur_abs {
            // Into the bucket being drained, keeping it sorted (descending).
            let key = (t, seq);
            let pos = self.cur.partition_point(|e| (e.0, e.1) > key);
            self.cur.insert(pos, (t, seq, i));
        } else {
            self.overflow.push(std::cmp::Reverse((t, seq, i)));
        }
    }

    /// Next non-empty wheel bucket after the current one, as an absolute number.
    fn next_wheel_bucket(&self) -> Option<u64> {
        let n = self.mask + 1;
        let start = (self.cur_abs + 1) & self.mask;
        let words = self.bits.len();
        let mut w = (start >> 6) as usize;
        let mut word = self.bits[w] & (!0u64 << (start & 63));
        for _ in 0..=words {
            if word != 0 {
                let b = (w as u64) * 64 + word.trailing_zeros() as u64;
                let dist = (b + n - start) & self.mask;
                return Some(self.cur_abs + 1 + dist);
            }
            w = (w + 1) % words;
            word = self.bits[w];
        }
        None
    }

    /// Make `cur` non-empty if any event is left.
    #[inline]
    fn refill(&mut self) -> bool {
        // Twice per event (peek, pop), and almost always `cur` already holds the next one:
        // that test stays inline, the bucket change is a call.
        !self.cur.is_empty() || self.next_bucket()
    }

    /// `cur` is empty: move to the next non-empty bucket. Returns false when no event is left.
    #[inline(never)]
    fn next_bucket(&mut self) -> bool {
        if self.len == 0 {
            return false;
        }
        let wheel = self.next_wheel_bucket();
        let over = self.overflow.peek().map(|r| r.0 .0 >> self.shift);
        let next = match (wheel, over) {
            (Some(a), Some(b)) => a.min(b),
            (Some(a), None) => a,
            (None, Some(b)) => b,
            (None, None) => unreachable!("len > 0 but no events"),
        };
        self.cur_abs = next;
        // Bring overflow events that are now within the horizon onto the wheel.
        while let Some(r) = self.overflow.peek() {
            let abs = r.0 .0 >> self.shift;
            if abs - self.cur_abs > self.mask {
                break;
            }
            let (t, seq, i) = self.overflow.pop().unwrap().0;
            if abs == self.cur_abs {
                self.cur.push((t, seq, i));
            } else {
                self.link(abs, i);
            }
        }
        let b = (next & self.mask) as usize;
        let mut i = self.heads[b];
        self.heads[b] = NIL;
        self.bits[b >> 6] &= !(1u64 << (b & 63));
        while i != NIL {
            let n = &self.nodes[i as usize];
            self.cur.push((n.t, n.seq(), i));
            i = n.next();
        }
        self.cur
            .sort_unstable_by_key(|e| std::cmp::Reverse((e.0, e.1)));
        true
    }

    #[inline]
    pub fn pop(&mut self) -> Option<(Ns, E)> {
        if !self.refill() {
            return None;
        }
        let (t, _, i) = self.cur.pop().unwrap();
        self.len -= 1;
        let n = &mut self.nodes[i as usize];
        let ev = n.ev.take().unwrap();
        // A free node keeps only its link (its insertion number is not read again).
        n.seq_next = self.free as u64;
        self.free = i;
        Some((t, ev))
    }

    #[inline]
    pub fn peek_time(&mut self) -> Option<Ns> {
        if !self.refill() {
            return None;
        }
        self.cur.last().map(|e| e.0)
    }

    /// The event the next `pop` returns, when the current bucket still holds it (else None);
    /// for prefetching what it will touch.
    #[inline]
    pub fn peek_next(&self) -> Option<&E> {
        self.cur
            .last()
            .and_then(|e| self.nodes[e.2 as usize].ev.as_ref())
    }

    /// One step of walking the next bucket's list ahead of time: prefetch its next node, and
    /// return the event of the node prefetched one step earlier (by now in the cache), so the
    /// caller can prefetch what that event will touch. The list is otherwise walked node by
    /// node when the bucket becomes current, each node a dependent cache miss at 10^5 flows
    /// (it was written an RTT ago). Call once per pop. Only a hint: no effect on the order.
    #[inline]
    pub fn prefetch_ahead(&mut self) -> Option<&E> {
        let nb = self.cur_abs + 1;
        if self.pf_abs != nb {
            self.pf_abs = nb;
            self.pf = NIL;
            self.pf_done = false;
        }
        if self.pf_done {
            return None;
        }
        let prev = self.pf;
        let next = if prev == NIL {
            self.heads[(nb & self.mask) as usize]
        } else {
            self.nodes[prev as usize].next()
        };
        if next == NIL {
            self.pf_done = true;
        } else {
            prefetch(&self.nodes[next as usize]);
            self.pf = next;
        }
        if prev == NIL {
            None
        } else {
            self.nodes[prev as usize].ev.as_ref()
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    pub fn for_each(&self, mut f: impl FnMut(Ns, &E)) {
        for n in &self.nodes {
            if let Some(e) = &n.ev {
                f(n.t, e);
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

#[cfg(test)]
mod wheel_tests {
    use super::*;
    use crate::rng::Rng;

    /// The wheel pops exactly like the heap, with near events, same-bucket events, ties and
    /// events far beyond the horizon (which start in the overflow heap).
    #[test]
    fn wheel_matches_heap_order() {
        for (shift, logn) in [(10, 18), (4, 6)] {
            let mut h = HeapCalendar::new();
            let mut w = WheelCalendar::with_geometry(shift, logn);
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
