//! Per-flow state: a TCP connection's sender and receiver with the engine's bookkeeping around
//! it (routes, timer-event times, Σcwnd accounting), and the counters the results are made of.
//! Who drives a flow's transfers ([`Owner`]) decides what happens when one completes.
use crate::scenario::ClassKind;
use crate::scenario::{ClassPlan, FlowPlan};
use crate::sobas::SobasRx;
use crate::tcp::cc::{self, CongestionControl, Registration};
use crate::tcp::params::{Ecn, TcpParams};
use crate::tcp::receiver::Receiver;
use crate::tcp::sender::Sender;
use crate::time::{ns, Ns};
use crate::traffic::SourceKind;

/// "No event / no time": a timer-event time that is not set, a congestion time never seen.
pub(crate) const NONE: Ns = Ns::MAX;

/// Who drives a flow's transfers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Owner {
    /// The dumbbell's or an explicit flow: one transfer (long-lived or finite).
    Static,
    /// A flow of source k of a registered kind (a closed-loop user, a short-flow slot): the
    /// source decides what its transfers are and what happens when one ends.
    Source(SourceKind, u32),
}

/// Flow phases counted in the slow-start / congestion-avoidance series.
pub(crate) const IDLE: u8 = 0;
pub(crate) const SS: u8 = 1;
pub(crate) const CA: u8 = 2;

/// A class of flows at run time: its congestion control, the sender's parameters and the
/// receiver's settings.
pub(crate) struct Class {
    pub(crate) name: String,
    pub(crate) kind: ClassKind,
    /// The control's registered name (for the results).
    pub(crate) cc: String,
    pub(crate) tcp: TcpParams,
    pub(crate) reg: &'static Registration,
    /// The receiver: delayed ACKs, their timer, the size of an ACK.
    pub(crate) delayed_ack: bool,
    pub(crate) delayed_ack_timeout_s: f64,
    pub(crate) ack_bytes: u32,
    /// Largest random delay of a packet at its host (`net/jitter.rs`), seconds.
    pub(crate) host_jitter_s: f64,
    /// The ECN its connections run: the `ecn` setting, or DCTCP's when the control needs it.
    pub(crate) ecn: Ecn,
}

impl Class {
    pub(crate) fn from_plan(c: &ClassPlan) -> Class {
        let tcp = TcpParams::from(&c.tcp);
        let reg = cc::lookup(&c.tcp.cc).expect("validated");
        let ecn = if reg.build(&tcp, 0, 0).needs_dctcp_ecn() {
            Ecn::Dctcp
        } else if tcp.ecn {
            Ecn::Classic
        } else {
            Ecn::Off
        };
        Class {
            name: c.name.clone(),
            kind: c.kind,
            cc: c.tcp.cc.clone(),
            tcp,
            reg,
            ecn,
            delayed_ack: c.tcp.delayed_ack,
            delayed_ack_timeout_s: c.tcp.delayed_ack_timeout_s,
            ack_bytes: c.tcp.ack_bytes,
            host_jitter_s: c.tcp.host_jitter_s,
        }
    }

    /// Size of a data packet on the wire, bytes.
    pub(crate) fn packet_bytes(&self) -> u32 {
        self.tcp.packet_bytes
    }

    /// Payload of a data packet (MSS), bytes.
    pub(crate) fn mss(&self) -> u32 {
        self.tcp.mss()
    }

    /// A fresh congestion control for connection `id` (its random stream, if any, is derived
    /// from the seed and the id).
    pub(crate) fn build_cc(&self, seed: u64, id: u64) -> Box<dyn CongestionControl> {
        self.reg.build(&self.tcp, seed, id)
    }
}

