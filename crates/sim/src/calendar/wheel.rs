//! The engine's calendar: a two-level timing wheel (see the parent module for the interface).
//!
//! Time is cut into fine buckets of 2^shift ns, and fine buckets into spans of 2^near_bits
//! buckets. Three places hold a pending event, by how far ahead it is:
//!
//! - **the current span** (level 1): one linked list per fine bucket, in a small pool of nodes;
//!   the bucket being drained is a sorted vector (`cur`). This level holds one span's events
//!   (a few thousand), so its heads and nodes stay in the processor's cache;
//! - **later spans within the horizon** (level 2): one list of fixed-size chunks per span;
//!   an event is appended to its span's last chunk, so a push writes where the previous push
//!   to that span wrote, and a span is read once, chunk by chunk, when it becomes current and
//!   its events are handed to level 1;
//! - **beyond the horizon**: a binary heap, emptied into level 2 as the horizon moves on.
//!
//! Why two levels: with one (a list per fine bucket over the whole 0.25-s horizon), at 100
//! Gb/s the wheel had 2^22 heads (16 MiB) and every push touched a random one, and every pop
//! read a node written an RTT earlier: two cache misses per event, most of the calendar's cost
//! at 10^5 flows. Here a push touches one of a few thousand chunk ends, and a span's events
//! are read in order of their push.
//!
//! The order is exactly (time, insertion number): level 1 sorts each fine bucket by that key
//! when it becomes current, and neither level 2 nor the heap needs an order of its own.
use super::{prefetch, HeapEntry};
use crate::time::Ns;
use std::collections::BinaryHeap;

/// Bits of a level-1 node's link to the next node of its bucket (the rest of the word is the
/// event's insertion number): 2^28 − 1 nodes at most, far beyond any memory target.
const NEXT_BITS: u32 = 28;
const NEXT_MASK: u64 = (1 << NEXT_BITS) - 1;
/// No node (end of a bucket's list, empty free list); the largest index the link can hold.
const NIL: u32 = NEXT_MASK as u32;
/// Insertion numbers must fit beside the link: 2^36 ≈ 6.9 × 10^10 events per run.
const SEQ_LIMIT: u64 = 1 << (64 - NEXT_BITS);

/// Fine buckets per span, log2: 2^11 buckets of about two events each keep a span's events
/// (level 1) within a few hundred KiB. At 10^5 flows (100 Gb/s) spans of 2^14 or 2^16 buckets
/// ran 20 % and 50 % slower (level 1 then falls out of the cache); 2^7 and 2^9 were no faster.
const NEAR_BITS: u32 = 11;

/// Events per level-2 chunk (16 of 32 bytes with the engine's event: 512 bytes, 8 lines).
const CHUNK: usize = 16;

/// A pending event in level 1: 32 bytes with the engine's 16-byte event, the insertion number
/// and the link to the next node sharing one word.
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
}

/// A pending event in level 2 (32 bytes with the engine's event).
struct Slot<E> {
    t: Ns,
    seq: u64,
    ev: Option<E>,
}

/// Bytes of a pending event, in level 1 or 2 (the same layout: time, a word, the event).
pub(super) fn event_bytes<E>() -> usize {
    std::mem::size_of::<Node<E>>().max(std::mem::size_of::<Slot<E>>())
}

/// A span's list of chunks in level 2: first and last chunk (NIL: empty) and how many slots
/// of the last one are used.
#[derive(Clone, Copy)]
struct Span {
    head: u32,
    tail: u32,
    fill: u32,
}

const EMPTY_SPAN: Span = Span {
    head: NIL,
    tail: NIL,
    fill: 0,
};

/// Which buckets (of level 1) or spans (of level 2) hold events: a bit each.
struct Occupied(Vec<u64>);

impl Occupied {
    fn new(n: usize) -> Occupied {
        Occupied(vec![0; n.div_ceil(64)])
    }

    #[inline]
    fn set(&mut self, i: usize) {
        self.0[i >> 6] |= 1u64 << (i & 63);
    }

    #[inline]
    fn clear(&mut self, i: usize) {
        self.0[i >> 6] &= !(1u64 << (i & 63));
    }

    /// The first set bit at `from` or after (`from` < 64 × words), if any.
    #[inline]
    fn first_from(&self, from: usize) -> Option<usize> {
        let mut w = from >> 6;
        let mut word = self.0[w] & (!0u64 << (from & 63));
        loop {
            if word != 0 {
                return Some(w * 64 + word.trailing_zeros() as usize);
            }
            w += 1;
            word = *self.0.get(w)?;
        }
    }
}

