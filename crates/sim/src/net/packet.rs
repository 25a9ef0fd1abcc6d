//! Packets: small Copy structs that live inside calendar events (no heap allocation).

/// Data segment (sender to receiver), pure ACK (receiver to sender), or a UDP datagram (its
/// `flow` is the UDP source's index).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Kind {
    Data = 0,
    Ack = 1,
    Udp = 2,
    /// SOBAS probe, receiver to sender along the ACK path (`seq` = probe number).
    Probe = 3,
    /// The sender's echo of a probe, along the data path (`seq` = probe number, `sacked` = echo
    /// number).
    Echo = 4,
}

impl Kind {
    /// The direction a TCP flow's packet travels: 0 along the data path (data, echoes), 1 along
    /// the ACK path (ACKs, probes). Not meaningful for UDP.
    #[inline]
    pub fn dir(self) -> usize {
        match self {
            Kind::Data | Kind::Echo | Kind::Udp => 0,
            Kind::Ack | Kind::Probe => 1,
        }
    }
}

/// A packet's kind and its ECN bits in one byte, so a packet stays 16 bytes (an event, which
/// holds one, stays within half a cache line of the calendar): bits 0-2 the [`Kind`], bits 3-4
/// the IP ECN field (RFC 3168 §5: 00 Not-ECT, 01 ECT(1), 10 ECT(0), 11 CE), bit 5 the TCP ECE
/// flag (on ACKs), bit 6 the TCP CWR flag (on data).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tag(Bits);

/// The tag's byte as an enum of its 128 possible values (bit 7 is never set), so that the
/// values above 127 stay free for the compiler to tell `Ev`'s variants apart (a plain u8 has no
/// such spare values, and an event would grow from 16 to 20 bytes, a wheel node from 32 to 40).
#[doc(hidden)]
#[allow(dead_code)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
#[rustfmt::skip]
pub enum Bits { B0 = 0, B1 = 1, B2 = 2, B3 = 3, B4 = 4, B5 = 5, B6 = 6, B7 = 7, B8 = 8, B9 = 9, B10 = 10, B11 = 11, B12 = 12, B13 = 13, B14 = 14, B15 = 15, B16 = 16, B17 = 17, B18 = 18, B19 = 19, B20 = 20, B21 = 21, B22 = 22, B23 = 23, B24 = 24, B25 = 25, B26 = 26, B27 = 27, B28 = 28, B29 = 29, B30 = 30, B31 = 31, B32 = 32, B33 = 33, B34 = 34, B35 = 35, B36 = 36, B37 = 37, B38 = 38, B39 = 39, B40 = 40, B41 = 41, B42 = 42, B43 = 43, B44 = 44, B45 = 45, B46 = 46, B47 = 47, B48 = 48, B49 = 49, B50 = 50, B51 = 51, B52 = 52, B53 = 53, B54 = 54, B55 = 55, B56 = 56, B57 = 57, B58 = 58, B59 = 59, B60 = 60, B61 = 61, B62 = 62, B63 = 63, B64 = 64, B65 = 65, B66 = 66, B67 = 67, B68 = 68, B69 = 69, B70 = 70, B71 = 71, B72 = 72, B73 = 73, B74 = 74, B75 = 75, B76 = 76, B77 = 77, B78 = 78, B79 = 79, B80 = 80, B81 = 81, B82 = 82, B83 = 83, B84 = 84, B85 = 85, B86 = 86, B87 = 87, B88 = 88, B89 = 89, B90 = 90, B91 = 91, B92 = 92, B93 = 93, B94 = 94, B95 = 95, B96 = 96, B97 = 97, B98 = 98, B99 = 99, B100 = 100, B101 = 101, B102 = 102, B103 = 103, B104 = 104, B105 = 105, B106 = 106, B107 = 107, B108 = 108, B109 = 109, B110 = 110, B111 = 111, B112 = 112, B113 = 113, B114 = 114, B115 = 115, B116 = 116, B117 = 117, B118 = 118, B119 = 119, B120 = 120, B121 = 121, B122 = 122, B123 = 123, B124 = 124, B125 = 125, B126 = 126, B127 = 127 }

impl Bits {
    #[inline(always)]
    fn get(self) -> u8 {
        self as u8
    }
    #[inline(always)]
    fn from(x: u8) -> Bits {
        // SAFETY: `Bits` is repr(u8) with a variant for every value 0..=127, and the mask keeps
        // x in that range.
        unsafe { std::mem::transmute::<u8, Bits>(x & 0x7f) }
    }
}

const KIND_MASK: u8 = 0b111;
const ECN_SHIFT: u8 = 3;
const ECN_MASK: u8 = 0b11 << ECN_SHIFT;
const ECT0: u8 = 0b10 << ECN_SHIFT;
const CE: u8 = 0b11 << ECN_SHIFT;
const ECE: u8 = 1 << 5;
const CWR: u8 = 1 << 6;

