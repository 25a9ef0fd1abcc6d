//! One captured frame -> the few header fields the flow tracker needs.
//!
//! Link layers: Ethernet (with any number of 802.1Q/802.1ad tags), Linux cooked capture v1 (SLL)
//! and v2 (SLL2), raw IP (LINKTYPE_RAW, IPV4, IPV6) and BSD loopback (NULL/LOOP). The IP and
//! transport headers are sliced by `etherparse`; a packet cut short by the snap length still
//! yields its headers (the lengths come from the IP header, not from the captured bytes).
use std::net::IpAddr;

use etherparse::{
    Ipv6ExtensionSlice, LaxIpSlice, TcpHeaderSlice, TcpOptionElement, UdpHeaderSlice,
};

/// Link types we decode (numbers from the tcpdump.org registry).
pub const LT_NULL: i32 = 0;
pub const LT_ETHERNET: i32 = 1;
pub const LT_RAW: i32 = 101;
pub const LT_LOOP: i32 = 108;
pub const LT_SLL: i32 = 113;
pub const LT_IPV4: i32 = 228;
pub const LT_IPV6: i32 = 229;
pub const LT_SLL2: i32 = 276;
/// On some systems LINKTYPE_RAW is written as DLT_RAW = 12 or 14.
pub const LT_RAW_ALT1: i32 = 12;
pub const LT_RAW_ALT2: i32 = 14;

pub fn link_supported(lt: i32) -> bool {
    matches!(
        lt,
        LT_NULL
            | LT_ETHERNET
            | LT_RAW
            | LT_LOOP
            | LT_SLL
            | LT_IPV4
            | LT_IPV6
            | LT_SLL2
            | LT_RAW_ALT1
            | LT_RAW_ALT2
    )
}

/// Transport-layer details of a TCP segment.
#[derive(Clone, Copy, Debug, Default)]
pub struct Tcp {
    pub seq: u32,
    pub ack: u32,
    pub syn: bool,
    pub ackf: bool,
    pub fin: bool,
    pub rst: bool,
    pub window: u16,
    /// Payload bytes according to the IP length (even if the capture cut them off).
    pub payload: u32,
    pub mss: Option<u16>,
    pub wscale: Option<u8>,
    /// (TSval, TSecr)
    pub ts: Option<(u32, u32)>,
}

#[derive(Clone, Copy, Debug)]
pub enum L4 {
    Tcp(Tcp),
    /// UDP payload bytes (from the IP length).
    Udp(u32),
    Other,
}

#[derive(Clone, Copy, Debug)]
pub struct Packet {
    pub src: IpAddr,
    pub dst: IpAddr,
    pub sport: u16,
    pub dport: u16,
    pub proto: u8,
    /// IP datagram length from the IP header (the original size, not the captured one).
    pub ip_len: u32,
    pub l4: L4,
    /// The datagram's fragment identification when this is the first of several fragments
    /// (offset 0, more to follow): the later ones carry the same and no ports.
    pub frag_id: Option<u32>,
}

/// A later IP fragment (offset > 0): no transport header, so no ports and no flow of its own.
/// Source, destination, protocol and identification name the datagram it belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Fragment {
    pub src: IpAddr,
    pub dst: IpAddr,
    pub proto: u8,
    pub id: u32,
}

/// Why a frame gave no packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Skip {
    /// Not IPv4/IPv6 (ARP, LLDP, ...).
    NotIp,
    /// An IP packet whose headers the snap length cut off, or malformed headers.
    Malformed,
    /// A non-first IP fragment (no transport header: its bytes cannot be given to a flow).
    Fragment,
}

const ETH_IPV4: u16 = 0x0800;
const ETH_IPV6: u16 = 0x86dd;
const ETH_VLAN: u16 = 0x8100;
const ETH_QINQ: u16 = 0x88a8;
const ETH_QINQ_OLD: u16 = 0x9100;

#[inline]
fn be16(d: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_be_bytes([*d.get(at)?, *d.get(at + 1)?]))
}

