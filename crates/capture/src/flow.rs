//! Per-flow tracker: one entry per live flow, emitted as a [`FlowRecord`] and dropped as soon as
//! the flow ends (both FINs seen, a RST, or no packet for the idle timeout), so memory follows the
//! number of concurrent flows, not the capture's length.
//!
//! A flow is a bidirectional 5-tuple. Its *initiator* (direction 0) is the side that sent the first
//! SYN; without a handshake in the capture, the side whose packet came first (or the receiver of a
//! SYN-ACK).
//!
//! Round-trip time at a capture point in the middle of a path is the sum of two legs: capture point
//! -> initiator -> capture point, and capture point -> responder -> capture point. Each leg is
//! sampled three ways, all of which can only over-estimate it (processing and delayed ACKs add,
//! nothing subtracts):
//! - the handshake: SYN -> SYN-ACK is the responder's leg, SYN-ACK -> ACK the initiator's
//!   (skipped when a SYN or SYN-ACK was retransmitted: the reply is ambiguous, Karn's rule);
//! - TCP timestamps: the first packet seen carrying TSval v towards a side, and the first packet
//!   from that side echoing v (TSecr = v);
//! - data/ACK pairs: one new data segment at a time is timed until the other side acknowledges it
//!   (a retransmission of it cancels the sample, Karn's rule).
//!
//! The flow's minimum RTT is the sum of the two legs' minima (the propagation RTT plus whatever
//! queueing could not be avoided); the mean RTT the sum of the legs' means (it includes queueing).
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::net::IpAddr;

use crate::packet::{Fragment, Packet, L4};

/// Tracker settings.
#[derive(Clone, Debug)]
pub struct Config {
    /// A flow with no packet for this long is emitted (seconds).
    pub idle_timeout_s: f64,
    /// Width of the offered-load time bins (seconds).
    pub bin_s: f64,
    /// After both FINs (or a RST) the flow is kept this long for the last ACKs, then emitted.
    pub linger_s: f64,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            idle_timeout_s: 60.0,
            bin_s: 0.1,
            linger_s: 1.0,
        }
    }
}

/// How a flow record ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EndReason {
    Fin,
    Rst,
    Idle,
    /// Still open when the capture ended.
    CaptureEnd,
    /// A new connection (SYN) on the same 5-tuple replaced it.
    Reused,
}

impl EndReason {
    pub fn as_str(&self) -> &'static str {
        match self {
            EndReason::Fin => "fin",
            EndReason::Rst => "rst",
            EndReason::Idle => "idle",
            EndReason::CaptureEnd => "capture_end",
            EndReason::Reused => "reused",
        }
    }
}

/// What limited the flow's main data direction (a heuristic, see `classify`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    Congestion,
    ReceiverWindow,
    Application,
    /// Too few data packets to tell (mostly slow start).
    Short,
    /// Not TCP, or no data.
    Unknown,
}

impl Limit {
    pub fn as_str(&self) -> &'static str {
        match self {
            Limit::Congestion => "congestion",
            Limit::ReceiverWindow => "receiver_window",
            Limit::Application => "application",
            Limit::Short => "short",
            Limit::Unknown => "unknown",
        }
    }
}