impl Tag {
    /// A packet of `kind`, Not-ECT, no TCP ECN flags.
    #[inline]
    pub fn new(kind: Kind) -> Tag {
        Tag(Bits::from(kind as u8))
    }

    /// Is this a packet of `kind`? (One compare of the kind bits, without decoding them.)
    #[inline(always)]
    pub fn is(self, kind: Kind) -> bool {
        self.0.get() & KIND_MASK == kind as u8
    }

    /// [`Kind::dir`] of the packet's kind from its bits: the ACK-path kinds (Ack 1, Probe 3) are
    /// the odd ones.
    #[inline(always)]
    pub fn dir(self) -> usize {
        (self.0.get() & 1) as usize
    }

    #[inline(always)]
    pub fn kind(self) -> Kind {
        match self.0.get() & KIND_MASK {
            0 => Kind::Data,
            1 => Kind::Ack,
            2 => Kind::Udp,
            3 => Kind::Probe,
            _ => Kind::Echo,
        }
    }

    /// ECN-capable transport: ECT(0), ECT(1) or CE (a queue may mark it instead of dropping).
    #[inline]
    pub fn ect(self) -> bool {
        self.0.get() & ECN_MASK != 0
    }

    /// Congestion Experienced.
    #[inline]
    pub fn ce(self) -> bool {
        self.0.get() & ECN_MASK == CE
    }

    /// Mark ECT(0) (the codepoint an RFC 3168 or DCTCP sender sets).
    #[inline]
    pub fn set_ect0(&mut self) {
        self.0 = Bits::from((self.0.get() & !ECN_MASK) | ECT0);
    }

    /// Mark CE; only an ECT packet may be marked (a Not-ECT one stays as it is).
    #[inline]
    pub fn set_ce(&mut self) {
        if self.ect() {
            self.0 = Bits::from(self.0.get() | CE);
        }
    }

    /// The TCP ECE flag (an ACK echoing congestion).
    #[inline]
    pub fn ece(self) -> bool {
        self.0.get() & ECE != 0
    }

    #[inline]
    pub fn set_ece(&mut self, on: bool) {
        self.0 = Bits::from((self.0.get() & !ECE) | if on { ECE } else { 0 });
    }

    /// The TCP CWR flag (the sender reduced its window).
    #[inline]
    pub fn cwr(self) -> bool {
        self.0.get() & CWR != 0
    }

    #[inline]
    pub fn set_cwr(&mut self) {
        self.0 = Bits::from(self.0.get() | CWR);
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Packet {
    pub flow: u32,
    /// Data: segment number. ACK: cumulative acknowledgment (next segment expected).
    pub seq: u32,
    /// ACK only: the segment whose arrival triggered this ACK (what a SACK block reports
    /// first, RFC 2018); u32::MAX if none.
    pub sacked: u32,
    /// Size on the wire, bytes.
    pub bytes: u16,
    /// Index of the next link to enter in the flow's path (data) or ack path (ACK);
    /// [`AT_ENDPOINT`] once the packet has crossed its whole path (its last event, the arrival
    /// at its endpoint, then needs no route to tell).
    pub hop: u8,
    /// The kind and the ECN bits.
    pub tag: Tag,
}

impl Packet {
    #[inline(always)]
    pub fn kind(&self) -> Kind {
        self.tag.kind()
    }
}

const _: () = assert!(std::mem::size_of::<Packet>() == 16);

/// `Packet::hop` of a packet that has crossed its whole path. Never a link's index: a path has
/// at most 200 links (the scenario checks).
pub const AT_ENDPOINT: u8 = u8::MAX;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tag_keeps_kind_and_ecn_bits_apart() {
        for k in [Kind::Data, Kind::Ack, Kind::Udp, Kind::Probe, Kind::Echo] {
            let mut t = Tag::new(k);
            assert!(!t.ect() && !t.ce() && !t.ece() && !t.cwr());
            t.set_ce(); // Not-ECT: never marked
            assert!(!t.ce());
            t.set_ect0();
            assert!(t.ect() && !t.ce());
            t.set_ce();
            t.set_ece(true);
            t.set_cwr();
            assert!(t.ce() && t.ece() && t.cwr());
            assert_eq!(t.kind(), k);
            // the shortcuts read the same kind from the bits, whatever the ECN bits
            assert_eq!(t.dir(), k.dir());
            assert!(t.is(k));
            for other in [Kind::Data, Kind::Ack, Kind::Udp, Kind::Probe, Kind::Echo] {
                assert_eq!(t.is(other), other == k);
            }
            t.set_ece(false);
            assert!(!t.ece() && t.ce() && t.cwr());
        }
    }
}
