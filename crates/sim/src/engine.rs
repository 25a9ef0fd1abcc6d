//! The engine's core: the calendar of events, the loop that hands each event to its owner, and
//! packet forwarding along routes. Everything else lives with the part it belongs to: TCP
//! endpoints and their timers in `endpoints.rs`, per-flow state in `flows.rs`, each traffic
//! source under `traffic/`, SOBAS in `sobas.rs`, sampling in `measure.rs`, the results in
//! `results.rs`.
//!
//! Event kinds: a packet arriving at a hop of its route (or at its endpoint), a flow's start
//! (of its transfer, or of its source's next connection), the per-flow retransmission,
//! delayed-ACK and pacing timers, a SOBAS probe, and a traffic source's own wake-up (handed to
//! the source through `traffic::wake`; the core does not know which sources exist). Links
//! used by one flow in one direction are traversed inline (see `net::route`), so in a dumbbell
//! a data packet costs three events: arrival at the bottleneck, arrival at the receiver, its
//! ACK's arrival at the sender.
//!
//! Timers are lazy: a flow keeps its deadline in its state and at most the events needed to
//! reach it; an event that finds the deadline moved later re-schedules itself.
use crate::calendar::{wheel_geometry, Calendar};
use crate::flows::{Class, Flow, FlowCold, Route};
use crate::measure::{advance_measured, Meter};
use crate::net::jitter::HostJitter;
use crate::net::link::{Link, Offer};
use crate::net::packet::{Kind, Packet, AT_ENDPOINT};
use crate::net::queue::DropTail;
use crate::net::route::private_links;
use crate::ports::Port;
use crate::results::TransferRecord;
use crate::scenario::{expand, Scenario, ScenarioError};
use crate::tcp::cc::CongestionControl;
use crate::time::{ns, Ns};
use crate::traffic::{self, Build, Datagram, SourceKind, Sources};

/// An event, addressed to its owner.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Ev {
    /// The packet reaches hop `pkt.hop` of its route, or its endpoint when `pkt.hop` is
    /// [`AT_ENDPOINT`].
    Arrive(Packet),
    /// Flow f starts its transfer (a user: its next fetch); `traffic/transfers.rs`.
    Start(u32),
    /// Flow f's retransmission timer; `endpoints.rs`.
    Rto(u32),
    /// Flow f's delayed-ACK timer; `endpoints.rs`.
    DelAck(u32),
    /// Pacing released flow f's next segment; `endpoints.rs`.
    Pace(u32),
    /// Source k of a registered kind wakes up; `traffic/` (the kind's file).
    Source(SourceKind, u32),
    /// Flow f's SOBAS receiver sends its next probe; `sobas.rs`.
    Probe(u32),
    /// Link l, whose queue is a discipline, finished a transmission; `ports.rs`.
    Dequeue(u32),
}

// Events stay small: a 16-byte packet and a tag (the calendar stores them by value).
const _: () = assert!(std::mem::size_of::<Ev>() <= 20);

#[cfg(test)]
mod layout_tests {
    /// A pending event costs one half cache line in the wheel (a packet in flight is a pending
    /// event, so this is most of the calendar's memory at 10^5 flows).
    #[test]
    fn a_pending_event_takes_32_bytes_in_the_wheel() {
        assert_eq!(crate::calendar::node_bytes::<super::Ev>(), 32);
    }

    /// A 100 Gb/s link gets room for a quarter second of its packets before the run (the pool
    /// then never doubles, which at 10^5 flows set the peak memory); a 1 Gb/s link does not.
    #[cfg(not(feature = "heap-calendar"))]
    #[test]
    fn a_fast_link_reserves_its_pending_events_up_front() {
        let fast = super::calendar_for(100e9, 1000);
        assert!(fast.node_capacity() >= (100e9 / 8000.0 * 0.25) as usize);
        assert_eq!(super::calendar_for(1e9, 1000).node_capacity(), 0);
    }
}