/// One finished flow.
#[derive(Clone, Debug)]
pub struct FlowRecord {
    pub proto: u8,
    /// Initiator address and port.
    pub src: IpAddr,
    pub sport: u16,
    pub dst: IpAddr,
    pub dport: u16,
    /// Seconds since the first packet of the capture.
    pub start_s: f64,
    pub end_s: f64,
    /// [initiator -> responder, responder -> initiator]
    pub packets: [u64; 2],
    /// IP bytes (IP header length fields; the original sizes even under a snap length).
    pub ip_bytes: [u64; 2],
    /// TCP/UDP payload bytes, retransmissions included.
    pub payload_bytes: [u64; 2],
    /// Distinct TCP payload bytes (sequence space covered; from the ISN when the SYN was seen).
    pub unique_bytes: [u64; 2],
    /// TCP data segments that repeated sequence space already seen.
    pub retrans_packets: [u64; 2],
    pub retrans_bytes: [u64; 2],
    pub syn_seen: bool,
    pub fin_seen: [bool; 2],
    pub rst_seen: bool,
    /// Handshake, both FINs, and every payload byte of both sides acknowledged.
    pub complete: bool,
    pub rtt_handshake_s: f64,
    pub rtt_min_s: f64,
    pub rtt_mean_s: f64,
    /// Each leg's smallest sample: [capture -> initiator -> capture, capture -> responder ->
    /// capture] (NaN where the leg was never sampled). A capture taken at a host shows that host's
    /// leg as a few microseconds; the queue of a port upstream of the capture sits in the leg of
    /// the side beyond it.
    pub rtt_leg_min_s: [f64; 2],
    /// Each leg's mean sample (NaN where never sampled): a host's own leg stays at its minimum,
    /// a leg through a queue does not.
    pub rtt_leg_mean_s: [f64; 2],
    /// Number of leg samples behind the RTT estimates.
    pub rtt_samples: u32,
    /// Largest TCP payload seen in a segment (an MSS estimate); MSS option from the SYN if larger.
    pub mss: u32,
    pub timestamps: bool,
    pub limit: Limit,
    /// Fraction of the main direction's round trips in which its flight reached the receiver's
    /// advertised window (within two segments): the sender was waiting for the window.
    pub rwnd_limited_frac: f64,
    /// Fraction of the main direction's data-sending time spent idle with nothing outstanding.
    pub idle_frac: f64,
    pub end_reason: EndReason,
}

// ---- hashing: a small multiplicative hash (FxHash's), the keys are not attacker-chosen maps
#[derive(Default, Clone, Copy)]
pub struct FxHasher(u64);
const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;
impl Hasher for FxHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        for c in bytes.chunks(8) {
            let mut b = [0u8; 8];
            b[..c.len()].copy_from_slice(c);
            self.0 = (self.0.rotate_left(5) ^ u64::from_le_bytes(b)).wrapping_mul(SEED);
        }
    }
    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.0 = (self.0.rotate_left(5) ^ i as u64).wrapping_mul(SEED);
    }
    #[inline]
    fn write_u16(&mut self, i: u16) {
        self.0 = (self.0.rotate_left(5) ^ i as u64).wrapping_mul(SEED);
    }
    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.0 = (self.0.rotate_left(5) ^ i as u64).wrapping_mul(SEED);
    }
    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.0 = (self.0.rotate_left(5) ^ i).wrapping_mul(SEED);
    }
    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.write_u64(i as u64)
    }
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
}
type FxBuild = BuildHasherDefault<FxHasher>;

/// Bidirectional key: the lower (address, port) first.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
struct Key {
    proto: u8,
    a: IpAddr,
    pa: u16,
    b: IpAddr,
    pb: u16,
}

fn key_of(p: &Packet) -> (Key, bool) {
    if (p.src, p.sport) <= (p.dst, p.dport) {
        (
            Key {
                proto: p.proto,
                a: p.src,
                pa: p.sport,
                b: p.dst,
                pb: p.dport,
            },
            false,
        )
    } else {
        (
            Key {
                proto: p.proto,
                a: p.dst,
                pa: p.dport,
                b: p.src,
                pb: p.sport,
            },
            true,
        )
    }
}

#[inline]
fn after(a: u32, b: u32) -> bool {
    (a.wrapping_sub(b) as i32) > 0
}
#[inline]
fn after_eq(a: u32, b: u32) -> bool {
    (a.wrapping_sub(b) as i32) >= 0
}

#[derive(Clone, Default)]
struct Side {
    packets: u64,
    ip_bytes: u64,
    payload: u64,
    retrans_pkts: u64,
    retrans_bytes: u64,
    // sequence space of this side's data
    seq_init: bool,
    syn: bool,
    isn: u32,
    high32: u32,
    high_ext: u64,
    fin: bool,
    fin_seq: u32,
    mss_opt: u32,
    max_payload: u32,
    wscale: Option<u8>,
    /// Last window this side advertised, scaled (0 = unknown).
    win: u64,
    /// Highest acknowledgment this side sent (about the other side's sequence space).
    ack_init: bool,
    ack: u32,
    // one data segment of this side being timed: (end sequence, time)
    timed: Option<(u32, f64)>,
    // first sighting of a TSval of this side, awaiting its echo from the other side
    ts_pending: Option<(u32, f64)>,
    ts_last: u32,
    ts_any: bool,
    // samples of THIS side's leg (capture -> this side -> capture)
    leg_min: f64,
    leg_sum: f64,
    leg_n: u32,
    // as a data sender
    data_pkts: u64,
    /// round trips of this side's data (a round ends when the data outstanding at its start is
    /// acknowledged) and those in which the flight reached the receiver's advertised window
    round_init: bool,
    round_end: u32,
    round_full: bool,
    rounds: u64,
    full_rounds: u64,
    first_data_t: f64,
    last_data_t: f64,
    idle_s: f64,
}