/// The flows of the plan (dumbbell, explicit flows, closed-loop users), hot and cold parts,
/// with their congestion controls; their routes go into `hops`.
pub(crate) fn build(
    plan: &[FlowPlan],
    classes: &[Class],
    hops: &mut Vec<u32>,
    seed: u64,
) -> (Vec<Flow>, Vec<FlowCold>, Vec<Box<dyn CongestionControl>>) {
    let mut flows = Vec::with_capacity(plan.len());
    let mut colds = Vec::with_capacity(plan.len());
    let mut ccs = Vec::with_capacity(plan.len());
    for f in plan.iter() {
        let c = &classes[f.class as usize];
        let mss = c.mss();
        let owner = match f.user_of {
            Some(u) => Owner::Source(SourceKind::users, u),
            None => Owner::Static,
        };
        let total = if owner == Owner::Static {
            crate::traffic::bulk::segments(f.bytes, mss)
        } else {
            0
        };
        let routes = [add_route(hops, &f.path), add_route(hops, &f.ack_path)];
        let (mut fl, cold) = Flow::new(
            routes, c, f.class, owner, total, f.start_s, f.rtt_s, f.extra_s,
        );
        ccs.push(c.build_cc(seed, ccs.len() as u64));
        if let Some(spec) = &f.sobas {
            let rx = SobasRx::new(spec, mss);
            fl.sender.max_window = rx.window().min(cold.cap_window);
            fl.sobas = Some(Box::new(rx));
        }
        flows.push(fl);
        colds.push(cold);
    }
    (flows, colds, ccs)
}

/// A path: its links inline when there are one or two (every dumbbell path), so forwarding a
/// packet reads no route table (at 10^5 flows that table is a cache miss per event); longer
/// paths are links `hops[at..at + len]` of the engine's route table.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Route {
    /// Inline: the first link. In the table: `at | IN_TABLE`.
    a: u32,
    /// Inline: the second link, or `NO_HOP` for a one-link path. In the table: the length.
    b: u32,
}

const IN_TABLE: u32 = 1 << 31;
const NO_HOP: u32 = u32::MAX;

impl Route {
    /// Number of links.
    #[inline]
    pub(crate) fn len(self) -> u32 {
        if self.a & IN_TABLE != 0 {
            self.b
        } else if self.b == NO_HOP {
            1
        } else {
            2
        }
    }

    /// Link `k` of the path (k < len), from the route table `hops` if not inline.
    #[inline]
    pub(crate) fn hop(self, k: u32, hops: &[u32]) -> u32 {
        if self.a & IN_TABLE != 0 {
            hops[((self.a & !IN_TABLE) + k) as usize]
        } else if k == 0 {
            self.a
        } else {
            self.b
        }
    }
}

/// The route of `path`: inline for one or two links, else appended to the route table `hops`.
pub(crate) fn add_route(hops: &mut Vec<u32>, path: &[usize]) -> Route {
    assert!(
        path.iter().all(|&l| l < IN_TABLE as usize),
        "too many links"
    );
    match *path {
        [l] => Route {
            a: l as u32,
            b: NO_HOP,
        },
        [l, m] => Route {
            a: l as u32,
            b: m as u32,
        },
        _ => {
            let at = hops.len() as u32;
            assert!(at < IN_TABLE, "route table too large");
            hops.extend(path.iter().map(|&l| l as u32));
            Route {
                a: at | IN_TABLE,
                b: path.len() as u32,
            }
        }
    }
}

/// Field order is layout (repr(C), 64-byte aligned), by which events use a field: the first
/// line holds what every event of the flow reads (routes, extra delay) with the Σcwnd/Σflight
/// accounting and the flags, the second the receiver, the third the timer-event times, cwnd
/// integrals and phase counters, then the sender (its hot fields first). What only transfers,
/// drops, snapshots and the results use is in [`FlowCold`], a separate array, so the flows'
/// hot state stays dense (576 bytes a flow, was 768 with the cold part). Left to the compiler, the fields a packet touches
/// spread over about twelve cache lines, and adding two fields to `Sender` made S1/S2 17 %
/// slower (measured).
/// The hot part of a flow: what its packets, ACKs and timers touch.
#[repr(C, align(64))]
pub(crate) struct Flow {
    /// The data path and the ACK path in the route table, indexed by a packet's direction
    /// ([`Kind::dir`]).
    pub(crate) routes: [Route; 2],
    /// Delay after the last link of the path and of the ACK path (half of what the links leave
    /// of the flow's RTT; a fast access link), ns.
    pub(crate) extra: Ns,
    /// SOBAS at the receiver, and the window cap it may not exceed (max_window_packets).
    pub(crate) sobas: Option<Box<SobasRx>>,
    /// The window counted in Σcwnd (0 before the start and after a finite flow completes).
    pub(crate) counted_cwnd: f64,
    pub(crate) cwnd_t: Ns,
    /// Packets of this flow in the network (data and ACKs); a finished transfer's slot is reused
    /// only when this is 0, so no stale packet meets the next connection.
    pub(crate) in_net: u32,
    /// The flight size counted in Σflight.
    pub(crate) counted_flight: u32,
    pub(crate) data_bytes: u16,
    pub(crate) ack_bytes: u16,
    pub(crate) delayed_ack: bool,
    /// The current transfer is finished (or none has started yet, for users and slots).
    pub(crate) finished: bool,
    /// Finished short-flow slot waiting for its packets to leave the network.
    pub(crate) draining: bool,
    /// A user whose next fetch waits for its previous packets to leave the network.
    pub(crate) pending_start: bool,
    pub(crate) receiver: Receiver,
    pub(crate) mss: u32,
    pub(crate) class: u32,
    /// Time of the timer event responsible for the RTO / delayed-ACK deadline (NONE = none).
    pub(crate) rto_ev: Ns,
    pub(crate) pace_ev: Ns,
    pub(crate) delack_ev: Ns,
    pub(crate) delack_timeout: Ns,
    /// Time-weighted cwnd over the window.
    pub(crate) cwnd_area: f64,
    pub(crate) cwnd_area2: f64,
    pub(crate) ss_pkts: u64,
    pub(crate) ca_pkts: u64,
    pub(crate) sender: Sender,
}

