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
    /// equal to the path length when the packet has reached its endpoint.
    pub hop: u8,
    pub kind: Kind,
}