impl Side {
    fn new() -> Self {
        Side {
            leg_min: f64::INFINITY,
            first_data_t: f64::NAN,
            last_data_t: f64::NAN,
            ..Default::default()
        }
    }
    fn leg_sample(&mut self, s: f64) {
        if s >= 0.0 && s.is_finite() {
            self.leg_min = self.leg_min.min(s);
            self.leg_sum += s;
            self.leg_n += 1;
        }
    }
}

struct Flow {
    /// true when the key's `a` end is the responder (so initiator = key.b)
    init_is_b: bool,
    start: f64,
    last: f64,
    sides: [Side; 2],
    rst: bool,
    closed_at: f64,
    // handshake times
    t_syn: f64,
    syn_count: u32,
    t_synack: f64,
    synack_count: u32,
    hs_legs: Option<(f64, f64)>,
}

/// Capture-wide counts.
#[derive(Clone, Debug, Default)]
pub struct Stats {
    pub frames: u64,
    pub frame_bytes: u64,
    pub not_ip: u64,
    pub malformed: u64,
    /// Later IP fragments (offset > 0): in the load series, in no flow.
    pub fragments: u64,
    /// Their frame bytes.
    pub fragment_bytes: u64,
    /// Those of them whose first fragment was not seen (or was forgotten): binned as sent by
    /// the initiator.
    pub fragments_unmatched: u64,
    pub tcp_packets: u64,
    pub udp_packets: u64,
    pub other_packets: u64,
    /// Frames whose captured length was below their original length (snap length).
    pub snapped: u64,
    pub flows_emitted: u64,
    pub max_concurrent_flows: u64,
    /// Frames whose timestamp went backwards (processed at their own time anyway).
    pub out_of_order: u64,
    /// Frame bytes beyond the last load bin the tracker keeps (not in the load series).
    pub unbinned_bytes: u64,
}

pub struct Tracker {
    cfg: Config,
    flows: HashMap<Key, Flow, FxBuild>,
    done: Vec<FlowRecord>,
    /// Frame bytes per time bin: [from initiators, from responders].
    pub bins: Vec<[u64; 2]>,
    pub stats: Stats,
    last_t: f64,
    next_sweep: f64,
    /// Direction of each fragmented datagram whose first fragment was seen, and when: later
    /// fragments, without ports, find their direction here.
    frag_dirs: HashMap<Fragment, (usize, f64), FxBuild>,
}

/// A first fragment's direction is kept this long for its later fragments (Linux's default
/// net.ipv4.ipfrag_time: a datagram not reassembled by then is dropped).
pub const FRAG_TIMEOUT_S: f64 = 30.0;
/// The most fragmented datagrams remembered at once (more are binned as from the initiator).
pub const MAX_FRAG_DATAGRAMS: usize = 1 << 16;

impl Tracker {
    pub fn new(cfg: Config) -> Self {
        let next_sweep = cfg.idle_timeout_s.min(cfg.linger_s).max(0.05);
        Tracker {
            cfg,
            flows: HashMap::default(),
            done: Vec::new(),
            bins: Vec::new(),
            stats: Stats::default(),
            last_t: 0.0,
            next_sweep,
            frag_dirs: HashMap::default(),
        }
    }

    pub fn config(&self) -> &Config {
        &self.cfg
    }

    pub fn live_flows(&self) -> usize {
        self.flows.len()
    }

    /// Records emitted since the last call.
    pub fn take_records(&mut self) -> Vec<FlowRecord> {
        std::mem::take(&mut self.done)
    }