// The line boundaries described above.
const _: () = assert!(
    std::mem::offset_of!(Flow, receiver) == 64
        && std::mem::offset_of!(Flow, rto_ev) == 128
        && std::mem::offset_of!(Flow, sender) == 192
);

impl Flow {
    /// A flow of class `c` (its hot and cold parts) for a first transfer of `total` segments.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        routes: [Route; 2],
        c: &Class,
        class: u32,
        owner: Owner,
        total: u32,
        start_s: f64,
        rtt_s: f64,
        extras: f64,
    ) -> (Flow, FlowCold) {
        let t = &c.tcp;
        let hot = Flow {
            routes,
            data_bytes: t.packet_bytes as u16,
            ack_bytes: c.ack_bytes as u16,
            mss: t.mss(),
            delayed_ack: c.delayed_ack,
            delack_timeout: ns(c.delayed_ack_timeout_s),
            class,
            extra: ns(extras),
            sender: new_sender(c, total),
            receiver: Receiver {
                ecn: c.ecn,
                ..Receiver::default()
            },
            in_net: 0,
            finished: owner != Owner::Static,
            draining: false,
            pending_start: false,
            ss_pkts: 0,
            ca_pkts: 0,
            sobas: None,
            rto_ev: NONE,
            delack_ev: NONE,
            pace_ev: NONE,
            counted_cwnd: 0.0,
            counted_flight: 0,
            cwnd_area: 0.0,
            cwnd_area2: 0.0,
            cwnd_t: 0,
        };
        let cold = FlowCold {
            owner,
            start_s,
            rtt_s,
            drops: 0,
            cong_events: 0,
            last_cong: NONE,
            tr_start: 0,
            tr_delivered: NONE,
            tr_think: f64::NAN,
            tr_base: [0; 4],
            transfers: 0,
            acc: [0; 4],
            rtt_sum: 0.0,
            rtt_n: 0,
            cap_window: t.max_window_packets.map_or(f64::INFINITY, |m| m as f64),
            snap_una: 0,
            snap_retx: 0,
            snap_to: 0,
            snap_fast: 0,
            snap_counts: [0; 4],
        };
        (hot, cold)
    }

    pub(crate) fn phase(&self) -> u8 {
        let s = &self.sender;
        if !s.started || s.done || self.finished {
            IDLE
        } else if s.w.cwnd < s.w.ssthresh {
            SS
        } else {
            CA
        }
    }
}