/// A running simulation. Build with [`Simulation::new`], advance with
/// [`Simulation::run_until`], collect with [`Simulation::finish`].
pub struct Simulation {
    pub(crate) seed: u64,
    pub(crate) links: Vec<Link>,
    /// The queue disciplines of the links that have one (`Link::port` indexes this).
    pub(crate) ports: Vec<Port>,
    pub(crate) link_names: Names,
    /// The route table: every flow's and UDP source's paths, as link indices.
    pub(crate) hops: Vec<u32>,
    /// The flows' hot state (what packets, ACKs and timers touch) and, index for index, their
    /// cold state (counters, transfer records, snapshots).
    pub(crate) flows: Vec<Flow>,
    pub(crate) cold: Vec<FlowCold>,
    pub(crate) ccs: Vec<Box<dyn CongestionControl>>,
    pub(crate) classes: Vec<Class>,
    /// The traffic sources (`traffic/mod.rs`) and the packet streams no TCP flow carries.
    pub(crate) src: Sources,
    pub(crate) dgrams: Vec<Datagram>,
    pub(crate) transfers: Vec<TransferRecord>,
    /// Connections started on reused flows (users' fetches, short flows), for their ids.
    pub(crate) connections: u64,
    /// Count each flow's packets in the network (only when flows are reused: users, short flows).
    pub(crate) track_net: bool,
    pub(crate) cal: Calendar<Ev>,
    /// Host jitter (`net/jitter.rs`), when a class has any.
    pub(crate) jitter: Option<Box<HostJitter>>,
    /// The bottleneck: the measured link.
    pub(crate) bn: usize,
    pub(crate) now: Ns,
    pub(crate) end: Ns,
    pub(crate) warm: Ns,
    // Conservation account (whole run).
    pub(crate) sent: u64,
    pub(crate) delivered: u64,
    pub(crate) dropped: u64,
    pub(crate) events: u64,
    pub(crate) meter: Meter,
    /// Scratch buffer for the segments a sender releases.
    pub(crate) out: Vec<u32>,
    /// Prefetch the state of coming events (`prefetch_event`): only with many flows, whose
    /// records do not stay in the cache; with few it would be instructions for nothing.
    prefetch: bool,
    /// The bottleneck's limit still to come from `Scenario::warm_buffer`: (when, packets).
    warm_change: Option<(Ns, u64)>,
    /// The largest packet of the run (the delay histogram's range, `max_wait_ns`).
    max_pkt: u32,
}

/// Flows from which the loop prefetches (their hot records, 576 bytes each, then fill several
/// MiB). Measured at 10^5 flows (interleaved, CPU time) with the one-level wheel: 0.80 M
/// bottleneck packets per CPU-second with the prefetches, 0.68 M without; cachegrind at 10^4
/// flows: 15 % more instructions, 10 % fewer last-level misses. With the two-level wheel the
/// difference is within this machine's noise (medians 2.22 M and 2.21 M over five runs).
const PREFETCH_FLOWS: usize = 8192;