/// The IP datagram inside a frame of link type `lt`, or why there is none.
#[inline]
fn ip_bytes(lt: i32, data: &[u8]) -> Result<&[u8], Skip> {
    let (mut ethertype, mut rest) = match lt {
        LT_ETHERNET => (
            be16(data, 12).ok_or(Skip::Malformed)?,
            data.get(14..).ok_or(Skip::Malformed)?,
        ),
        LT_SLL => (
            be16(data, 14).ok_or(Skip::Malformed)?,
            data.get(16..).ok_or(Skip::Malformed)?,
        ),
        LT_SLL2 => (
            be16(data, 0).ok_or(Skip::Malformed)?,
            data.get(20..).ok_or(Skip::Malformed)?,
        ),
        LT_RAW | LT_IPV4 | LT_IPV6 | LT_RAW_ALT1 | LT_RAW_ALT2 => return Ok(data),
        LT_NULL | LT_LOOP => {
            // 4-byte address family in host (NULL) or network (LOOP) order; IP version decides.
            let rest = data.get(4..).ok_or(Skip::Malformed)?;
            return match rest.first().map(|b| b >> 4) {
                Some(4) | Some(6) => Ok(rest),
                _ => Err(Skip::NotIp),
            };
        }
        _ => return Err(Skip::NotIp),
    };
    // VLAN tags (802.1Q, 802.1ad, the old QinQ value), stacked.
    while matches!(ethertype, ETH_VLAN | ETH_QINQ | ETH_QINQ_OLD) {
        ethertype = be16(rest, 2).ok_or(Skip::Malformed)?;
        rest = rest.get(4..).ok_or(Skip::Malformed)?;
    }
    match ethertype {
        ETH_IPV4 | ETH_IPV6 => Ok(rest),
        _ => Err(Skip::NotIp),
    }
}

/// The IP header fields of a frame, and its fragment position when it is a fragment.
struct Ip<'a> {
    src: IpAddr,
    dst: IpAddr,
    ip_len: u32,
    /// transport bytes the IP header declares
    l4_declared: u32,
    proto: u8,
    payload: &'a [u8],
    /// (identification, offset in 8-byte units, more fragments follow) of a fragment
    frag: Option<(u32, u16, bool)>,
}

fn ip_header(lt: i32, data: &[u8]) -> Result<Ip<'_>, Skip> {
    let ip = ip_bytes(lt, data)?;
    let (sliced, _ext_err) = LaxIpSlice::from_slice(ip).map_err(|_| Skip::Malformed)?;
    Ok(match sliced {
        LaxIpSlice::Ipv4(v4) => {
            let h = v4.header();
            let total = h.total_len() as u32;
            let hdr = h.ihl() as u32 * 4
                + v4.extensions()
                    .auth
                    .map(|a| a.slice().len() as u32)
                    .unwrap_or(0);
            let p = v4.payload();
            let off = h.fragments_offset().value();
            Ip {
                src: IpAddr::V4(h.source_addr()),
                dst: IpAddr::V4(h.destination_addr()),
                ip_len: total,
                l4_declared: total.saturating_sub(hdr),
                proto: p.ip_number.0,
                payload: p.payload,
                frag: (off != 0 || h.more_fragments())
                    .then(|| (h.identification() as u32, off, h.more_fragments())),
            }
        }
        LaxIpSlice::Ipv6(v6) => {
            let h = v6.header();
            let plen = h.payload_length() as u32;
            let ext = v6.extensions().slice().len() as u32;
            let p = v6.payload();
            let frag = v6.extensions().clone().into_iter().find_map(|e| match e {
                Ipv6ExtensionSlice::Fragment(f) => Some((
                    f.identification(),
                    f.fragment_offset().value(),
                    f.more_fragments(),
                )),
                _ => None,
            });
            Ip {
                src: IpAddr::V6(h.source_addr()),
                dst: IpAddr::V6(h.destination_addr()),
                ip_len: plen + 40,
                l4_declared: plen.saturating_sub(ext),
                proto: p.ip_number.0,
                payload: p.payload,
                frag,
            }
        }
    })
}