    pub fn pending_records(&self) -> usize {
        self.done.len()
    }

    fn bin(&mut self, t: f64, dir: usize, bytes: u32) {
        // the reader passes only frames within its span (a frame a little before the first one,
        // from another interface of a merged capture, counts in the first bin)
        let i = (t.max(0.0) / self.cfg.bin_s) as usize;
        if i > 50_000_000 {
            self.stats.unbinned_bytes += bytes as u64;
            return; // never allocate for it; the reader's span check keeps this from happening
        }
        if i >= self.bins.len() {
            self.bins.resize(i + 1, [0, 0]);
        }
        self.bins[i][dir] += bytes as u64;
    }

    /// One decoded packet at time `t` (seconds since the capture's first frame).
    pub fn packet(&mut self, t: f64, frame_len: u32, p: &Packet) {
        if t < self.last_t {
            self.stats.out_of_order += 1;
        } else {
            self.last_t = t;
        }
        if self.last_t >= self.next_sweep {
            self.sweep(self.last_t);
        }
        match p.l4 {
            L4::Tcp(_) => self.stats.tcp_packets += 1,
            L4::Udp(_) => self.stats.udp_packets += 1,
            L4::Other => self.stats.other_packets += 1,
        }
        let (key, from_b) = key_of(p);
        // A new SYN on a 5-tuple whose flow already closed (or carried data): a new connection.
        if let L4::Tcp(tcp) = &p.l4 {
            if tcp.syn && !tcp.ackf {
                if let Some(f) = self.flows.get(&key) {
                    let old = f.rst
                        || f.closed_at.is_finite()
                        || f.sides[0].payload + f.sides[1].payload > 0
                        || t - f.last > self.cfg.idle_timeout_s;
                    if old {
                        let f = self.flows.remove(&key).unwrap();
                        let why = if f.rst {
                            EndReason::Rst
                        } else if f.closed_at.is_finite() {
                            EndReason::Fin
                        } else {
                            EndReason::Reused
                        };
                        self.emit(key, f, why);
                    }
                }
            }
        }
        let n_before = self.flows.len();
        self.flows.entry(key).or_insert_with(|| {
            // initiator: the sender of a SYN, the receiver of a SYN-ACK, else whoever came first
            let sender_is_init = match &p.l4 {
                L4::Tcp(tcp) if tcp.syn && tcp.ackf => false,
                _ => true,
            };
            Flow {
                init_is_b: from_b == sender_is_init,
                start: t,
                last: t,
                sides: [Side::new(), Side::new()],
                rst: false,
                closed_at: f64::INFINITY,
                t_syn: f64::NAN,
                syn_count: 0,
                t_synack: f64::NAN,
                synack_count: 0,
                hs_legs: None,
            }
        });
        if self.flows.len() > n_before && self.flows.len() as u64 > self.stats.max_concurrent_flows
        {
            self.stats.max_concurrent_flows = self.flows.len() as u64;
        }
        let flow = self.flows.get_mut(&key).unwrap();
        // direction: 0 = from the initiator
        let dir = if from_b == flow.init_is_b { 0 } else { 1 };
        flow.last = flow.last.max(t);
        {
            let s = &mut flow.sides[dir];
            s.packets += 1;
            s.ip_bytes += p.ip_len as u64;
        }
        match p.l4 {
            L4::Tcp(tcp) => tcp_update(flow, dir, t, &tcp),
            L4::Udp(n) => flow.sides[dir].payload += n as u64,
            L4::Other => {}
        }
        let finished = flow.rst || (flow.sides[0].fin && flow.sides[1].fin);
        if finished && !flow.closed_at.is_finite() {
            flow.closed_at = t;
        }
        if let Some(id) = p.frag_id {
            let k = Fragment {
                src: p.src,
                dst: p.dst,
                proto: p.proto,
                id,
            };
            if self.frag_dirs.len() < MAX_FRAG_DATAGRAMS || self.frag_dirs.contains_key(&k) {
                self.frag_dirs.insert(k, (dir, t));
            }
        }
        self.bin(t, dir, frame_len);
    }