/// Two-level timing wheel; see the module documentation.
pub struct WheelCalendar<E> {
    shift: u32,
    near_bits: u32,
    near_mask: u64,
    // Level 1: the current span.
    heads: Vec<u32>,
    bits: Occupied,
    nodes: Vec<Node<E>>,
    free: u32,
    /// The bucket being drained, sorted by descending (t, seq): pop from the end.
    cur: Vec<(Ns, u64, u32)>,
    /// Absolute number of the bucket being drained (time >> shift).
    cur_abs: u64,
    /// Absolute number of the current span (cur_abs >> near_bits).
    span_abs: u64,
    // Level 2: spans after the current one, within the horizon.
    far_mask: u64,
    spans: Vec<Span>,
    span_bits: Occupied,
    /// Chunk c is `slots[c * CHUNK..(c + 1) * CHUNK]`; `chunk_next[c]` links a span's chunks
    /// (and the free chunks).
    slots: Vec<Slot<E>>,
    chunk_next: Vec<u32>,
    free_chunk: u32,
    /// Events at or beyond the horizon.
    overflow: BinaryHeap<HeapEntry<E>>,
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

    /// Buckets of 2^shift ns and a horizon of 2^log2_buckets of them: spans of up to 2^11
    /// buckets, as many as make up the horizon and at least two. A slow link's horizon (2^10 or
    /// 2^11 buckets, under ~40 Mb/s) is two spans, so an event just past the current span goes
    /// to level 2 rather than the heap. At 20 Mb/s (20 flows, cachegrind) one span of 2^10 cost
    /// 2.3 % more instructions than two of 2^9, and four or eight smaller spans more again
    /// (+2.6 %, +5.8 %): small spans change span too often.
    pub fn with_geometry(shift: u32, log2_buckets: u32) -> Self {
        let near = log2_buckets.saturating_sub(1).min(NEAR_BITS);
        Self::with_levels(shift, near, log2_buckets - near)
    }

    /// Buckets of 2^shift ns, 2^near_bits of them a span, 2^far_bits spans in the horizon
    /// (with_geometry picks the split; tests choose their own).
    pub fn with_levels(shift: u32, near_bits: u32, far_bits: u32) -> Self {
        let near = 1usize << near_bits;
        let far = 1usize << far_bits;
        WheelCalendar {
            shift,
            near_bits,
            near_mask: near as u64 - 1,
            heads: vec![NIL; near],
            bits: Occupied::new(near),
            nodes: Vec::new(),
            free: NIL,
            cur: Vec::new(),
            cur_abs: 0,
            span_abs: 0,
            far_mask: far as u64 - 1,
            spans: vec![EMPTY_SPAN; far],
            span_bits: Occupied::new(far),
            slots: Vec::new(),
            chunk_next: Vec::new(),
            free_chunk: NIL,
            overflow: BinaryHeap::new(),
            len: 0,
            seq: 0,
            pf_abs: u64::MAX,
            pf: NIL,
            pf_done: true,
        }
    }

    /// Room for `events` pending events in level 2 from the start, without touching it:
    /// untouched pages cost no memory, and a pool that never has to grow is never copied. (A
    /// doubling pool briefly holds its old and its new array; at 10^5 flows that set the run's
    /// peak memory. An allocation this large is mapped on its own by the allocator, so if it
    /// does grow, it grows in place.)
    pub fn reserve_nodes(&mut self, events: usize) {
        let chunks = events.div_ceil(CHUNK);
        self.slots
            .reserve_exact((chunks * CHUNK).saturating_sub(self.slots.len()));
        self.chunk_next
            .reserve_exact(chunks.saturating_sub(self.chunk_next.len()));
    }

    /// Pending events level 2 holds without growing.
    pub fn node_capacity(&self) -> usize {
        self.slots.capacity()
    }