impl Simulation {
    /// Expand and validate the scenario and set up the run (nothing is simulated yet).
    pub fn new(s: &Scenario) -> Result<Simulation, ScenarioError> {
        let plan = expand(s)?;
        let end = ns(s.duration_s);
        let warm = ns(s.warmup_s);
        let classes: Vec<Class> = plan.classes.iter().map(Class::from_plan).collect();
        let classes_jitter: Vec<f64> = classes.iter().map(|c| c.host_jitter_s).collect();
        let mut hops = Vec::new();
        let (flows, cold, ccs) = crate::flows::build(&plan.flows, &classes, &mut hops, s.seed);
        let mut dgrams = Vec::new();
        let src = Sources::build(&mut Build {
            plan: &plan,
            seed: s.seed,
            hops: &mut hops,
            dgrams: &mut dgrams,
        });
        // Who uses each link: every flow's two paths, and the paths each source declares.
        let mut paths: Vec<(&[usize], &[usize])> = plan
            .flows
            .iter()
            .map(|f| (f.path.as_slice(), f.ack_path.as_slice()))
            .collect();
        src.paths(&mut paths);
        let private = private_links(plan.links.len(), &paths, &[plan.bottleneck]);
        let max_pkt = classes
            .iter()
            .map(|c| c.packet_bytes())
            .max()
            .unwrap_or(0)
            .max(src.max_packet_bytes());
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
        let mut ports = Vec::new();
        for (i, ((l, p), spec)) in links.iter_mut().zip(private).zip(&plan.links).enumerate() {
            l.private = p;
            if let Some(b) = spec.burst_bytes {
                l.shape(b);
            }
            if let Some(d) = &spec.queue.discipline {
                let reg = crate::net::aqm::lookup(&d.name).expect("checked by the scenario");
                let (lp, lb) = spec.queue.effective_limits();
                let ctx = crate::net::aqm::Context {
                    limit: crate::net::aqm::Limit {
                        packets: lp.unwrap_or(u64::MAX),
                        bytes: lb.unwrap_or(u64::MAX),
                    },
                    rate_bps: spec.rate_bps,
                    mtu_bytes: max_pkt.max(1),
                    rng: crate::rng::Rng::stream(s.seed, crate::rng::queue_stream(i as u64)),
                };
                let disc = (reg.make)(&serde_json::Value::Object(d.params.clone()), ctx)
                    .map_err(|e| ScenarioError::new(format!("links[{i}].queue.discipline"), e))?;
                let wait = max_wait_ns(lp, lb, spec.rate_bps, max_pkt);
                l.attach_port(ports.len() as u32);
                // Its packets wait in the port and leave on Dequeue events: never inline.
                l.private = false;
                ports.push(Port::new(disc, reg.name, wait));
            }
        }
        let bn_link = &plan.links[plan.bottleneck];
        let bn_rate = bn_link.rate_bps;
        // A discipline's queue always has a hard limit (its default when none is given).
        let (bn_lp, bn_lb) = bn_link.queue.effective_limits();
        let max_wait = max_wait_ns(bn_lp, bn_lb, bn_rate, max_pkt);
        let mut warm_change = None;
        if let Some(w) = &s.warm_buffer {
            let q = &bn_link.queue;
            let Some(fin) = q.limit_packets.filter(|_| q.discipline.is_none() && q.limit_bytes.is_none()) else {
                return Err(ScenarioError::new(
                    "warm_buffer",
                    "needs a bottleneck that is a drop-tail FIFO limited in packets",
                ));
            };
            links[plan.bottleneck].queue.limit_packets = w.packets;
            warm_change = Some((ns(w.until_s), fin));
        }
        let mut sim = Simulation {
            seed: s.seed,
            links,
            ports,
            link_names: Names::new(plan.links.iter().map(|l| l.name.as_str())),
            hops,
            flows,
            cold,
            ccs,
            classes,
            track_net: src.reuses_flows(),
            src,
            dgrams,
            transfers: Vec::new(),
            connections: 0,
            cal: calendar_for(bn_rate, max_pkt),
            jitter: HostJitter::new(s.seed, classes_jitter.into_iter()).map(Box::new),
            bn: plan.bottleneck,
            now: 0,
            end,
            warm,
            sent: 0,
            delivered: 0,
            dropped: 0,
            events: 0,
            meter: Meter::new(&s.measure, warm, end, bn_lp, max_wait),
            out: Vec::with_capacity(64),
            prefetch: false,
            warm_change,
            max_pkt,
        };
        sim.prefetch = sim.flows.len() >= PREFETCH_FLOWS;
        // The first events: every flow's start (a user's first fetch), each source's first.
        sim.schedule_starts(&plan.flows);
        sim.src.schedule_first(&mut sim.cal);
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
        if let Some((at, packets)) = self.warm_change {
            if at < t_ns.min(self.end) {
                // Every event before `at` under the warm-up's limit, then the scenario's limit
                // (a run stopped at `at` itself has not changed it yet: `set_buffer` still can).
                self.run_span(at);
                self.warm_change = None;
                let q = &mut self.links[self.bn].queue;
                q.limit_packets = packets;
                // The peak restarts: packets queued beyond a smaller new limit drain (none is
                // dropped), and from here the queue holds at most `packets` after each arrival.
                q.max_packets = 0;
                q.max_bytes = 0;
            }
        }
        self.run_span(t_ns);
    }