    /// A later IP fragment at time `t`: its bytes were on the wire, so they go to the load series
    /// (in its datagram's direction, known from the first fragment), though to no flow.
    pub fn later_fragment(&mut self, t: f64, frame_len: u32, f: &Fragment) {
        self.stats.fragments += 1;
        self.stats.fragment_bytes += frame_len as u64;
        let dir = match self.frag_dirs.get(f) {
            Some(&(dir, _)) => dir,
            None => {
                self.stats.fragments_unmatched += 1;
                0
            }
        };
        self.bin(t, dir, frame_len);
    }

    /// Emit flows that closed more than `linger_s` ago or have been idle for the timeout.
    pub fn sweep(&mut self, now: f64) {
        let cfg = self.cfg.clone();
        let mut gone: Vec<(Key, EndReason)> = Vec::new();
        for (k, f) in self.flows.iter() {
            if f.closed_at.is_finite() && now - f.closed_at >= cfg.linger_s {
                gone.push((
                    *k,
                    if f.rst {
                        EndReason::Rst
                    } else {
                        EndReason::Fin
                    },
                ));
            } else if now - f.last >= cfg.idle_timeout_s {
                gone.push((*k, EndReason::Idle));
            }
        }
        for (k, why) in gone {
            let f = self.flows.remove(&k).unwrap();
            self.emit(k, f, why);
        }
        self.frag_dirs
            .retain(|_, &mut (_, t0)| now - t0 < FRAG_TIMEOUT_S);
        let step = cfg.idle_timeout_s.min(cfg.linger_s).max(0.05) / 2.0;
        self.next_sweep = now + step;
        if self.flows.capacity() > 4 * self.flows.len().max(1024) {
            self.flows.shrink_to_fit();
        }
    }

    /// End of capture: emit everything still open.
    pub fn finish(&mut self) {
        let keys: Vec<Key> = self.flows.keys().copied().collect();
        for k in keys {
            let f = self.flows.remove(&k).unwrap();
            let why = if f.closed_at.is_finite() {
                if f.rst {
                    EndReason::Rst
                } else {
                    EndReason::Fin
                }
            } else {
                EndReason::CaptureEnd
            };
            self.emit(k, f, why);
        }
        self.done.sort_by(|a, b| a.start_s.total_cmp(&b.start_s));
    }