/// The datagram a later fragment (offset > 0) belongs to; None for any other frame.
pub fn later_fragment(lt: i32, data: &[u8]) -> Option<Fragment> {
    let ip = ip_header(lt, data).ok()?;
    match ip.frag {
        Some((id, off, _)) if off != 0 => Some(Fragment {
            src: ip.src,
            dst: ip.dst,
            proto: ip.proto,
            id,
        }),
        _ => None,
    }
}

/// Decode one frame.
pub fn decode(lt: i32, data: &[u8]) -> Result<Packet, Skip> {
    let Ip {
        src,
        dst,
        ip_len,
        l4_declared,
        proto,
        payload,
        frag,
    } = ip_header(lt, data)?;
    // only a later fragment lacks the transport header; the first one (offset 0, more
    // fragments set) carries it and is a packet of its flow
    let frag_id = match frag {
        Some((_, off, _)) if off != 0 => return Err(Skip::Fragment),
        Some((id, _, true)) => Some(id),
        _ => None,
    };
    match proto {
        6 => {
            let t = TcpHeaderSlice::from_slice(payload).map_err(|_| Skip::Malformed)?;
            let hl = t.data_offset() as u32 * 4;
            let mut tcp = Tcp {
                seq: t.sequence_number(),
                ack: t.acknowledgment_number(),
                syn: t.syn(),
                ackf: t.ack(),
                fin: t.fin(),
                rst: t.rst(),
                window: t.window_size(),
                payload: l4_declared.saturating_sub(hl),
                ..Tcp::default()
            };
            if hl > 20 {
                for opt in t.options_iterator() {
                    match opt {
                        Ok(TcpOptionElement::Timestamp(v, e)) => tcp.ts = Some((v, e)),
                        Ok(TcpOptionElement::MaximumSegmentSize(m)) => tcp.mss = Some(m),
                        Ok(TcpOptionElement::WindowScale(s)) => tcp.wscale = Some(s),
                        Ok(_) => {}
                        Err(_) => break,
                    }
                }
            }
            Ok(Packet {
                src,
                dst,
                sport: t.source_port(),
                dport: t.destination_port(),
                proto,
                ip_len,
                l4: L4::Tcp(tcp),
                frag_id,
            })
        }
        17 => {
            let u = UdpHeaderSlice::from_slice(payload).map_err(|_| Skip::Malformed)?;
            Ok(Packet {
                src,
                dst,
                sport: u.source_port(),
                dport: u.destination_port(),
                proto,
                ip_len,
                l4: L4::Udp(l4_declared.saturating_sub(8)),
                frag_id,
            })
        }
        _ => Ok(Packet {
            src,
            dst,
            sport: 0,
            dport: 0,
            proto,
            ip_len,
            l4: L4::Other,
            frag_id,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Ethernet + one VLAN tag + IPv4 (total length 1500) + TCP with a timestamp option, cut
    /// after the TCP header as a 96-byte snap length would.
    fn frame() -> Vec<u8> {
        let mut f = vec![0u8; 12];
        f.extend_from_slice(&[0x81, 0x00, 0x00, 0x2a, 0x08, 0x00]); // VLAN 42, then IPv4
        let mut ip = vec![
            0x45, 0, 0x05, 0xdc, 0, 0, 0x40, 0, 64, 6, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2,
        ];
        f.append(&mut ip);
        let mut tcp = vec![0x9c, 0x40, 0x00, 0x50]; // 40000 -> 80
        tcp.extend_from_slice(&1000u32.to_be_bytes());
        tcp.extend_from_slice(&2000u32.to_be_bytes());
        tcp.extend_from_slice(&[0x80, 0x10, 0xff, 0xff, 0, 0, 0, 0]); // 32-byte header, ACK
        tcp.extend_from_slice(&[1, 1, 8, 10]);
        tcp.extend_from_slice(&7u32.to_be_bytes());
        tcp.extend_from_slice(&9u32.to_be_bytes());
        f.append(&mut tcp);
        f
    }

    #[test]
    fn vlan_tagged_snapped_segment_keeps_its_sizes() {
        let p = decode(LT_ETHERNET, &frame()).unwrap();
        assert_eq!(p.ip_len, 1500);
        assert_eq!((p.sport, p.dport), (40000, 80));
        match p.l4 {
            L4::Tcp(t) => {
                assert_eq!(t.payload, 1500 - 20 - 32);
                assert_eq!((t.seq, t.ack), (1000, 2000));
                assert_eq!(t.ts, Some((7, 9)));
                assert!(t.ackf && !t.syn);
            }
            _ => panic!("not TCP"),
        }
    }

    /// Raw IPv6 with a fragment header (offset `off` in 8-byte units, more fragments set) and, in
    /// the first fragment, a UDP header (5000 -> 6000).
    fn v6_fragment(off: u16) -> Vec<u8> {
        let mut f = vec![0x60, 0, 0, 0, 0, 16, 44, 64];
        f.extend_from_slice(&[0x20, 0x01, 0x0d, 0xb8]);
        f.extend_from_slice(&[0; 11]);
        f.push(1);
        f.extend_from_slice(&[0x20, 0x01, 0x0d, 0xb8]);
        f.extend_from_slice(&[0; 11]);
        f.push(2);
        let fo = (off << 3) | 1;
        f.extend_from_slice(&[17, 0, (fo >> 8) as u8, fo as u8, 0, 0, 0, 7]);
        f.extend_from_slice(&[0x13, 0x88, 0x17, 0x70, 0x05, 0xdc, 0, 0]);
        f
    }

    fn v4_fragment(flags_off: u16) -> Vec<u8> {
        let mut f = vec![0x45, 0, 0x05, 0xdc, 0, 7];
        f.extend_from_slice(&flags_off.to_be_bytes());
        f.extend_from_slice(&[64, 17, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2]);
        f.extend_from_slice(&[0x13, 0x88, 0x17, 0x70, 0x05, 0xc8, 0, 0]);
        f
    }

    #[test]
    fn a_first_fragment_is_a_packet_a_later_one_is_skipped() {
        for (name, first, later) in [
            ("IPv4", v4_fragment(0x2000), v4_fragment(0x2000 | 185)),
            ("IPv6", v6_fragment(0), v6_fragment(185)),
        ] {
            let p = decode(LT_RAW, &first).unwrap_or_else(|e| panic!("{name}: {e:?}"));
            assert_eq!((p.sport, p.dport, p.proto), (5000, 6000, 17), "{name}");
            assert_eq!(
                decode(LT_RAW, &later).unwrap_err(),
                Skip::Fragment,
                "{name}"
            );
            // both name the datagram by its identification (7), the later one without ports
            assert_eq!(p.frag_id, Some(7), "{name}");
            let f = later_fragment(LT_RAW, &later).unwrap_or_else(|| panic!("{name}"));
            assert_eq!((f.src, f.dst, f.id), (p.src, p.dst, 7), "{name}");
            assert_eq!(later_fragment(LT_RAW, &first), None, "{name}");
        }
        // a datagram that is not fragmented has no identification to match
        let whole = v4_fragment(0);
        assert_eq!(decode(LT_RAW, &whole).unwrap().frag_id, None);
        assert_eq!(later_fragment(LT_RAW, &whole), None);
    }

    #[test]
    fn headers_cut_short_are_malformed_not_a_panic() {
        let f = frame();
        for cut in 0..(18 + 20 + 20) {
            let r = decode(LT_ETHERNET, &f[..cut]);
            assert!(r.is_err(), "cut at {cut}");
        }
        assert_eq!(decode(LT_ETHERNET, &[0u8; 60]).unwrap_err(), Skip::NotIp);
    }
}