/// The cold part of a flow: who drives it, its counters and records, touched on drops,
/// transfer starts and ends, the window snapshot and the results, never per packet.
pub(crate) struct FlowCold {
    pub(crate) owner: Owner,
    pub(crate) start_s: f64,
    pub(crate) rtt_s: f64,
    // Cumulative counters over the run (differences give per-transfer and per-window values).
    pub(crate) drops: u64,
    pub(crate) cong_events: u64,
    pub(crate) last_cong: Ns,
    // The current transfer: start, size, think time before it, counters at its start.
    pub(crate) tr_start: Ns,
    /// When the receiver first held every segment of the current transfer in order (NONE: not yet).
    pub(crate) tr_delivered: Ns,
    pub(crate) tr_think: f64,
    pub(crate) tr_base: [u64; 4],
    pub(crate) transfers: u64,
    // Window values of earlier connections of a reused flow (users, slots): acked segments,
    // retransmits, timeouts, fast retransmits; and RTT sample sums of all connections.
    pub(crate) acc: [u64; 4],
    pub(crate) rtt_sum: f64,
    pub(crate) rtt_n: u64,
    /// The window cap SOBAS may not exceed (max_window_packets).
    pub(crate) cap_window: f64,
    // Snapshots at the start of the measurement window.
    pub(crate) snap_una: u32,
    pub(crate) snap_retx: u64,
    pub(crate) snap_to: u64,
    pub(crate) snap_fast: u64,
    /// drops, congestion events, slow-start and congestion-avoidance packets at the snapshot.
    pub(crate) snap_counts: [u64; 4],
}

impl FlowCold {
    /// A data packet of flow `hot` was dropped at time `t`: a loss, and a congestion event if
    /// at least two RTTs after the last one (000 §IV).
    pub(crate) fn count_drop(&mut self, hot: &Flow, t: Ns) {
        self.drops += 1;
        let rtt = hot.sender.srtt.map_or(ns(self.rtt_s), |s| s as Ns);
        if self.last_cong == NONE || t >= self.last_cong.saturating_add(2 * rtt) {
            self.cong_events += 1;
            self.last_cong = t;
        }
    }

    /// Drops, congestion events, slow-start and congestion-avoidance packets so far.
    #[inline]
    pub(crate) fn counts(&self, hot: &Flow) -> [u64; 4] {
        [self.drops, self.cong_events, hot.ss_pkts, hot.ca_pkts]
    }

    /// The snapshot at the start of the measurement window.
    pub(crate) fn snapshot(&mut self, hot: &Flow) {
        self.snap_una = hot.sender.snd_una;
        self.snap_retx = hot.sender.retransmits;
        self.snap_to = hot.sender.timeouts;
        self.snap_fast = hot.sender.fast_retransmits;
        self.snap_counts = self.counts(hot);
    }

    /// Fold the window counters of the current connection (sender `s`) into `acc` before a new
    /// one replaces it (the new connection's counters start at 0, so its snapshot is 0 too).
    pub(crate) fn fold_connection(&mut self, s: &Sender, snapped: bool) {
        if snapped {
            self.acc[0] += (s.snd_una - self.snap_una) as u64;
            self.acc[1] += s.retransmits - self.snap_retx;
            self.acc[2] += s.timeouts - self.snap_to;
            self.acc[3] += s.fast_retransmits - self.snap_fast;
        }
        self.rtt_sum += s.rtt_sum;
        self.rtt_n += s.rtt_samples;
        self.snap_una = 0;
        self.snap_retx = 0;
        self.snap_to = 0;
        self.snap_fast = 0;
    }

    /// Window values of the flow (current sender `s`): acked segments, retransmits, timeouts,
    /// fast retransmits.
    pub(crate) fn window_values(&self, s: &Sender) -> [u64; 4] {
        [
            self.acc[0] + (s.snd_una - self.snap_una) as u64,
            self.acc[1] + s.retransmits - self.snap_retx,
            self.acc[2] + s.timeouts - self.snap_to,
            self.acc[3] + s.fast_retransmits - self.snap_fast,
        ]
    }
}

/// A sender for a transfer of `total` segments of class `c`.
pub(crate) fn new_sender(c: &Class, total: u32) -> Sender {
    let mut s = Sender::new(&c.tcp, c.reg.recovery, total);
    s.paced = c.reg.paced;
    s.ecn = c.ecn;
    if c.reg.model {
        s.enable_rate_samples(c.tcp.mss());
    }
    s
}

#[inline]
pub(crate) fn window_cwnd(s: &Sender) -> f64 {
    // During fast recovery the classic implementation inflates cwnd by the duplicate ACKs;
    // the measured window leaves the inflation out (as Linux's cwnd would show it).
    // A model-based control (BBR: `s.rate` is Some) sets cwnd itself, never inflated.
    let w = if s.in_recovery && s.rate.is_none() {
        s.w.cwnd.min(s.w.ssthresh)
    } else {
        s.w.cwnd
    };
    w.min(s.max_window)
}
