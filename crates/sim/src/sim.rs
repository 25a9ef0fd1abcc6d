//! The simulation loop: events, packet forwarding along routes, endpoints, measurements.
//!
//! Event kinds: a packet arriving at a hop of its route (or at its endpoint), a flow's start
//! (or a closed-loop user's next fetch), the per-flow retransmission, delayed-ACK and pacing
//! timers, an open-loop short-flow arrival, and a UDP source's next packet. Links used by one flow in one
//! direction are traversed inline (see `net::route`), so in a dumbbell a data packet costs
//! three events: arrival at the bottleneck, arrival at the receiver, its ACK's arrival at the
//! sender.
//!
//! Timers are lazy: a flow keeps its deadline in its state and at most the events needed to
//! reach it; an event that finds the deadline moved later re-schedules itself.
use crate::calendar::Calendar;
use crate::metrics::{histogram, jain, mean_std, DelayHist, QueueStats};
use crate::net::link::{Link, Offer};
use crate::net::packet::{Kind, Packet};
use crate::net::queue::DropTail;
use crate::net::route::private_links;
use crate::results::*;
use crate::scenario::{expand, ClassKind, Scenario, ScenarioError, TcpConfig};
use crate::sobas::SobasRx;
use crate::tcp::cc::{self, CongestionControl, Registration};
use crate::tcp::receiver::{AckAction, Receiver};
use crate::tcp::sender::{Report, Sender};
use crate::time::{ns, secs, Ns};
use crate::traffic::closed_loop::UsersSource;
use crate::traffic::short_flows::ShortSource;
use crate::traffic::udp::UdpSource;

const NONE: Ns = Ns::MAX;

#[derive(Debug, Clone, Copy)]
enum Ev {
    /// The packet reaches hop `pkt.hop` of its route (its endpoint when hop == route length).
    Arrive(Packet),
    Start(u32),
    Rto(u32),
    DelAck(u32),
    /// Pacing released the flow's next segment.
    Pace(u32),
    /// The next open-loop transfer of short-flow source k arrives.
    Arrival(u32),
    /// UDP source k sends its next packet.
    Udp(u32),
    /// Flow f's SOBAS receiver sends its next probe.
    Probe(u32),
}

/// Who drives a flow's transfers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Owner {
    /// The dumbbell's or an explicit flow: one transfer (long-lived or finite).
    Static,
    /// A closed-loop user of users source k.
    User(u32),
    /// A slot of short-flow source k.
    Short(u32),
}

/// Flow phases counted in the slow-start / congestion-avoidance series.
const IDLE: u8 = 0;
const SS: u8 = 1;
const CA: u8 = 2;

/// A class of flows at run time: its TCP settings and congestion control.
struct Class {
    name: String,
    kind: ClassKind,
    tcp: TcpConfig,
    reg: &'static Registration,
}

/// A path in the engine's route table: links `hops[at..at + len]`.
#[derive(Debug, Clone, Copy)]
struct Route {
    at: u32,
    len: u32,
}

/// Append `path` to the route table `hops`.
fn add_route(hops: &mut Vec<u32>, path: &[usize]) -> Route {
    let at = hops.len() as u32;
    hops.extend(path.iter().map(|&l| l as u32));
    Route {
        at,
        len: path.len() as u32,
    }
}

/// Field order is layout (repr(C), 64-byte aligned), by which events use a field: the first
/// line holds what every event of the flow reads (routes, extra delay) with the Σcwnd/Σflight
/// accounting and the flags, the second the receiver, the third the timer-event times, cwnd
/// integrals and phase counters, then the sender (its hot fields first) and what only
/// transfers, drops and the results use. Left to the compiler, the fields a packet touches
/// spread over about twelve cache lines, and adding two fields to `Sender` made S1/S2 17 %
/// slower (measured).
#[repr(C, align(64))]
struct Flow {
    /// The data path and the ACK path in the route table, indexed by a packet's direction
    /// ([`Kind::dir`]).
    routes: [Route; 2],
    /// Delay after the last link of the path and of the ACK path (half of what the links leave
    /// of the flow's RTT; a fast access link), ns.
    extra: Ns,
    /// SOBAS at the receiver, and the window cap it may not exceed (max_window_packets).
    sobas: Option<Box<SobasRx>>,
    /// The window counted in Σcwnd (0 before the start and after a finite flow completes).
    counted_cwnd: f64,
    cwnd_t: Ns,
    /// Packets of this flow in the network (data and ACKs); a finished transfer's slot is reused
    /// only when this is 0, so no stale packet meets the next connection.
    in_net: u32,
    /// The flight size counted in Σflight.
    counted_flight: u32,
    data_bytes: u16,
    ack_bytes: u16,
    delayed_ack: bool,
    /// The current transfer is finished (or none has started yet, for users and slots).
    finished: bool,
    /// Finished short-flow slot waiting for its packets to leave the network.
    draining: bool,
    /// A user whose next fetch waits for its previous packets to leave the network.
    pending_start: bool,
    receiver: Receiver,
    mss: u32,
    class: u32,
    /// Time of the timer event responsible for the RTO / delayed-ACK deadline (NONE = none).
    rto_ev: Ns,
    pace_ev: Ns,
    delack_ev: Ns,
    delack_timeout: Ns,
    /// Time-weighted cwnd over the window.
    cwnd_area: f64,
    cwnd_area2: f64,
    ss_pkts: u64,
    ca_pkts: u64,
    sender: Sender,
    // Cumulative counters over the run (differences give per-transfer and per-window values).
    drops: u64,
    cong_events: u64,
    last_cong: Ns,
    start_s: f64,
    rtt_s: f64,
    owner: Owner,
    // The current transfer: start, size, think time before it, counters at its start.
    tr_start: Ns,
    tr_think: f64,
    tr_base: [u64; 4],
    transfers: u64,
    // Window values of earlier connections of a reused flow (users, slots): acked segments,
    // retransmits, timeouts, fast retransmits; and RTT sample sums of all connections.
    acc: [u64; 4],
    rtt_sum: f64,
    rtt_n: u64,
    cap_window: f64,
    // Snapshots at the start of the measurement window.
    snap_una: u32,
    snap_retx: u64,
    snap_to: u64,
    snap_fast: u64,
    /// drops, congestion events, slow-start and congestion-avoidance packets at the snapshot.
    snap_counts: [u64; 4],
}

// The line boundaries described above.
const _: () = assert!(
    std::mem::offset_of!(Flow, receiver) == 64
        && std::mem::offset_of!(Flow, rto_ev) == 128
        && std::mem::offset_of!(Flow, sender) == 192
);