    fn emit(&mut self, k: Key, f: Flow, why: EndReason) {
        self.stats.flows_emitted += 1;
        let (src, sport, dst, dport) = if f.init_is_b {
            (k.b, k.pb, k.a, k.pa)
        } else {
            (k.a, k.pa, k.b, k.pb)
        };
        let s = &f.sides;
        let mut legs_min = [s[0].leg_min, s[1].leg_min];
        let mut legs_mean = [f64::NAN; 2];
        let mut n = 0;
        for i in 0..2 {
            if s[i].leg_n > 0 {
                legs_mean[i] = s[i].leg_sum / s[i].leg_n as f64;
                n += s[i].leg_n;
            }
        }
        if let Some((init_leg, resp_leg)) = f.hs_legs {
            legs_min[0] = legs_min[0].min(init_leg);
            legs_min[1] = legs_min[1].min(resp_leg);
        }
        let rtt_min = if legs_min[0].is_finite() && legs_min[1].is_finite() {
            legs_min[0] + legs_min[1]
        } else {
            f64::NAN
        };
        let rtt_mean = if legs_mean[0].is_finite() && legs_mean[1].is_finite() {
            legs_mean[0] + legs_mean[1]
        } else {
            rtt_min
        };
        let unique = [s[0].high_ext, s[1].high_ext];
        let acked = |i: usize| -> bool {
            let o = &s[1 - i];
            if !s[i].seq_init {
                return true;
            }
            // everything this side sent (data and FIN) acknowledged by the other side
            let end = if s[i].fin {
                s[i].fin_seq.wrapping_add(1)
            } else {
                s[i].high32
            };
            o.ack_init && after_eq(o.ack, end)
        };
        let complete =
            k.proto == 6 && s[0].syn && s[1].syn && s[0].fin && s[1].fin && acked(0) && acked(1);
        let main = if s[1].payload > s[0].payload { 1 } else { 0 };
        let m = &s[main];
        let data_time = m.last_data_t - m.first_data_t;
        let rwnd_frac = if m.rounds > 0 {
            m.full_rounds as f64 / m.rounds as f64
        } else {
            0.0
        };
        let idle_frac = if data_time > 0.0 {
            (m.idle_s / data_time).min(1.0)
        } else {
            0.0
        };
        let limit = if k.proto != 6 || m.data_pkts == 0 {
            Limit::Unknown
        } else if m.data_pkts < 20 {
            Limit::Short
        } else if rwnd_frac > 0.5 {
            Limit::ReceiverWindow
        } else if idle_frac > 0.2 {
            Limit::Application
        } else {
            Limit::Congestion
        };
        let rec = FlowRecord {
            proto: k.proto,
            src,
            sport,
            dst,
            dport,
            start_s: f.start,
            end_s: f.last,
            packets: [s[0].packets, s[1].packets],
            ip_bytes: [s[0].ip_bytes, s[1].ip_bytes],
            payload_bytes: [s[0].payload, s[1].payload],
            unique_bytes: unique,
            retrans_packets: [s[0].retrans_pkts, s[1].retrans_pkts],
            retrans_bytes: [s[0].retrans_bytes, s[1].retrans_bytes],
            syn_seen: s[0].syn,
            fin_seen: [s[0].fin, s[1].fin],
            rst_seen: f.rst,
            complete,
            rtt_handshake_s: f.hs_legs.map(|(a, b)| a + b).unwrap_or(f64::NAN),
            rtt_min_s: rtt_min,
            rtt_mean_s: rtt_mean,
            rtt_leg_min_s: [0, 1].map(|i| {
                if legs_min[i].is_finite() {
                    legs_min[i]
                } else {
                    f64::NAN
                }
            }),
            rtt_leg_mean_s: legs_mean,
            rtt_samples: n,
            mss: if s[main].max_payload > 0 {
                s[main].max_payload
            } else {
                s[1 - main].mss_opt
            },
            timestamps: s[0].ts_any && s[1].ts_any,
            limit,
            rwnd_limited_frac: rwnd_frac,
            idle_frac,
            end_reason: why,
        };
        self.done.push(rec);
    }
}