    /// The bottleneck's limit after `Scenario::warm_buffer`'s end, changed on a run that has not
    /// reached it yet: the run goes on as the same scenario with `packets` as its buffer would (a
    /// search continues one warmed-up run at each size it tries). Errors without a warm buffer
    /// or once its end has passed.
    pub fn set_buffer(&mut self, packets: u64) -> Result<(), String> {
        let Some((at, _)) = self.warm_change else {
            return Err("set_buffer needs a scenario with warm_buffer whose end is still ahead".into());
        };
        if packets == 0 {
            return Err("set_buffer: the buffer must be at least 1 packet".into());
        }
        debug_assert!(self.now <= at && at <= self.warm);
        self.warm_change = Some((at, packets));
        // The measurements sized by the limit, as `new` sizes them (nothing measured yet: the
        // window starts at or after `at`).
        let rate = self.links[self.bn].rate_bps;
        let max_wait = max_wait_ns(Some(packets), None, rate, self.max_pkt);
        self.meter.resize_for_limit(Some(packets), self.warm, self.end, max_wait);
        Ok(())
    }

    fn run_span(&mut self, t_ns: u64) {
        let limit = t_ns.min(self.end);
        if limit <= self.now {
            return;
        }
        while let Some(t) = self.cal.peek_time() {
            if t >= limit {
                break;
            }
            if t >= self.meter.next_sample {
                self.sample_upto(t);
            }
            let (t, ev) = self.cal.pop().unwrap();
            if self.prefetch {
                // Start loading what the coming events touch (see `prefetch_event`): the next
                // event of this bucket, and one of the next bucket's.
                if let Some(e) = self.cal.peek_next().copied() {
                    self.prefetch_event(e);
                }
                if let Some(e) = self.cal.prefetch_ahead().copied() {
                    self.prefetch_event(e);
                }
            }
            debug_assert!(t >= self.now);
            self.now = t;
            self.events += 1;
            match ev {
                Ev::Arrive(p) => self.on_arrive(p),
                Ev::Start(f) => self.on_start(f as usize),
                Ev::Rto(f) => self.on_rto(f as usize),
                Ev::DelAck(f) => self.on_delack(f as usize),
                Ev::Pace(f) => self.on_pace(f as usize),
                Ev::Probe(f) => self.on_probe_timer(f as usize),
                Ev::Source(kind, k) => traffic::wake(self, kind, k as usize),
                Ev::Dequeue(l) => self.on_dequeue(l as usize),
            }
        }
        if limit >= self.meter.next_sample {
            // Samples strictly before `limit` see every event before them.
            self.sample_upto(limit - 1);
        }
        self.now = limit;
    }

    /// Start loading the per-flow state a coming event will touch, so that its cache misses
    /// overlap with the current event's work instead of stalling the loop (at 10^5 flows and
    /// more nearly every flow record is out of the cache). Only a hint: no effect on any result.
    #[inline]
    fn prefetch_event(&self, ev: Ev) {
        let (f, lines, cc): (u32, &[usize], bool) = match ev {
            // Data: the routes (line 0) and, at the receiver, the receiver (line 1).
            Ev::Arrive(p) if p.kind() == Kind::Data => (p.flow, &[0, 1], false),
            // An ACK at the sender: the first line, the timer events, the sender's three ACK
            // lines (see `Sender`), and the congestion control.
            Ev::Arrive(p) if p.kind() == Kind::Ack => (p.flow, &[0, 2, 3, 4, 5], true),
            // A timer event mostly finds its deadline moved on: the event times, the deadline.
            Ev::Rto(f) | Ev::Pace(f) => (f, &[2, 5], false),
            _ => return,
        };
        if let Some(fl) = self.flows.get(f as usize) {
            let base = fl as *const Flow as *const u8;
            for &l in lines {
                crate::calendar::prefetch(base.wrapping_add(64 * l));
            }
            if cc {
                // The control's own state (its box), not the pointer to it.
                let state: *const dyn CongestionControl = &*self.ccs[f as usize];
                crate::calendar::prefetch(state as *const u8);
            }
        }
    }