impl Flow {
    #[allow(clippy::too_many_arguments)]
    fn new(
        routes: [Route; 2],
        c: &Class,
        class: u32,
        owner: Owner,
        total: u32,
        start_s: f64,
        rtt_s: f64,
        extras: f64,
    ) -> Flow {
        let t = &c.tcp;
        Flow {
            routes,
            data_bytes: t.packet_bytes as u16,
            ack_bytes: t.ack_bytes as u16,
            mss: t.packet_bytes - t.header_bytes,
            delayed_ack: t.delayed_ack,
            delack_timeout: ns(t.delayed_ack_timeout_s),
            start_s,
            rtt_s,
            class,
            owner,
            extra: ns(extras),
            sender: new_sender(c, total),
            receiver: Receiver::default(),
            in_net: 0,
            finished: owner != Owner::Static,
            draining: false,
            pending_start: false,
            drops: 0,
            cong_events: 0,
            last_cong: NONE,
            ss_pkts: 0,
            ca_pkts: 0,
            tr_start: 0,
            tr_think: f64::NAN,
            tr_base: [0; 4],
            transfers: 0,
            acc: [0; 4],
            rtt_sum: 0.0,
            rtt_n: 0,
            sobas: None,
            cap_window: t.max_window_packets.map_or(f64::INFINITY, |m| m as f64),
            rto_ev: NONE,
            delack_ev: NONE,
            pace_ev: NONE,
            counted_cwnd: 0.0,
            counted_flight: 0,
            cwnd_area: 0.0,
            cwnd_area2: 0.0,
            cwnd_t: 0,
            snap_una: 0,
            snap_retx: 0,
            snap_to: 0,
            snap_fast: 0,
            snap_counts: [0; 4],
        }
    }

    #[inline]
    fn counts(&self) -> [u64; 4] {
        [self.drops, self.cong_events, self.ss_pkts, self.ca_pkts]
    }

