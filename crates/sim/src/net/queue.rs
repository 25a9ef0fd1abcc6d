//! Drop-tail FIFO with a limit in packets or in bytes.
//!
//! A FIFO link knows each packet's transmission start when the packet arrives, so the queue
//! keeps only the start times of the packets still waiting, in order, in a ring buffer. The
//! occupancy at time t is the number of entries with start > t. This costs no event per
//! queue departure.
use crate::time::Ns;
use std::collections::VecDeque;

/// Field order is layout (see `Link`): what a packet that waits touches comes first.
#[derive(Debug, Clone)]
#[repr(C)]
pub struct DropTail {
    waiting: VecDeque<(Ns, u32)>,
    waiting_bytes: u64,
    /// Maximum number of waiting packets (u64::MAX = unlimited).
    pub limit_packets: u64,
    /// Maximum number of waiting bytes (u64::MAX = unlimited).
    pub limit_bytes: u64,
    pub max_packets: u64,
    pub max_bytes: u64,
}

impl DropTail {
    pub fn new(limit_packets: Option<u64>, limit_bytes: Option<u64>) -> DropTail {
        DropTail {
            limit_packets: limit_packets.unwrap_or(u64::MAX),
            limit_bytes: limit_bytes.unwrap_or(u64::MAX),
            waiting: VecDeque::new(),
            waiting_bytes: 0,
            max_packets: 0,
            max_bytes: 0,
        }
    }

    /// Packets waiting (as of the last `advance`).
    #[inline]
    pub fn len(&self) -> u64 {
        self.waiting.len() as u64
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.waiting.is_empty()
    }

    /// Start time of the oldest waiting packet, if any.
    #[inline]
    pub fn next_start(&self) -> Option<Ns> {
        self.waiting.front().map(|e| e.0)
    }

    /// The waiting packets' (start, bytes), oldest first.
    pub fn waiting(&self) -> impl Iterator<Item = (Ns, u32)> + '_ {
        self.waiting.iter().copied()
    }

    /// Remove the oldest waiting packet (its transmission has started).
    #[inline]
    pub fn pop(&mut self) {
        if let Some((_, b)) = self.waiting.pop_front() {
            self.waiting_bytes -= b as u64;
        }
    }

    /// Would a packet of `bytes` that has to wait fit?
    #[inline]
    pub fn fits(&self, bytes: u32) -> bool {
        self.len() < self.limit_packets && self.waiting_bytes + bytes as u64 <= self.limit_bytes
    }

    /// Add a waiting packet that will start transmission at `start`.
    #[inline]
    pub fn push(&mut self, start: Ns, bytes: u32) {
        debug_assert!(self.waiting.back().is_none_or(|b| b.0 <= start));
        self.waiting.push_back((start, bytes));
        self.waiting_bytes += bytes as u64;
        self.max_packets = self.max_packets.max(self.len());
        self.max_bytes = self.max_bytes.max(self.waiting_bytes);
    }
}