    /// The route of a packet, and the delay after its last link (none for a datagram). Inlined
    /// into `forward` always: every packet takes it, and as a call it cost 8 % of a FIFO run's
    /// instructions (bench/sim_jitter_cost.md).
    #[inline(always)]
    fn route_of(&self, p: &Packet) -> (Route, Ns) {
        let f = p.flow as usize;
        if p.tag.is(Kind::Udp) {
            (self.dgrams[f].route, 0)
        } else {
            let fl = &self.flows[f];
            (fl.routes[p.tag.dir()], fl.extra)
        }
    }

    /// Move `p` along its route from hop `p.hop`, where it arrives at time `t` (>= now).
    /// Private links are crossed inline; a shared link in the future or the endpoint needs
    /// an event.
    #[inline]
    pub(crate) fn forward(&mut self, mut p: Packet, mut t: Ns) {
        let (r, extra) = self.route_of(&p);
        let (now, bn, window) = (self.now, self.bn, (self.warm, self.end));
        let len = r.len();
        while (p.hop as u32) < len {
            let li = r.hop(p.hop as u32, &self.hops) as usize;
            let link = &mut self.links[li];
            if t > now && !link.private {
                self.cal.push(t, Ev::Arrive(p));
                return;
            }
            if link.queued() {
                // A queue discipline holds the packet; it leaves on a Dequeue event.
                self.port_arrive(li, p, t);
                return;
            }
            if li == bn {
                advance_measured(link, &mut self.meter.qstats, t);
            } else if link.busy_until > t || link.shaped() {
                // An idle FIFO link (busy_until <= t) has nothing that could wait: every entry
                // of its queue started before busy_until, and `offer` starts this packet at once
                // without looking at the queue. Its stale entries go at the next advance that
                // matters, so the queue is left untouched (one cache line less per hop).
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
                        self.meter.delay.record(wait);
                    }
                    t = arrive;
                    p.hop += 1;
                }
            }
        }
        let mut at = t + extra;
        if let Some(j) = self.jitter.as_mut() {
            if HostJitter::applies(&p) {
                let flows = &self.flows;
                at = j.deliver(&p, at, |g| flows[g].class);
            }
        }
        p.hop = AT_ENDPOINT;
        self.cal.push(at, Ev::Arrive(p));
    }

    /// A packet was dropped at time `t`: its owner counts it.
    #[cold]
    #[inline(never)]
    pub(crate) fn on_drop(&mut self, p: Packet, t: Ns) {
        let f = p.flow as usize;
        if p.kind() == Kind::Udp {
            self.src.datagram(self.dgrams[f], false);
            return;
        }
        if p.kind() == Kind::Data {
            self.cold[f].count_drop(&self.flows[f], t);
        }
        if self.track_net {
            self.net_exit(f);
        }
    }

    /// One of flow f's packets left the network (delivered or dropped).
    #[inline]
    pub(crate) fn net_exit(&mut self, f: usize) {
        let fl = &mut self.flows[f];
        fl.in_net -= 1;
        if fl.in_net == 0 && (fl.draining || fl.pending_start) {
            self.on_drained(f);
        }
    }

    /// A packet reaches hop `p.hop`: forward it, or hand it to its endpoint.
    fn on_arrive(&mut self, p: Packet) {
        if p.hop != AT_ENDPOINT {
            self.forward(p, self.now);
            return;
        }
        let f = p.flow as usize;
        self.delivered += 1;
        match p.kind() {
            Kind::Data => self.on_data_at_receiver(f, p.seq, p.tag),
            Kind::Ack => self.on_ack_at_sender(f, p.seq, p.sacked, p.tag),
            Kind::Udp => {
                self.src.datagram(self.dgrams[f], true);
                return;
            }
            Kind::Probe => self.on_probe_at_sender(f, p),
            Kind::Echo => self.on_echo_at_receiver(f, p),
        }
        if self.track_net {
            self.net_exit(f);
        }
    }
}