    /// Fold the window counters of the current connection into `acc` before a new one replaces
    /// it (the new connection's counters start at 0, so its snapshot is 0 too).
    fn fold_connection(&mut self, snapped: bool) {
        let s = &self.sender;
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

    /// Window values of this flow: acked segments, retransmits, timeouts, fast retransmits.
    fn window_values(&self) -> [u64; 4] {
        let s = &self.sender;
        [
            self.acc[0] + (s.snd_una - self.snap_una) as u64,
            self.acc[1] + s.retransmits - self.snap_retx,
            self.acc[2] + s.timeouts - self.snap_to,
            self.acc[3] + s.fast_retransmits - self.snap_fast,
        ]
    }

    fn phase(&self) -> u8 {
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

/// A running simulation. Build with [`Simulation::new`], advance with
/// [`Simulation::run_until`], collect with [`Simulation::finish`].
pub struct Simulation {
    seed: u64,
    links: Vec<Link>,
    link_names: Vec<String>,
    /// The route table: every flow's and UDP source's paths, as link indices.
    hops: Vec<u32>,
    udp_routes: Vec<Route>,
    flows: Vec<Flow>,
    ccs: Vec<Box<dyn CongestionControl>>,
    classes: Vec<Class>,
    short: Vec<ShortSource>,
    users: Vec<UsersSource>,
    udp: Vec<UdpSource>,
    transfers: Vec<TransferRecord>,
    /// Connections started on reused flows (users' fetches, short flows), for their ids.
    connections: u64,
    /// Count each flow's packets in the network (only when flows are reused: users, short flows).
    track_net: bool,
    /// The sampled series of flows in slow start / congestion avoidance.
    phase_iv: Option<Ns>,
    next_phase: Ns,
    phase_trace: PhaseTrace,
    cal: Calendar<Ev>,
    bn: usize,
    now: Ns,
    end: Ns,
    warm: Ns,
    // Conservation account (whole run).
    sent: u64,
    delivered: u64,
    dropped: u64,
    events: u64,
    // Measurements.
    qstats: QueueStats,
    qlimit: Option<u64>,
    want_qhist: bool,
    delay: DelayHist,
    sum_cwnd: f64,
    sum_flight: u64,
    flight_sum_samples: Vec<f64>,
    snapped: bool,
    next_sample: Ns,
    cwnd_sum_iv: Ns,
    next_cwnd_sum: Ns,
    cwnd_sum_samples: Vec<f64>,
    qtrace_iv: Option<Ns>,
    next_qtrace: Ns,
    qtrace: QueueTrace,
    ctrace_iv: Ns,
    next_ctrace: Ns,
    ctrace: Vec<CwndTrace>,
    out: Vec<u32>,
}

/// Bring a measured link's queue up to time `t`, integrating its occupancy in `q`.
#[inline]
fn advance_measured(l: &mut Link, q: &mut QueueStats, t: Ns) {
    while let Some(s) = l.queue.next_start() {
        if s > t {
            break;
        }
        q.integrate(l.queue.len(), s);
        l.queue.pop();
    }
    q.integrate(l.queue.len(), t);
}

/// A sender for a transfer of `total` segments of class `c`.
fn new_sender(c: &Class, total: u32) -> Sender {
    let mut s = Sender::new(&c.tcp, c.reg.recovery, total);
    s.paced = c.reg.paced;
    s
}

#[inline]
fn window_cwnd(s: &Sender) -> f64 {
    // During fast recovery the classic implementation inflates cwnd by the duplicate ACKs;
    // the measured window leaves the inflation out (as Linux's cwnd would show it).
    // BBR hook: a model-based control (`s.rate` is Some) sets cwnd itself, never inflated.
    let w = if s.in_recovery && s.rate.is_none() {
        s.w.cwnd.min(s.w.ssthresh)
    } else {
        s.w.cwnd
    };
    w.min(s.max_window)
}

impl Simulation {
    /// Expand and validate the scenario and set up the run (nothing is simulated yet).
    pub fn new(s: &Scenario) -> Result<Simulation, ScenarioError> {
        let plan = expand(s)?;
        let end = ns(s.duration_s);
        let warm = ns(s.warmup_s);
        // Who uses each link: every flow's two paths, each short-flow source's paths twice (its
        // transfers overlap, so its links are never private) and each UDP source's path.
        let empty: &[usize] = &[];
        let mut paths: Vec<(&[usize], &[usize])> = plan
            .flows
            .iter()
            .map(|f| (f.path.as_slice(), f.ack_path.as_slice()))
            .collect();
        for sp in plan.short.iter() {
            for _ in 0..2 {
                paths.push((sp.path.as_slice(), sp.ack_path.as_slice()));
            }
        }
        for u in plan.udp.iter() {
            paths.push((u.path.as_slice(), empty));
        }
        let private = private_links(plan.links.len(), &paths, &[plan.bottleneck]);
        let mut links: Vec<Link> = plan
            .links
            .iter()
            .map(|l| {
                Link::new(
                    l.rate_bps,
                    ns(l.delay_s),
                    DropTail::new(l.queue.limit_packets, l.queue.limit_bytes),
                )
            })
            .collect();
        for (l, p) in links.iter_mut().zip(private) {
            l.private = p;
        }
        let classes: Vec<Class> = plan
            .classes
            .iter()
            .map(|c| Class {
                name: c.name.clone(),
                kind: c.kind,
                tcp: c.tcp.clone(),
                reg: cc::lookup(&c.tcp.cc).expect("validated"),
            })
            .collect();
        let mut flows = Vec::with_capacity(plan.flows.len());
        let mut hops = Vec::new();
        let mut ccs = Vec::with_capacity(plan.flows.len());
        let mut max_pkt = classes
            .iter()
            .map(|c| c.tcp.packet_bytes)
            .max()
            .unwrap_or(0);
        for u in plan.udp.iter() {
            max_pkt = max_pkt.max(u.packet_bytes);
        }
        for f in plan.flows.iter() {
            let c = &classes[f.class as usize];
            let mss = c.tcp.packet_bytes - c.tcp.header_bytes;
            let owner = match f.user_of {
                Some(u) => Owner::User(u),
                None => Owner::Static,
            };
            let total = if owner == Owner::Static {
                crate::traffic::bulk::segments(f.bytes, mss)
            } else {
                0
            };
            let routes = [
                add_route(&mut hops, &f.path),
                add_route(&mut hops, &f.ack_path),
            ];
            flows.push(Flow::new(
                routes, c, f.class, owner, total, f.start_s, f.rtt_s, f.extra_s,
            ));
            ccs.push(c.reg.build(&c.tcp, s.seed, ccs.len() as u64));
            if let Some(spec) = &f.sobas {
                let fl = flows.last_mut().expect("just pushed");
                let rx = SobasRx::new(spec, mss);
                fl.sender.max_window = rx.window().min(fl.cap_window);
                fl.sobas = Some(Box::new(rx));
            }
        }
        let mut short: Vec<ShortSource> = plan
            .short
            .iter()
            .enumerate()
            .map(|(i, p)| ShortSource::new(p.clone(), s.seed, i))
            .collect();
        let mut users: Vec<UsersSource> = plan
            .users
            .iter()
            .enumerate()
            .map(|(i, p)| UsersSource::new(p.clone(), s.seed, i))
            .collect();
        let udp_routes: Vec<Route> = plan
            .udp
            .iter()
            .map(|u| add_route(&mut hops, &u.path))
            .collect();
        let mut udp: Vec<UdpSource> = plan
            .udp
            .iter()
            .enumerate()
            .map(|(i, p)| UdpSource::new(p.clone(), s.seed, i))
            .collect();
        let bnq = &plan.links[plan.bottleneck].queue;
        // Calendar geometry from the expected event rate (about three events per bottleneck
        // packet): buckets about two mean inter-event gaps wide, a horizon of >= 0.25 s
        // (later events wait in the wheel's overflow heap). Measured best on S1-S3.
        let bn_rate = plan.links[plan.bottleneck].rate_bps;
        let ev_rate = 3.0 * bn_rate / (8.0 * max_pkt.max(40) as f64);
        let shift = (2e9 / ev_rate).log2().round().clamp(6.0, 20.0) as u32;
        let log_n = (0.25e9 / (1u64 << shift) as f64)
            .log2()
            .ceil()
            .clamp(10.0, 18.0) as u32;
        let mut cal = Calendar::with_geometry(shift, log_n);
        let mut user_k = vec![0usize; users.len()];
        for (i, f) in plan.flows.iter().enumerate() {
            let start_s = match f.user_of {
                Some(u) => {
                    let u = u as usize;
                    user_k[u] += 1;
                    users[u].first_start(user_k[u] - 1)
                }
                None => f.start_s,
            };
            flows[i].start_s = start_s;
            let start = ns(start_s);
            if start < end {
                cal.push(start, Ev::Start(i as u32));
            }
        }
        for (k, src) in short.iter_mut().enumerate() {
            if let Some(t) = src.first() {
                cal.push(t, Ev::Arrival(k as u32));
            }
        }
        for (k, src) in udp.iter_mut().enumerate() {
            if let Some(t) = src.first() {
                cal.push(t, Ev::Udp(k as u32));
            }
        }
        let qlimit = bnq.limit_packets;
        // Longest possible wait at the bottleneck: a full queue plus one packet in service.
        let max_wait_bytes = match (bnq.limit_packets, bnq.limit_bytes) {
            (Some(p), _) => (p + 1) as f64 * max_pkt as f64,
            (None, Some(b)) => b as f64 + max_pkt as f64,
            (None, None) => bn_rate / 8.0, // unlimited: bins up to 1 s (the last bin collects the rest)
        };
        let max_wait = ((max_wait_bytes * 8.0 / bn_rate) * 1e9).ceil() as Ns;
        let m = &s.measure;
        let ctrace = m
            .cwnd_trace_flows
            .iter()
            .map(|&f| CwndTrace {
                flow: f,
                t_s: vec![],
                cwnd: vec![],
                flight: vec![],
            })
            .collect();
        let mut sim = Simulation {
            seed: s.seed,
            links,
            link_names: plan.links.iter().map(|l| l.name.clone()).collect(),
            hops,
            udp_routes,
            flows,
            ccs,
            classes,
            short,
            users,
            udp,
            transfers: Vec::new(),
            connections: 0,
            track_net: !plan.short.is_empty() || !plan.users.is_empty(),
            phase_iv: m.phase_trace_interval_s.map(|x| ns(x).max(1)),
            next_phase: warm,
            phase_trace: PhaseTrace::default(),
            cal,
            bn: plan.bottleneck,
            now: 0,
            end,
            warm,
            sent: 0,
            delivered: 0,
            dropped: 0,
            events: 0,
            qstats: QueueStats::new(warm, end, qlimit),
            qlimit,
            want_qhist: m.queue_histogram,
            delay: DelayHist::new(max_wait.max(1000), 10_000),
            sum_cwnd: 0.0,
            sum_flight: 0,
            flight_sum_samples: Vec::new(),
            snapped: false,
            next_sample: 0,
            cwnd_sum_iv: ns(m.cwnd_sum_interval_s).max(1),
            next_cwnd_sum: warm,
            cwnd_sum_samples: Vec::new(),
            qtrace_iv: m.queue_trace_interval_s.map(|x| ns(x).max(1)),
            next_qtrace: warm,
            qtrace: QueueTrace::default(),
            ctrace_iv: ns(m.cwnd_trace_interval_s).max(1),
            next_ctrace: if m.cwnd_trace_flows.is_empty() {
                NONE
            } else {
                warm
            },
            ctrace,
            out: Vec::with_capacity(64),
        };
        if sim.qtrace_iv.is_none() {
            sim.next_qtrace = NONE;
        }
        if sim.phase_iv.is_none() {
            sim.next_phase = NONE;
        }
        sim.next_sample = sim.compute_next_sample();
        Ok(sim)
    }

    pub fn now_ns(&self) -> u64 {
        self.now
    }

    pub fn end_ns(&self) -> u64 {
        self.end
    }

    /// Process every event before `t_ns` (capped at the end of the run); afterwards
    /// `now_ns() == min(t_ns, end_ns())`.
    pub fn run_until(&mut self, t_ns: u64) {
        let limit = t_ns.min(self.end);
        if limit <= self.now {
            return;
        }
        while let Some(t) = self.cal.peek_time() {
            if t >= limit {
                break;
            }
            if t >= self.next_sample {
                self.sample_upto(t);
            }
            let (t, ev) = self.cal.pop().unwrap();
            debug_assert!(t >= self.now);
            self.now = t;
            self.events += 1;
            match ev {
                Ev::Arrive(p) => self.on_arrive(p),
                Ev::Start(f) => self.on_start(f as usize),
                Ev::Rto(f) => self.on_rto(f as usize),
                Ev::DelAck(f) => self.on_delack(f as usize),
                Ev::Pace(f) => self.on_pace(f as usize),
                Ev::Arrival(k) => self.on_arrival(k as usize),
                Ev::Udp(k) => self.on_udp(k as usize),
                Ev::Probe(f) => self.on_probe_timer(f as usize),
            }
        }
        if limit >= self.next_sample {
            // Samples strictly before `limit` see every event before them.
            self.sample_upto(limit - 1);
        }
        self.now = limit;
    }

    fn compute_next_sample(&self) -> Ns {
        let snap = if self.snapped { NONE } else { self.warm };
        snap.min(self.next_cwnd_sum)
            .min(self.next_qtrace)
            .min(self.next_ctrace)
            .min(self.next_phase)
    }

    /// Take every sample due at or before `t` (state = all events before `t`).
    fn sample_upto(&mut self, t: Ns) {
        if !self.snapped && t >= self.warm {
            self.snapped = true;
            for f in self.flows.iter_mut() {
                f.snap_una = f.sender.snd_una;
                f.snap_retx = f.sender.retransmits;
                f.snap_to = f.sender.timeouts;
                f.snap_fast = f.sender.fast_retransmits;
                f.snap_counts = f.counts();
            }
        }
        if let Some(iv) = self.phase_iv {
            if self.next_phase <= t && self.next_phase < self.end {
                // Counted at the sample (a pass over the flows every interval) rather than kept
                // up to date on every ACK: long-lived runs pay nothing per packet for the series.
                let mut n = [0u64; 3];
                for fl in self.flows.iter() {
                    n[fl.phase() as usize] += 1;
                }
                while self.next_phase <= t && self.next_phase < self.end {
                    self.phase_trace.t_s.push(secs(self.next_phase));
                    self.phase_trace.slow_start.push(n[SS as usize]);
                    self.phase_trace.congestion_avoidance.push(n[CA as usize]);
                    self.next_phase += iv;
                }
            }
            if self.next_phase >= self.end {
                self.next_phase = NONE;
            }
        }
        while self.next_cwnd_sum <= t && self.next_cwnd_sum < self.end {
            self.cwnd_sum_samples.push(self.sum_cwnd.max(0.0));
            self.flight_sum_samples.push(self.sum_flight as f64);
            self.next_cwnd_sum += self.cwnd_sum_iv;
        }
        if let Some(iv) = self.qtrace_iv {
            while self.next_qtrace <= t && self.next_qtrace < self.end {
                let s = self.next_qtrace;
                self.advance_bn(s);
                self.qtrace.t_s.push(secs(s));
                self.qtrace.packets.push(self.links[self.bn].queue.len());
                let bits = self.links[self.bn].serialized_bits(s, (self.warm, self.end));
                self.qtrace.bits.push(bits);
                self.next_qtrace += iv;
            }
            if self.next_qtrace >= self.end {
                self.next_qtrace = NONE;
            }
        }
        while self.next_ctrace <= t && self.next_ctrace < self.end {
            let s = self.next_ctrace;
            for tr in self.ctrace.iter_mut() {
                let fl = &self.flows[tr.flow as usize];
                tr.t_s.push(secs(s));
                tr.cwnd.push(if fl.sender.started {
                    window_cwnd(&fl.sender)
                } else {
                    0.0
                });
                // Same count as the run's flight sum: from the next segment to send, so after a
                // timeout (go-back-N) the segments to be resent no longer count.
                tr.flight.push(if fl.sender.started { fl.sender.snd_nxt - fl.sender.snd_una } else { 0 });
            }
            self.next_ctrace += self.ctrace_iv;
        }
        if self.next_ctrace >= self.end {
            self.next_ctrace = NONE;
        }
        if self.next_cwnd_sum >= self.end {
            self.next_cwnd_sum = NONE;
        }
        self.next_sample = self.compute_next_sample();
    }

    /// Bring the bottleneck queue (and its time-weighted statistics) up to time `t`.
    #[inline]
    fn advance_bn(&mut self, t: Ns) {
        advance_measured(&mut self.links[self.bn], &mut self.qstats, t);
    }

    /// Move `p` along its route from hop `p.hop`, where it arrives at time `t` (>= now).
    /// Private links are crossed inline; a shared link in the future or the endpoint needs
    /// an event.
    #[inline]
    fn forward(&mut self, mut p: Packet, mut t: Ns) {
        let f = p.flow as usize;
        // The route, and the delay after its last link (none for UDP).
        let (r, extra) = if p.kind == Kind::Udp {
            (self.udp_routes[f], 0)
        } else {
            let fl = &self.flows[f];
            (fl.routes[p.kind.dir() & 1], fl.extra)
        };
        let (now, bn, window) = (self.now, self.bn, (self.warm, self.end));
        while (p.hop as u32) < r.len {
            let li = self.hops[(r.at + p.hop as u32) as usize] as usize;
            let link = &mut self.links[li];
            if t > now && !link.private {
                self.cal.push(t, Ev::Arrive(p));
                return;
            }
            if li == bn {
                advance_measured(link, &mut self.qstats, t);
            } else {
                link.advance(t);
            }
            match link.offer(t, p.bytes as u32, window) {
                Offer::Dropped => {
                    self.dropped += 1;
                    self.on_drop(p, t);
                    return;
                }
                Offer::Accepted { arrive, wait, .. } => {
                    if li == bn && t >= window.0 && t < window.1 {
                        self.delay.record(wait);
                    }
                    t = arrive;
                    p.hop += 1;
                }
            }
        }
        self.cal.push(t + extra, Ev::Arrive(p));
    }

    /// A packet was dropped at time `t`: per-flow losses and congestion events (losses at least
    /// two RTTs apart, 000 §IV), and the flow's count of packets in the network.
    #[cold]
    #[inline(never)]
    fn on_drop(&mut self, p: Packet, t: Ns) {
        let f = p.flow as usize;
        if p.kind == Kind::Udp {
            self.udp[f].dropped += 1;
            return;
        }
        if p.kind == Kind::Data {
            let fl = &mut self.flows[f];
            fl.drops += 1;
            let rtt = fl.sender.srtt.map_or(ns(fl.rtt_s), |s| s as Ns);
            if fl.last_cong == NONE || t >= fl.last_cong.saturating_add(2 * rtt) {
                fl.cong_events += 1;
                fl.last_cong = t;
            }
        }
        if self.track_net {
            self.net_exit(f);
        }
    }

    /// One of flow f's packets left the network (delivered or dropped).
    #[inline]
    fn net_exit(&mut self, f: usize) {
        let fl = &mut self.flows[f];
        fl.in_net -= 1;
        if fl.in_net == 0 && (fl.draining || fl.pending_start) {
            self.on_drained(f);
        }
    }

    /// A finished transfer's last packet left the network: free the short-flow slot, or start
    /// the user's waiting fetch.
    #[cold]
    #[inline(never)]
    fn on_drained(&mut self, f: usize) {
        let now = self.now;
        let fl = &mut self.flows[f];
        if fl.draining {
            fl.draining = false;
            if let Owner::Short(k) = fl.owner {
                self.short[k as usize].free.push(f as u32);
            }
        }
        if fl.pending_start {
            fl.pending_start = false;
            self.cal.push(now, Ev::Start(f as u32));
        }
    }

    fn on_arrive(&mut self, p: Packet) {
        let f = p.flow as usize;
        let len = if p.kind == Kind::Udp {
            self.udp_routes[f].len
        } else {
            self.flows[f].routes[p.kind.dir() & 1].len
        };
        if (p.hop as u32) < len {
            self.forward(p, self.now);
            return;
        }
        self.delivered += 1;
        match p.kind {
            Kind::Data => {
                self.on_data_at_receiver(f, p.seq);
                if self.track_net {
                    self.net_exit(f);
                }
            }
            Kind::Ack => {
                self.on_ack_at_sender(f, p.seq, p.sacked);
                if self.track_net {
                    self.net_exit(f);
                }
            }
            Kind::Udp => self.udp[f].received += 1,
            Kind::Probe => {
                // the sender echoes the probe along the data path
                let fl = &mut self.flows[f];
                let rx = fl.sobas.as_mut().expect("probes come from SOBAS receivers");
                let echo = Packet {
                    flow: f as u32,
                    seq: p.seq,
                    sacked: rx.echoes_sent,
                    bytes: rx.probe_bytes,
                    hop: 0,
                    kind: Kind::Echo,
                };
                rx.echoes_sent = rx.echoes_sent.wrapping_add(1);
                fl.in_net += self.track_net as u32;
                self.sent += 1;
                self.forward(echo, self.now);
                if self.track_net {
                    self.net_exit(f);
                }
            }
            Kind::Echo => {
                let now = self.now;
                let rx = self.flows[f]
                    .sobas
                    .as_mut()
                    .expect("echoes go to SOBAS receivers");
                if rx.echo(now, p.seq, p.sacked) {
                    self.apply_sobas(f);
                }
                if self.track_net {
                    self.net_exit(f);
                }
            }
        }
    }

    /// The SOBAS limit changed: it becomes the flow's advertised window.
    fn apply_sobas(&mut self, f: usize) {
        let fl = &mut self.flows[f];
        if let Some(rx) = &fl.sobas {
            fl.sender.max_window = rx.window().min(fl.cap_window);
        }
    }

    /// Flow f's SOBAS receiver sends a probe along the ACK path; the next one follows.
    fn on_probe_timer(&mut self, f: usize) {
        let now = self.now;
        let fl = &mut self.flows[f];
        let Some(rx) = fl.sobas.as_mut() else { return };
        let (id, changed) = rx.probe(now);
        let p = Packet {
            flow: f as u32,
            seq: id,
            sacked: u32::MAX,
            bytes: rx.probe_bytes,
            hop: 0,
            kind: Kind::Probe,
        };
        let next = now + rx.probe_iv;
        fl.in_net += self.track_net as u32;
        self.sent += 1;
        if changed {
            self.apply_sobas(f);
        }
        self.forward(p, now);
        if next < self.end {
            self.cal.push(next, Ev::Probe(f as u32));
        }
    }

    fn send_ack(&mut self, f: usize, sacked: u32) {
        let fl = &mut self.flows[f];
        fl.receiver.unacked = 0;
        fl.receiver.delack_deadline = 0;
        let p = Packet {
            flow: f as u32,
            seq: fl.receiver.rcv_nxt,
            sacked,
            bytes: fl.ack_bytes,
            hop: 0,
            kind: Kind::Ack,
        };
        fl.in_net += self.track_net as u32;
        self.sent += 1;
        self.forward(p, self.now);
    }

    fn on_data_at_receiver(&mut self, f: usize, seq: u32) {
        let now = self.now;
        let fl = &mut self.flows[f];
        let before = fl.receiver.rcv_nxt;
        let action = fl.receiver.on_segment(seq, fl.delayed_ack);
        if let Some(rx) = fl.sobas.as_mut() {
            let pkt = fl.data_bytes as u32;
            if rx.data(now, fl.receiver.rcv_nxt - before, pkt) {
                self.apply_sobas(f);
            }
        }
        let fl = &mut self.flows[f];
        match action {
            AckAction::Now => self.send_ack(f, seq),
            AckAction::Delay => {
                if fl.receiver.delack_deadline == 0 {
                    let d = now + fl.delack_timeout;
                    fl.receiver.delack_deadline = d;
                    if fl.delack_ev == NONE || d < fl.delack_ev {
                        fl.delack_ev = d;
                        self.cal.push(d, Ev::DelAck(f as u32));
                    }
                }
            }
        }
    }

    fn on_delack(&mut self, f: usize) {
        let now = self.now;
        let fl = &mut self.flows[f];
        if now >= fl.delack_ev {
            fl.delack_ev = NONE;
        }
        let d = fl.receiver.delack_deadline;
        if d == 0 {
            return;
        }
        if d <= now {
            self.send_ack(f, u32::MAX);
        } else if fl.delack_ev == NONE || d < fl.delack_ev {
            fl.delack_ev = d;
            self.cal.push(d, Ev::DelAck(f as u32));
        }
    }

    /// Emit the segments the sender queued in `self.out`.
    fn emit(&mut self, f: usize, out: &mut Vec<u32>) {
        let fl = &mut self.flows[f];
        let n = out.len() as u64;
        if fl.sender.w.cwnd < fl.sender.w.ssthresh {
            fl.ss_pkts += n;
        } else {
            fl.ca_pkts += n;
        }
        if self.track_net {
            fl.in_net += n as u32;
        }
        let bytes = fl.data_bytes;
        for &seq in out.iter() {
            let p = Packet {
                flow: f as u32,
                seq,
                sacked: u32::MAX,
                bytes,
                hop: 0,
                kind: Kind::Data,
            };
            self.sent += 1;
            self.forward(p, self.now);
        }
        out.clear();
    }

    /// Bookkeeping after the sender ran: Σcwnd, per-flow cwnd average, the RTO timer.
    fn after_sender(&mut self, f: usize, _rep: Report) {
        if self.flows[f].sender.done && !self.flows[f].finished {
            self.on_transfer_done(f);
        }
        let now = self.now;
        let (lo, hi) = (self.warm, self.end);
        let fl = &mut self.flows[f];
        let w = if fl.sender.done {
            0.0
        } else {
            window_cwnd(&fl.sender)
        };
        if w != fl.counted_cwnd {
            let a = fl.cwnd_t.max(lo);
            let b = now.min(hi);
            if b > a {
                fl.cwnd_area += fl.counted_cwnd * (b - a) as f64;
                fl.cwnd_area2 += fl.counted_cwnd * fl.counted_cwnd * (b - a) as f64;
            }
            fl.cwnd_t = now;
            self.sum_cwnd += w - fl.counted_cwnd;
            fl.counted_cwnd = w;
        }
        let flight = fl.sender.snd_nxt - fl.sender.snd_una;
        if flight != fl.counted_flight {
            self.sum_flight = self.sum_flight + flight as u64 - fl.counted_flight as u64;
            fl.counted_flight = flight;
        }
        let d = fl.sender.rto_deadline;
        if d != 0 && (fl.rto_ev == NONE || d < fl.rto_ev) {
            fl.rto_ev = d;
            self.cal.push(d, Ev::Rto(f as u32));
        }
        let w = fl.sender.wake_at;
        if w > now && (fl.pace_ev == NONE || w < fl.pace_ev) {
            fl.pace_ev = w;
            self.cal.push(w, Ev::Pace(f as u32));
        }
    }

    /// A flow's start event: a static flow starts its one transfer; a closed-loop user fetches
    /// its next file (once its previous connection has left the network).
    fn on_start(&mut self, f: usize) {
        if let Owner::User(u) = self.flows[f].owner {
            let fl = &mut self.flows[f];
            if !fl.finished {
                return;
            }
            if fl.in_net > 0 {
                fl.pending_start = true;
                return;
            }
            let (mss, pkt) = (fl.mss, fl.data_bytes);
            let src = &mut self.users[u as usize];
            let segs = src.size(mss);
            if self.now >= self.warm && self.now < self.end {
                src.window_arrivals += 1;
                src.window_bits += 8.0 * pkt as f64 * segs as f64;
            }
            self.begin_transfer(f, segs);
        }
        self.launch(f);
    }

    /// A new connection on flow f (a user's next fetch or a short-flow slot) for `segs`
    /// segments: fresh sender, receiver and congestion control state.
    fn begin_transfer(&mut self, f: usize, segs: u32) {
        let snapped = self.snapped;
        let c = &self.classes[self.flows[f].class as usize];
        let fl = &mut self.flows[f];
        fl.fold_connection(snapped);
        fl.sender = new_sender(c, segs);
        fl.receiver = Receiver::default();
        fl.finished = false;
        fl.tr_start = self.now;
        fl.tr_base = fl.counts();
        // a connection of its own for the control's random stream (poisson-paced)
        self.connections += 1;
        self.ccs[f] = c.reg.build(&c.tcp, self.seed, (1 << 48) | self.connections);
    }

    /// The transfer on flow f completed (every segment acknowledged): record it, then let its
    /// source go on (a user thinks, a short-flow slot is freed once drained).
    #[cold]
    #[inline(never)]
    fn on_transfer_done(&mut self, f: usize) {
        let now = self.now;
        let rec = self.transfer_record(f, true);
        self.transfers.push(rec);
        let fl = &mut self.flows[f];
        fl.finished = true;
        fl.transfers += 1;
        match fl.owner {
            Owner::Static => {}
            Owner::User(u) => {
                let think = self.users[u as usize].think();
                fl.tr_think = think;
                let t = now.saturating_add(ns(think));
                if t < self.end {
                    self.cal.push(t, Ev::Start(f as u32));
                }
            }
            Owner::Short(k) => {
                if fl.in_net == 0 {
                    self.short[k as usize].free.push(f as u32);
                } else {
                    fl.draining = true;
                }
            }
        }
    }

    /// The record of flow f's current transfer (`completed` false: still running at the end).
    fn transfer_record(&self, f: usize, completed: bool) -> TransferRecord {
        let fl = &self.flows[f];
        let s = &fl.sender;
        let c = fl.counts();
        let start_s = secs(fl.tr_start);
        let end_s = if completed { secs(self.now) } else { f64::NAN };
        let segments = s.total;
        let bytes = segments as u64 * fl.mss as u64;
        let fct = end_s - start_s;
        TransferRecord {
            class: fl.class,
            flow: f as u32,
            segments,
            size_bytes: bytes,
            start_s,
            end_s,
            fct_s: fct,
            goodput_bps: bytes as f64 * 8.0 / fct,
            acked_segments: s.snd_una,
            rtt_s: fl.rtt_s,
            mean_rtt_s: if s.rtt_samples > 0 {
                s.rtt_sum / s.rtt_samples as f64 / 1e9
            } else {
                f64::NAN
            },
            drops: c[0] - fl.tr_base[0],
            congestion_events: c[1] - fl.tr_base[1],
            ss_packets: c[2] - fl.tr_base[2],
            ca_packets: c[3] - fl.tr_base[3],
            retransmits: s.retransmits,
            timeouts: s.timeouts,
            think_s: fl.tr_think,
            completed,
        }
    }

    /// An open-loop short flow arrives: take a free slot (or make one) and start it.
    fn on_arrival(&mut self, k: usize) {
        let now = self.now;
        let class = self.short[k].plan.class;
        let c = &self.classes[class as usize];
        let mss = c.tcp.packet_bytes - c.tcp.header_bytes;
        let pkt = c.tcp.packet_bytes;
        let src = &mut self.short[k];
        let (segs, rtt) = src.draw(mss);
        if now >= self.warm && now < self.end {
            src.window_arrivals += 1;
            src.window_bits += 8.0 * pkt as f64 * segs as f64;
        }
        let extra = 0.5 * (rtt - src.plan.link_delay_s).max(0.0);
        let f = match src.free.pop() {
            Some(f) => f as usize,
            None => {
                let routes = [
                    add_route(&mut self.hops, &src.plan.path),
                    add_route(&mut self.hops, &src.plan.ack_path),
                ];
                let fl = Flow::new(
                    routes,
                    c,
                    class,
                    Owner::Short(k as u32),
                    0,
                    secs(now),
                    rtt,
                    extra,
                );
                self.flows.push(fl);
                self.ccs.push(
                    c.reg
                        .build(&c.tcp, self.seed, (1 << 47) | self.flows.len() as u64),
                );
                self.flows.len() - 1
            }
        };
        let fl = &mut self.flows[f];
        fl.rtt_s = rtt;
        fl.extra = ns(extra);
        fl.tr_think = f64::NAN;
        self.begin_transfer(f, segs);
        self.launch(f);
        if let Some(t) = self.short[k].next_after(now) {
            self.cal.push(t, Ev::Arrival(k as u32));
        }
    }

    /// UDP source k sends a packet and schedules the next.
    fn on_udp(&mut self, k: usize) {
        let now = self.now;
        let src = &mut self.udp[k];
        let p = Packet {
            flow: k as u32,
            seq: src.sent as u32,
            sacked: u32::MAX,
            bytes: src.bytes,
            hop: 0,
            kind: Kind::Udp,
        };
        src.sent += 1;
        if now >= self.warm && now < self.end {
            src.window_sent += 1;
            src.window_bits += 8.0 * src.bytes as f64;
        }
        let next = src.next_after(now);
        self.sent += 1;
        self.forward(p, now);
        if let Some(t) = next {
            self.cal.push(t, Ev::Udp(k as u32));
        }
    }

    /// Start the current transfer of flow f: send the initial window.
    fn launch(&mut self, f: usize) {
        let now = self.now;
        let mut out = std::mem::take(&mut self.out);
        let fl = &mut self.flows[f];
        if let Some(rx) = fl.sobas.as_mut() {
            if !fl.sender.started {
                rx.start(now);
                self.cal.push(now, Ev::Probe(f as u32));
            }
        }
        fl.sender.started = true;
        fl.cwnd_t = now;
        fl.sender.update_pacing(self.ccs[f].as_ref());
        fl.sender.fill(now, |s| out.push(s));
        self.emit(f, &mut out);
        self.out = out;
        self.after_sender(f, Report::default());
    }

    fn on_ack_at_sender(&mut self, f: usize, ack: u32, sacked: u32) {
        let now = self.now;
        let mut out = std::mem::take(&mut self.out);
        let fl = &mut self.flows[f];
        let rep = fl
            .sender
            .on_ack(now, ack, sacked, self.ccs[f].as_mut(), |s| out.push(s));
        self.emit(f, &mut out);
        self.out = out;
        self.after_sender(f, rep);
    }

    fn on_pace(&mut self, f: usize) {
        let now = self.now;
        let fl = &mut self.flows[f];
        if now >= fl.pace_ev {
            fl.pace_ev = NONE;
        }
        let w = fl.sender.wake_at;
        if w == 0 || w > now || fl.sender.done {
            // Stale (the sender moved on) or early: after_sender re-arms if needed.
            self.after_sender(f, Report::default());
            return;
        }
        let mut out = std::mem::take(&mut self.out);
        fl.sender.update_pacing(self.ccs[f].as_ref());
        fl.sender.fill(now, |s| out.push(s));
        self.emit(f, &mut out);
        self.out = out;
        self.after_sender(f, Report::default());
    }

    fn on_rto(&mut self, f: usize) {
        let now = self.now;
        let fl = &mut self.flows[f];
        if now >= fl.rto_ev {
            fl.rto_ev = NONE;
        }
        let d = fl.sender.rto_deadline;
        if d == 0 {
            return;
        }
        if d > now {
            if fl.rto_ev == NONE || d < fl.rto_ev {
                fl.rto_ev = d;
                self.cal.push(d, Ev::Rto(f as u32));
            }
            return;
        }
        let mut out = std::mem::take(&mut self.out);
        let rep = fl
            .sender
            .on_timeout(now, self.ccs[f].as_mut(), |s| out.push(s));
        self.emit(f, &mut out);
        self.out = out;
        self.after_sender(f, rep);
    }

    /// Run to the end if needed and assemble the results.
    pub fn finish(mut self) -> Results {
        self.run_until(self.end);
        let end = self.end;
        self.advance_bn(end);
        let (lo, hi) = (self.warm, self.end);
        let span_ns = (hi - lo) as f64;
        let span = span_ns / 1e9;
        // Close the per-flow cwnd integrals.
        for fl in self.flows.iter_mut() {
            let a = fl.cwnd_t.max(lo);
            if hi > a {
                fl.cwnd_area += fl.counted_cwnd * (hi - a) as f64;
                fl.cwnd_area2 += fl.counted_cwnd * fl.counted_cwnd * (hi - a) as f64;
            }
        }
        let mut in_flight = 0u64;
        self.cal.for_each(|_, e| {
            if let Ev::Arrive(_) = e {
                in_flight += 1;
            }
        });
        let conservation_ok = self.sent == self.delivered + self.dropped + in_flight;
        debug_assert!(conservation_ok, "packet conservation violated");

        let bn = &self.links[self.bn];
        // Transfers still running at the end.
        for i in 0..self.flows.len() {
            let f = &self.flows[i];
            if f.sender.started && !f.finished && f.sender.total != u32::MAX {
                let rec = self.transfer_record(i, false);
                self.transfers.push(rec);
            }
        }
        let transfers_completed = self
            .transfers
            .iter()
            .filter(|t| t.completed && ns(t.end_s) >= lo && ns(t.end_s) < hi)
            .count() as u64;
        let flows: Vec<FlowResult> = self
            .flows
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let v = f.window_values();
                let c = f.counts();
                let bytes = v[0] * f.mss as u64;
                let (rs, rn) = (f.rtt_sum + f.sender.rtt_sum, f.rtt_n + f.sender.rtt_samples);
                FlowResult {
                    id: i as u32,
                    rtt_s: f.rtt_s,
                    start_s: f.start_s,
                    goodput_bps: bytes as f64 * 8.0 / span,
                    bytes_acked: bytes,
                    retransmits: v[1],
                    timeouts: v[2],
                    mean_cwnd: f.cwnd_area / span_ns,
                    cwnd_std: (f.cwnd_area2 / span_ns - (f.cwnd_area / span_ns).powi(2))
                        .max(0.0)
                        .sqrt(),
                    class: f.class,
                    transfers: f.transfers,
                    drops: c[0] - f.snap_counts[0],
                    congestion_events: c[1] - f.snap_counts[1],
                    ss_packets: c[2] - f.snap_counts[2],
                    ca_packets: c[3] - f.snap_counts[3],
                    mean_rtt_s: if rn > 0 {
                        rs / rn as f64 / 1e9
                    } else {
                        f64::NAN
                    },
                }
            })
            .collect();
        // Mean goodput and fairness over the long-lived flows when there are any (users and
        // short-flow slots are not comparable flows), else over all flows.
        let long: Vec<bool> = self
            .flows
            .iter()
            .map(|f| self.classes[f.class as usize].kind == ClassKind::Long)
            .collect();
        let any_long = long.iter().any(|&x| x);
        let goodputs: Vec<f64> = flows
            .iter()
            .zip(long.iter())
            .filter(|(_, &l)| l || !any_long)
            .map(|(f, _)| f.goodput_bps)
            .collect();
        let total_gp: f64 = flows.iter().map(|f| f.goodput_bps).sum();
        let fast: u64 = self.flows.iter().map(|f| f.window_values()[3]).sum();
        let mut classes: Vec<ClassResult> = self
            .classes
            .iter()
            .map(|c| ClassResult {
                name: c.name.clone(),
                kind: c.kind.as_str().to_string(),
                cc: c.tcp.cc.clone(),
                flows: 0,
            })
            .collect();
        for f in self.flows.iter() {
            classes[f.class as usize].flows += 1;
        }
        let mut sources = Vec::new();
        for s in self.short.iter() {
            sources.push(SourceResult {
                name: self.classes[s.plan.class as usize].name.clone(),
                kind: "short".into(),
                target_bps: s.plan.offered_bps,
                offered_bps: s.window_bits / span,
                arrivals: s.window_arrivals,
                packets_sent: 0,
                packets_received: 0,
                packets_dropped: 0,
            });
        }
        for s in self.users.iter() {
            sources.push(SourceResult {
                name: self.classes[s.plan.class as usize].name.clone(),
                kind: "users".into(),
                target_bps: f64::NAN,
                offered_bps: s.window_bits / span,
                arrivals: s.window_arrivals,
                packets_sent: 0,
                packets_received: 0,
                packets_dropped: 0,
            });
        }
        for s in self.udp.iter() {
            sources.push(SourceResult {
                name: s.name.clone(),
                kind: "udp".into(),
                target_bps: s.rate_bps,
                offered_bps: s.window_bits / span,
                arrivals: s.window_sent,
                packets_sent: s.sent,
                packets_received: s.received,
                packets_dropped: s.dropped,
            });
        }
        let (cs_mean, cs_std) = mean_std(&self.cwnd_sum_samples);
        let (fs_mean, fs_std) = mean_std(&self.flight_sum_samples);
        let (bins, bin_width, fractions) = histogram(&self.cwnd_sum_samples, 60);
        let links = self
            .links
            .iter()
            .zip(self.link_names.iter())
            .map(|(l, n)| LinkResult {
                name: n.clone(),
                rate_bps: l.rate_bps,
                packets: l.packets,
                bytes: l.bytes,
                drops: l.drops,
                arrivals: l.arrivals,
                utilization: l.window_bits / (l.rate_bps * span),
                max_queue_packets: l.queue.max_packets,
                max_queue_bytes: l.queue.max_bytes,
            })
            .collect();
        let summary = Summary {
            utilization: bn.window_bits / (bn.rate_bps * span),
            loss_rate: if bn.arrivals == 0 {
                0.0
            } else {
                bn.drops as f64 / bn.arrivals as f64
            },
            drops: bn.drops,
            mean_queue_packets: self.qstats.mean(),
            queue_std_packets: self.qstats.std(),
            max_queue_packets: bn.queue.max_packets,
            bottleneck_packets: bn.packets,
            bottleneck_bytes: bn.bytes,
            goodput_bps_mean: if goodputs.is_empty() {
                0.0
            } else {
                goodputs.iter().sum::<f64>() / goodputs.len() as f64
            },
            goodput_bps_total: total_gp,
            jain_fairness: jain(&goodputs),
            transfers_completed,
            timeouts: flows.iter().map(|f| f.timeouts).sum(),
            fast_retransmits: fast,
            frac_time_queue_empty: self.qstats.frac_at(0),
            frac_time_queue_full: self.qlimit.map_or(0.0, |l| self.qstats.frac_at(l)),
            queue_delay_mean_s: self.delay.mean() / 1e9,
            queue_delay_p50_s: self.delay.quantile(0.5) / 1e9,
            queue_delay_p99_s: self.delay.quantile(0.99) / 1e9,
            queue_delay_bin_s: self.delay.bin as f64 / 1e9,
            cwnd_sum_mean: cs_mean,
            cwnd_sum_std: cs_std,
            flight_sum_mean: fs_mean,
            flight_sum_std: fs_std,
            sent: self.sent,
            delivered: self.delivered,
            dropped: self.dropped,
            in_flight,
            conservation_ok,
            events: self.events,
            engine_version: crate::ENGINE_VERSION.to_string(),
            seed: self.seed,
            measure_seconds: span,
        };
        let queue_histogram = if self.want_qhist {
            self.qstats
                .fractions(self.qlimit.map_or(1, |l| l as usize + 1))
        } else {
            vec![]
        };
        Results {
            summary,
            queue_histogram,
            cwnd_sum_histogram: CwndSumHistogram {
                bins,
                bin_width,
                fractions,
            },
            flows,
            links,
            traces: Traces {
                queue: if self.qtrace_iv.is_some() {
                    let mut q = self.qtrace;
                    q.rate_bps = self.links[self.bn].rate_bps;
                    Some(q)
                } else {
                    None
                },
                cwnd: self.ctrace,
                phases: if self.phase_iv.is_some() {
                    Some(self.phase_trace)
                } else {
                    None
                },
            },
            classes,
            sobas: self
                .flows
                .iter()
                .enumerate()
                .filter_map(|(i, f)| f.sobas.as_ref().map(|rx| rx.result(i as u32)))
                .collect(),
            transfers: self.transfers,
            sources,
        }
    }
}
