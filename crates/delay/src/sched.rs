//! The pure part of the delay element: which delay a packet gets, and when it is due.

use std::collections::VecDeque;

/// Bytes per packet slot: an Ethernet MTU of IPv4 (1500) with room to spare. Longer packets are
/// dropped and counted (the testbed sets MTU 1500 on every link).
pub const SLOT_BYTES: usize = 2048;

/// Delay per IPv4 address. A packet gets the delay of its destination address if that is in the
/// table, else that of its source address, else the default delay.
///
/// Every distinct delay value is a *class*; packets of one class leave in arrival order (they all
/// wait equally long), so the scheduler only ever compares the heads of the classes.
#[derive(Clone, Debug)]
pub struct DelayTable {
    addrs: Vec<(u32, usize)>, // (IPv4 address in host order, class), sorted by address
    class_delay_ns: Vec<u64>,
    default_class: usize,
}

impl DelayTable {
    /// `entries`: (IPv4 address as u32 in host byte order, delay in ns).
    pub fn new(default_delay_ns: u64, entries: &[(u32, u64)]) -> Result<Self, String> {
        let mut class_delay_ns = vec![default_delay_ns];
        let mut addrs = Vec::with_capacity(entries.len());
        for &(addr, d) in entries {
            let class = match class_delay_ns.iter().position(|&x| x == d) {
                Some(c) => c,
                None => {
                    class_delay_ns.push(d);
                    class_delay_ns.len() - 1
                }
            };
            addrs.push((addr, class));
        }
        addrs.sort_unstable();
        for w in addrs.windows(2) {
            if w[0].0 == w[1].0 {
                return Err(format!(
                    "address {} appears twice in the delay table",
                    fmt_ip(w[0].0)
                ));
            }
        }
        Ok(Self {
            addrs,
            class_delay_ns,
            default_class: 0,
        })
    }

    pub fn classes(&self) -> usize {
        self.class_delay_ns.len()
    }

    pub fn delay_ns(&self, class: usize) -> u64 {
        self.class_delay_ns[class]
    }

    fn lookup(&self, addr: u32) -> Option<usize> {
        self.addrs
            .binary_search_by_key(&addr, |&(a, _)| a)
            .ok()
            .map(|i| self.addrs[i].1)
    }

    /// The class of an IP packet (destination first, then source; non-IPv4 gets the default).
    pub fn classify(&self, pkt: &[u8]) -> usize {
        if pkt.len() >= 20 && pkt[0] >> 4 == 4 {
            let src = u32::from_be_bytes([pkt[12], pkt[13], pkt[14], pkt[15]]);
            let dst = u32::from_be_bytes([pkt[16], pkt[17], pkt[18], pkt[19]]);
            if let Some(c) = self.lookup(dst) {
                return c;
            }
            if let Some(c) = self.lookup(src) {
                return c;
            }
        }
        self.default_class
    }
}

pub fn fmt_ip(a: u32) -> String {
    let b = a.to_be_bytes();
    format!("{}.{}.{}.{}", b[0], b[1], b[2], b[3])
}

/// Preallocated packet store with one FIFO per delay class.
pub struct Scheduler {
    data: Vec<u8>,              // capacity * SLOT_BYTES
    len: Vec<u16>,              // bytes used per slot
    due: Vec<u64>,              // due time per slot (ns, caller's clock)
    free: Vec<u32>,             // free slot indices (stack)
    queues: Vec<VecDeque<u32>>, // per class, slot indices in arrival order
    table: DelayTable,
}

impl Scheduler {
    pub fn new(table: DelayTable, capacity: usize) -> Self {
        assert!(capacity > 0 && capacity <= u32::MAX as usize);
        let classes = table.classes();
        Self {
            data: vec![0u8; capacity * SLOT_BYTES],
            len: vec![0; capacity],
            due: vec![0; capacity],
            free: (0..capacity as u32).rev().collect(),
            // each queue can hold every slot, so push_back never reallocates
            queues: (0..classes)
                .map(|_| VecDeque::with_capacity(capacity))
                .collect(),
            table,
        }
    }

    /// Touch every page of the slot pool so that no page fault happens on the data path.
    pub fn prefault(&mut self) {
        for i in (0..self.data.len()).step_by(4096) {
            // SAFETY: i is in bounds; volatile so the store is not optimized away.
            unsafe { std::ptr::write_volatile(self.data.as_mut_ptr().add(i), 0) };
        }
    }

    pub fn table(&self) -> &DelayTable {
        &self.table
    }

    pub fn held(&self) -> usize {
        self.len.len() - self.free.len()
    }

    /// A free slot to read a packet into, or `None` when the pool is full (the caller drops).
    pub fn free_slot(&mut self) -> Option<(u32, &mut [u8])> {
        let &s = self.free.last()?;
        let off = s as usize * SLOT_BYTES;
        Some((s, &mut self.data[off..off + SLOT_BYTES]))
    }