    /// A level-1 node holding the event, linked in front of `next` (NIL: none).
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
            assert!(
                self.nodes.len() < NIL as usize,
                "the wheel calendar holds at most {NIL} events in one span"
            );
            self.nodes.push(node);
            (self.nodes.len() - 1) as u32
        }
    }

    /// Put an event of the current span into level 1: in front of its bucket's list, or into
    /// the bucket being drained, keeping that sorted (descending).
    #[inline]
    fn push_near(&mut self, abs: u64, t: Ns, seq: u64, ev: E) {
        if abs > self.cur_abs {
            self.link_near(abs, t, seq, ev);
        } else {
            let i = self.alloc(t, seq, NIL, ev);
            let key = (t, seq);
            let pos = self.cur.partition_point(|e| (e.0, e.1) > key);
            self.cur.insert(pos, (t, seq, i));
        }
    }

    /// Put an event of the current span in front of its level-1 bucket's list.
    #[inline(always)]
    fn link_near(&mut self, abs: u64, t: Ns, seq: u64, ev: E) {
        let b = (abs & self.near_mask) as usize;
        let i = self.alloc(t, seq, self.heads[b], ev);
        self.heads[b] = i;
        self.bits.set(b);
    }

    /// Append an event to span `span`'s chunks in level 2.
    #[inline]
    fn push_far(&mut self, span: u64, t: Ns, seq: u64, ev: E) {
        let k = (span & self.far_mask) as usize;
        let mut sp = self.spans[k];
        if sp.head == NIL || sp.fill as usize == CHUNK {
            let c = self.new_chunk();
            if sp.head == NIL {
                sp.head = c;
                self.span_bits.set(k);
            } else {
                self.chunk_next[sp.tail as usize] = c;
            }
            sp.tail = c;
            sp.fill = 0;
        }
        self.slots[sp.tail as usize * CHUNK + sp.fill as usize] = Slot {
            t,
            seq,
            ev: Some(ev),
        };
        sp.fill += 1;
        self.spans[k] = sp;
    }

    /// A chunk for level 2: the last one freed (likely still in the cache), or a new one.
    #[inline]
    fn new_chunk(&mut self) -> u32 {
        let c = self.free_chunk;
        if c != NIL {
            self.free_chunk = self.chunk_next[c as usize];
            self.chunk_next[c as usize] = NIL;
            return c;
        }
        let c = self.chunk_next.len();
        assert!(
            c < NIL as usize,
            "the wheel calendar holds at most {NIL} chunks"
        );
        self.chunk_next.push(NIL);
        self.slots.extend((0..CHUNK).map(|_| Slot {
            t: 0,
            seq: 0,
            ev: None,
        }));
        c as u32
    }

    #[inline]
    pub fn push(&mut self, t: Ns, ev: E) {
        self.seq += 1;
        let seq = self.seq;
        assert!(seq < SEQ_LIMIT, "more than 2^36 events in one run");
        let abs = t >> self.shift;
        debug_assert!(abs >= self.cur_abs, "event scheduled in the past");
        self.len += 1;
        let ahead = (abs >> self.near_bits) - self.span_abs;
        if ahead == 0 {
            self.push_near(abs, t, seq, ev);
        } else if ahead <= self.far_mask {
            self.push_far(abs >> self.near_bits, t, seq, ev);
        } else {
            self.overflow.push(HeapEntry { t, seq, ev });
        }
    }

    /// The first non-empty span of level 2 after the current one, as an absolute number: the
    /// first set bit from the next span's slot on, wrapping around.
    fn next_far_span(&self) -> Option<u64> {
        let start = ((self.span_abs + 1) & self.far_mask) as usize;
        let k = self
            .span_bits
            .first_from(start)
            .or_else(|| self.span_bits.first_from(0))? as u64;
        Some(self.span_abs + 1 + (k.wrapping_sub(start as u64) & self.far_mask))
    }

    /// Level 1 is empty: make `span` current. Events of the heap now within the horizon go to
    /// their spans, and the span's chunks are handed to level 1, every event to its bucket's
    /// list (the span's first bucket's too: `cur` stays empty until `next_bucket` drains the
    /// first non-empty bucket).
    fn enter_span(&mut self, span: u64) {
        self.span_abs = span;
        self.cur_abs = span << self.near_bits;
        while let Some(e) = self.overflow.peek() {
            let s = (e.t >> self.shift) >> self.near_bits;
            if s - span > self.far_mask {
                break;
            }
            let HeapEntry { t, seq, ev } = self.overflow.pop().unwrap();
            if s == span {
                self.link_near(t >> self.shift, t, seq, ev);
            } else {
                self.push_far(s, t, seq, ev);
            }
        }
        let k = (span & self.far_mask) as usize;
        let sp = std::mem::replace(&mut self.spans[k], EMPTY_SPAN);
        self.span_bits.clear(k);
        let mut c = sp.head;
        while c != NIL {
            let next = self.chunk_next[c as usize];
            if next != NIL {
                prefetch(&self.chunk_next[next as usize]);
                // The chunks were written up to an RTT ago: bring the next one in whole while
                // this one is handed over (a chunk is 8 lines with the engine's event).
                let first = &self.slots[next as usize * CHUNK] as *const Slot<E> as *const u8;
                for l in 0..(CHUNK * std::mem::size_of::<Slot<E>>()).div_ceil(64) {
                    prefetch(first.wrapping_add(64 * l));
                }
            }
            let used = if c == sp.tail {
                sp.fill as usize
            } else {
                CHUNK
            };
            let base = c as usize * CHUNK;
            for j in base..base + used {
                let s = &mut self.slots[j];
                let (t, seq, ev) = (s.t, s.seq, s.ev.take().unwrap());
                self.link_near(t >> self.shift, t, seq, ev);
            }
            self.chunk_next[c as usize] = self.free_chunk;
            self.free_chunk = c;
            c = next;
        }
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
        let next = (self.cur_abs & self.near_mask) as usize + 1;
        let later = if next > self.near_mask as usize {
            None
        } else {
            self.bits.first_from(next)
        };
        let b = match later {
            Some(b) => b,
            None => {
                let far = self.next_far_span();
                let over = self
                    .overflow
                    .peek()
                    .map(|e| (e.t >> self.shift) >> self.near_bits);
                let span = match (far, over) {
                    (Some(a), Some(b)) => a.min(b),
                    (Some(a), None) | (None, Some(a)) => a,
                    (None, None) => unreachable!("len > 0 but no events"),
                };
                self.enter_span(span);
                self.bits.first_from(0).expect("a span entered has events")
            }
        };
        self.cur_abs = (self.span_abs << self.near_bits) | b as u64;
        let mut i = self.heads[b];
        self.heads[b] = NIL;
        self.bits.clear(b);
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
    /// return the event of the node prefetched one step earlier, so the caller can prefetch
    /// what that event will touch. Call once per pop. Only a hint: no effect on the order.
    #[inline]
    pub fn prefetch_ahead(&mut self) -> Option<&E> {
        let nb = self.cur_abs + 1;
        if self.pf_abs != nb {
            self.pf_abs = nb;
            self.pf = NIL;
            // The next bucket is in level 1 only within the current span.
            self.pf_done = nb >> self.near_bits != self.span_abs;
        }
        if self.pf_done {
            return None;
        }
        let prev = self.pf;
        let next = if prev == NIL {
            self.heads[(nb & self.near_mask) as usize]
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

    /// Every pending event, in no particular order.
    pub fn for_each(&self, mut f: impl FnMut(Ns, &E)) {
        for n in &self.nodes {
            if let Some(e) = &n.ev {
                f(n.t, e);
            }
        }
        for s in &self.slots {
            if let Some(e) = &s.ev {
                f(s.t, e);
            }
        }
        for e in self.overflow.iter() {
            f(e.t, &e.ev);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    /// In a steady state (a pop, then a push up to 0.2 s ahead, with 20 000 events pending) the
    /// level-2 chunks and the level-1 nodes are recycled: the pools stay at about what is
    /// pending (plus a partly filled chunk per span), however many events pass through.
    #[test]
    fn a_steady_hold_recycles_chunks_and_nodes() {
        let (shift, near, far) = (10, 11, 7); // 1.024-µs buckets, 2.1-ms spans, 128 spans
        let mut w = WheelCalendar::with_levels(shift, near, far);
        let mut rng = Rng::stream(3, 79);
        let pending = 20_000u64;
        for i in 0..pending {
            w.push(rng.next_u64() % 200_000_000, i);
        }
        let mut now = 0;
        for i in 0..400_000u64 {
            let (t, _) = w.pop().unwrap();
            assert!(t >= now);
            now = t;
            w.push(now + rng.next_u64() % 200_000_000, pending + i);
        }
        assert_eq!(w.len(), pending as usize);
        let spans = 1usize << far;
        assert!(
            w.slots.len() <= pending as usize + spans * CHUNK,
            "chunk pool grew to {} slots",
            w.slots.len()
        );
        // Level 1 holds one span's events: about pending × 2.1 ms / 100 ms (mean delay).
        assert!(w.nodes.len() < 2_000, "node pool grew to {}", w.nodes.len());
    }
}