fn tcp_update(f: &mut Flow, dir: usize, t: f64, tcp: &crate::packet::Tcp) {
    let other = 1 - dir;
    if tcp.rst {
        f.rst = true;
    }
    // ---- handshake
    if tcp.syn {
        let s = &mut f.sides[dir];
        if !s.syn {
            s.syn = true;
            s.isn = tcp.seq;
            s.seq_init = true;
            s.high32 = tcp.seq.wrapping_add(1);
            s.high_ext = 0;
            if let Some(m) = tcp.mss {
                s.mss_opt = m as u32;
            }
            s.wscale = tcp.wscale;
        }
        if tcp.ackf {
            f.synack_count += 1;
            if f.synack_count == 1 {
                f.t_synack = t;
            }
        } else {
            f.syn_count += 1;
            if f.syn_count == 1 {
                f.t_syn = t;
            }
        }
    } else if tcp.ackf
        && f.hs_legs.is_none()
        && dir == 0
        && f.syn_count == 1
        && f.synack_count == 1
        && f.sides[1].syn
        && tcp.ack == f.sides[1].isn.wrapping_add(1)
        && t >= f.t_synack
    {
        f.hs_legs = Some((t - f.t_synack, f.t_synack - f.t_syn));
    }
    let scaled = f.sides[0].wscale.is_some() && f.sides[1].wscale.is_some();
    // without both SYNs the window scale is unknown, and an advertised window cannot be read:
    // a flow captured mid-stream is never judged receiver-window-limited
    let window_known = f.sides[0].syn && f.sides[1].syn;

    // ---- timestamps: this packet's TSecr may answer a TSval the other side sent
    if let Some((tsval, tsecr)) = tcp.ts {
        let first_ts = !f.sides[dir].ts_any;
        f.sides[dir].ts_any = true;
        if let Some((v, t1)) = f.sides[other].ts_pending {
            if tcp.ackf && tsecr == v {
                f.sides[dir].leg_sample(t - t1);
                f.sides[other].ts_pending = None;
            } else if tcp.ackf && after(tsecr, v) {
                f.sides[other].ts_pending = None; // that value was skipped over
            }
        }
        let s = &mut f.sides[dir];
        if s.ts_pending.is_none() && (first_ts || after(tsval, s.ts_last)) {
            s.ts_pending = Some((tsval, t));
        }
        if first_ts || after(tsval, s.ts_last) {
            s.ts_last = tsval;
        }
    }

    // ---- acknowledgments from this side: the other side's timed segment, its flight
    if tcp.ackf {
        if let Some((end, t1)) = f.sides[other].timed {
            if after_eq(tcp.ack, end) {
                f.sides[dir].leg_sample(t - t1);
                f.sides[other].timed = None;
            }
        }
        let (was_init, old_ack, adv) = (f.sides[dir].ack_init, f.sides[dir].ack, f.sides[dir].win);
        if was_init && after(tcp.ack, old_ack) && !tcp.syn {
            let o = &mut f.sides[other];
            if o.data_pkts > 0 && adv > 0 && window_known {
                let flight = o.high32.wrapping_sub(old_ack) as i32 as i64;
                if flight + 2 * o.max_payload as i64 >= adv as i64 {
                    o.round_full = true;
                }
                if !o.round_init {
                    o.round_init = true;
                    o.round_end = o.high32;
                } else if after_eq(tcp.ack, o.round_end) {
                    o.rounds += 1;
                    o.full_rounds += o.round_full as u64;
                    o.round_full = false;
                    o.round_end = o.high32;
                }
            }
        }
        let s = &mut f.sides[dir];
        if !s.ack_init || after(tcp.ack, s.ack) {
            s.ack = tcp.ack;
            s.ack_init = true;
        }
        if !tcp.syn {
            s.win = if scaled {
                (tcp.window as u64) << s.wscale.unwrap_or(0).min(14)
            } else {
                tcp.window as u64
            };
        }
    }

    // ---- data from this side
    let s_other_ack = (
        f.sides[other].ack_init,
        f.sides[other].ack,
        f.sides[other].win,
    );
    let rtt_guess = {
        let a = f.sides[0].leg_min;
        let b = f.sides[1].leg_min;
        if a.is_finite() && b.is_finite() {
            a + b
        } else {
            f64::NAN
        }
    };
    let s = &mut f.sides[dir];
    let len = tcp.payload;
    if len > 0 {
        if !s.seq_init {
            s.seq_init = true;
            s.high32 = tcp.seq;
            s.high_ext = 0;
        }
        s.payload += len as u64;
        s.max_payload = s.max_payload.max(len);
        let start = tcp.seq;
        let end = tcp.seq.wrapping_add(len);
        let d = end.wrapping_sub(s.high32) as i32;
        let fresh = d > 0;
        if !fresh || after(s.high32, start) {
            s.retrans_pkts += 1;
            s.retrans_bytes += if fresh {
                s.high32.wrapping_sub(start) as u64
            } else {
                len as u64
            };
            // Karn: a retransmission covering the timed segment spoils its sample
            if let Some((te, _)) = s.timed {
                if after(te, start) {
                    s.timed = None;
                }
            }
        }
        if fresh {
            // sender-side limits, judged on new data only
            let (ack_ok, ack, _win) = s_other_ack;
            let prev_flight = if ack_ok {
                s.high32.wrapping_sub(ack) as i32
            } else {
                -1
            };
            if s.data_pkts > 0 {
                let gap = t - s.last_data_t;
                let thresh = if rtt_guess.is_finite() {
                    (1.5 * rtt_guess).max(0.002)
                } else {
                    0.2
                };
                if prev_flight == 0 && gap > thresh {
                    s.idle_s += gap;
                }
            } else {
                s.first_data_t = t;
            }
            s.data_pkts += 1;
            s.last_data_t = t;
            s.high_ext += d as u64;
            s.high32 = end;
            if s.timed.is_none() {
                s.timed = Some((end, t));
            }
        }
    }
    if tcp.fin {
        let fin_seq = tcp.seq.wrapping_add(len);
        if !s.fin {
            s.fin = true;
            s.fin_seq = fin_seq;
        }
    }
}