/// Longest possible wait at a link: a full queue plus one packet in service (bins up to 1 s
/// when unlimited; the delay histograms' last bin collects the rest).
fn max_wait_ns(
    limit_packets: Option<u64>,
    limit_bytes: Option<u64>,
    rate: f64,
    max_pkt: u32,
) -> Ns {
    let max_wait_bytes = match (limit_packets, limit_bytes) {
        (Some(p), _) => (p.min(1 << 40) + 1) as f64 * max_pkt as f64,
        (None, Some(b)) => b as f64 + max_pkt as f64,
        (None, None) => rate / 8.0,
    };
    ((max_wait_bytes * 8.0 / rate) * 1e9).ceil() as Ns
}

/// The calendar for a run: its geometry from the expected event rate, about three events per
/// bottleneck packet (see [`wheel_geometry`]).
fn calendar_for(bn_rate: f64, max_pkt: u32) -> Calendar<Ev> {
    let pkts_per_s = bn_rate / (8.0 * max_pkt.max(40) as f64);
    let (shift, log_n) = wheel_geometry(3.0 * pkts_per_s);
    #[allow(unused_mut)]
    let mut cal = Calendar::with_geometry(shift, log_n);
    // A fast link keeps many packets in flight, each a pending event: room for a quarter of a
    // second of them (the wheel's horizon) up front, when that is over 2^20 events (32 MiB,
    // above glibc's largest automatic threshold for mapping a block on its own).
    #[cfg(not(feature = "heap-calendar"))]
    {
        let want = (pkts_per_s * 0.25).min((1u64 << 26) as f64) as usize;
        if want > 1 << 20 {
            cal.reserve_nodes(want);
        }
    }
    cal
}

/// Names (of the links) in one buffer: a dumbbell has two access links per flow, and a `String`
/// each cost about 56 bytes of heap a link, a tenth of a flow's memory, for text read once, by
/// the results.
pub(crate) struct Names {
    text: String,
    ends: Vec<u32>,
}

impl Names {
    fn new<'a>(names: impl Iterator<Item = &'a str>) -> Names {
        let mut n = Names {
            text: String::new(),
            ends: Vec::new(),
        };
        for name in names {
            n.text.push_str(name);
            n.ends.push(n.text.len() as u32);
        }
        n.text.shrink_to_fit();
        n.ends.shrink_to_fit();
        n
    }

    /// Name `i`.
    pub(crate) fn get(&self, i: usize) -> &str {
        let from = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        &self.text[from..self.ends[i] as usize]
    }
}

/// Sizes in bytes of the engine's per-flow and per-event records, for the scale benchmark
/// (`examples/scale.rs`): what a flow, a link and a pending event cost.
#[doc(hidden)]
pub fn state_bytes() -> Vec<(&'static str, usize)> {
    vec![
        ("flow_hot", std::mem::size_of::<Flow>()),
        ("flow_cold", std::mem::size_of::<FlowCold>()),
        ("sender", std::mem::size_of::<crate::tcp::sender::Sender>()),
        ("link", std::mem::size_of::<Link>()),
        ("event", std::mem::size_of::<Ev>()),
        ("packet", std::mem::size_of::<Packet>()),
        ("calendar_node", crate::calendar::node_bytes::<Ev>()),
    ]
}