    /// Commit the packet just read into `slot` (`len` bytes) at time `now_ns`; returns its class.
    pub fn commit(&mut self, slot: u32, len: usize, now_ns: u64) -> usize {
        let popped = self.free.pop();
        debug_assert_eq!(popped, Some(slot));
        let s = slot as usize;
        let off = s * SLOT_BYTES;
        let class = self.table.classify(&self.data[off..off + len]);
        self.len[s] = len as u16;
        self.due[s] = now_ns + self.table.delay_ns(class);
        self.queues[class].push_back(slot);
        class
    }

    /// Earliest due time among the held packets.
    pub fn next_due(&self) -> Option<u64> {
        self.queues
            .iter()
            .filter_map(|q| q.front().map(|&s| self.due[s as usize]))
            .min()
    }

    /// The packet due first if it is due at `now_ns`: (slot, due time, bytes).
    pub fn peek_due(&self, now_ns: u64) -> Option<(u32, u64, &[u8])> {
        let mut best: Option<(u32, u64)> = None;
        for q in &self.queues {
            if let Some(&s) = q.front() {
                let d = self.due[s as usize];
                if d <= now_ns && best.map_or(true, |(_, bd)| d < bd) {
                    best = Some((s, d));
                }
            }
        }
        best.map(|(s, d)| {
            let off = s as usize * SLOT_BYTES;
            (s, d, &self.data[off..off + self.len[s as usize] as usize])
        })
    }

    /// Release the slot returned by [`Scheduler::peek_due`].
    pub fn release(&mut self, slot: u32) {
        for q in &mut self.queues {
            if q.front() == Some(&slot) {
                q.pop_front();
                self.free.push(slot);
                return;
            }
        }
        panic!("release of a slot that is not at the head of a queue");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(a: u8, b: u8, c: u8, d: u8) -> u32 {
        u32::from_be_bytes([a, b, c, d])
    }

    fn pkt(src: u32, dst: u32, tag: u8) -> Vec<u8> {
        let mut p = vec![0u8; 40];
        p[0] = 0x45;
        p[12..16].copy_from_slice(&src.to_be_bytes());
        p[16..20].copy_from_slice(&dst.to_be_bytes());
        p[39] = tag;
        p
    }

    fn push(s: &mut Scheduler, p: &[u8], now: u64) -> usize {
        let (slot, buf) = s.free_slot().expect("slot");
        buf[..p.len()].copy_from_slice(p);
        s.commit(slot, p.len(), now)
    }

    #[test]
    fn classify_prefers_destination_then_source_then_default() {
        let a = ip(10, 1, 0, 11);
        let b = ip(10, 1, 0, 12);
        let r = ip(10, 2, 0, 1);
        let t = DelayTable::new(5, &[(a, 40_000_000), (b, 100_000_000)]).unwrap();
        assert_eq!(t.delay_ns(t.classify(&pkt(r, a, 0))), 40_000_000);
        assert_eq!(t.delay_ns(t.classify(&pkt(b, r, 0))), 100_000_000);
        assert_eq!(t.delay_ns(t.classify(&pkt(b, a, 0))), 40_000_000); // destination wins
        assert_eq!(t.delay_ns(t.classify(&pkt(r, r, 0))), 5);
        assert_eq!(t.delay_ns(t.classify(&[0x60; 40])), 5); // IPv6: default
    }

    #[test]
    fn duplicate_address_is_rejected() {
        let a = ip(10, 1, 0, 11);
        assert!(DelayTable::new(0, &[(a, 1), (a, 2)]).is_err());
    }

    #[test]
    fn packets_leave_in_due_order_across_classes() {
        let a = ip(10, 1, 0, 11);
        let b = ip(10, 1, 0, 12);
        let r = ip(10, 2, 0, 1);
        let t = DelayTable::new(0, &[(a, 100), (b, 10)]).unwrap();
        let mut s = Scheduler::new(t, 8);
        push(&mut s, &pkt(r, a, 1), 0); // due 100
        push(&mut s, &pkt(r, b, 2), 5); // due 15
        push(&mut s, &pkt(r, a, 3), 6); // due 106
        push(&mut s, &pkt(r, b, 4), 50); // due 60
        assert_eq!(s.held(), 4);
        assert_eq!(s.next_due(), Some(15));
        assert!(s.peek_due(14).is_none());
        let mut order = vec![];
        let mut dues = vec![];
        while let Some((slot, due, p)) = s.peek_due(1_000) {
            order.push(p[39]);
            dues.push(due);
            s.release(slot);
        }
        assert_eq!(order, vec![2, 4, 1, 3]);
        assert_eq!(dues, vec![15, 60, 100, 106]);
        assert_eq!(s.held(), 0);
        assert_eq!(s.next_due(), None);
    }

    #[test]
    fn full_pool_has_no_free_slot_until_release() {
        let t = DelayTable::new(10, &[]).unwrap();
        let mut s = Scheduler::new(t, 2);
        let p = pkt(1, 2, 0);
        push(&mut s, &p, 0);
        push(&mut s, &p, 1);
        assert!(s.free_slot().is_none());
        let (slot, _, _) = s.peek_due(10).unwrap();
        s.release(slot);
        assert!(s.free_slot().is_some());
    }
}
