//! The simulation loop: events, packet forwarding along routes, endpoints, measurements.
//!
//! Event kinds: a packet arriving at a hop of its route (or at its endpoint), a flow's start,
//! and the per-flow retransmission and delayed-ACK timers. Links used by one flow in one
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
use crate::scenario::{expand, Scenario, ScenarioError};
use crate::tcp::cc::{self, CongestionControl};
use crate::tcp::receiver::{AckAction, Receiver};
use crate::tcp::sender::{Report, Sender};
use crate::time::{ns, secs, Ns};

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
}

struct Flow {
    path: Vec<usize>,
    ack_path: Vec<usize>,
    data_bytes: u16,
    ack_bytes: u16,
    mss: u32,
    delayed_ack: bool,
    delack_timeout: Ns,
    start_s: f64,
    rtt_s: f64,
    sender: Sender,
    receiver: Receiver,
    /// Time of the timer event responsible for the RTO / delayed-ACK deadline (NONE = none).
    rto_ev: Ns,
    delack_ev: Ns,
    pace_ev: Ns,
    /// The window counted in Σcwnd (0 before the start and after a finite flow completes).
    counted_cwnd: f64,
    /// The flight size counted in Σflight.
    counted_flight: u32,
    /// Time-weighted cwnd over the window.
    cwnd_area: f64,
    cwnd_area2: f64,
    cwnd_t: Ns,
    // Snapshots at the start of the measurement window.
    snap_una: u32,
    snap_retx: u64,
    snap_to: u64,
}

/// A running simulation. Build with [`Simulation::new`], advance with
/// [`Simulation::run_until`], collect with [`Simulation::finish`].
pub struct Simulation {
    seed: u64,
    links: Vec<Link>,
    link_names: Vec<String>,
    flows: Vec<Flow>,
    ccs: Vec<Box<dyn CongestionControl>>,
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
    snap_fast: u64,
    out: Vec<u32>,
}

#[inline]
fn window_cwnd(s: &Sender) -> f64 {
    // During fast recovery the classic implementation inflates cwnd by the duplicate ACKs;
    // the measured window leaves the inflation out (as Linux's cwnd would show it).
    let w = if s.in_recovery {
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
        let paths: Vec<(&[usize], &[usize])> = plan
            .flows
            .iter()
            .map(|f| (f.path.as_slice(), f.ack_path.as_slice()))
            .collect();
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
        let mut flows = Vec::with_capacity(plan.flows.len());
        let mut ccs = Vec::with_capacity(plan.flows.len());
        let mut max_pkt = 0u32;
        for f in plan.flows.iter() {
            let reg = cc::lookup(&f.tcp.cc).expect("validated");
            let mss = f.tcp.packet_bytes - f.tcp.header_bytes;
            let total = crate::traffic::bulk::segments(f.bytes, mss);
            max_pkt = max_pkt.max(f.tcp.packet_bytes);
            flows.push(Flow {
                path: f.path.clone(),
                ack_path: f.ack_path.clone(),
                data_bytes: f.tcp.packet_bytes as u16,
                ack_bytes: f.tcp.ack_bytes as u16,
                mss,
                delayed_ack: f.tcp.delayed_ack,
                delack_timeout: ns(f.tcp.delayed_ack_timeout_s),
                start_s: f.start_s,
                rtt_s: f.rtt_s,
                sender: Sender::new(&f.tcp, reg.recovery, total),
                receiver: Receiver::default(),
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
            });
            ccs.push(reg.build(&f.tcp, s.seed, ccs.len() as u64));
        }
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
        for (i, f) in plan.flows.iter().enumerate() {
            let start = ns(f.start_s);
            if start < end {
                cal.push(start, Ev::Start(i as u32));
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
            })
            .collect();
        let mut sim = Simulation {
            seed: s.seed,
            links,
            link_names: plan.links.iter().map(|l| l.name.clone()).collect(),
            flows,
            ccs,
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
            snap_fast: 0,
            out: Vec::with_capacity(64),
        };
        if sim.qtrace_iv.is_none() {
            sim.next_qtrace = NONE;
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
    }

    /// Take every sample due at or before `t` (state = all events before `t`).
    fn sample_upto(&mut self, t: Ns) {
        if !self.snapped && t >= self.warm {
            self.snapped = true;
            let mut fast = 0;
            for f in self.flows.iter_mut() {
                f.snap_una = f.sender.snd_una;
                f.snap_retx = f.sender.retransmits;
                f.snap_to = f.sender.timeouts;
                fast += f.sender.fast_retransmits;
            }
            self.snap_fast = fast;
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
        let l = &mut self.links[self.bn];
        while let Some(s) = l.queue.next_start() {
            if s > t {
                break;
            }
            self.qstats.integrate(l.queue.len(), s);
            l.queue.pop();
        }
        self.qstats.integrate(l.queue.len(), t);
    }

    /// Move `p` along its route from hop `p.hop`, where it arrives at time `t` (>= now).
    /// Private links are crossed inline; a shared link in the future or the endpoint needs
    /// an event.
    #[inline]
    fn forward(&mut self, mut p: Packet, mut t: Ns) {
        let f = p.flow as usize;
        loop {
            let li = {
                let fl = &self.flows[f];
                let path = if p.kind == Kind::Data {
                    &fl.path
                } else {
                    &fl.ack_path
                };
                if p.hop as usize == path.len() {
                    self.cal.push(t, Ev::Arrive(p));
                    return;
                }
                path[p.hop as usize]
            };
            if t > self.now && !self.links[li].private {
                self.cal.push(t, Ev::Arrive(p));
                return;
            }
            let window = (self.warm, self.end);
            if li == self.bn {
                self.advance_bn(t);
            } else {
                self.links[li].advance(t);
            }
            match self.links[li].offer(t, p.bytes as u32, window) {
                Offer::Dropped => {
                    self.dropped += 1;
                    return;
                }
                Offer::Accepted { arrive, wait, .. } => {
                    if li == self.bn && t >= self.warm && t < self.end {
                        self.delay.record(wait);
                    }
                    t = arrive;
                    p.hop += 1;
                }
            }
        }
    }

    fn on_arrive(&mut self, p: Packet) {
        let f = p.flow as usize;
        let fl = &self.flows[f];
        let len = if p.kind == Kind::Data {
            fl.path.len()
        } else {
            fl.ack_path.len()
        };
        if (p.hop as usize) < len {
            self.forward(p, self.now);
            return;
        }
        self.delivered += 1;
        match p.kind {
            Kind::Data => self.on_data_at_receiver(f, p.seq),
            Kind::Ack => self.on_ack_at_sender(f, p.seq, p.sacked),
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
        self.sent += 1;
        self.forward(p, self.now);
    }

    fn on_data_at_receiver(&mut self, f: usize, seq: u32) {
        let now = self.now;
        let fl = &mut self.flows[f];
        match fl.receiver.on_segment(seq, fl.delayed_ack) {
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
        let bytes = self.flows[f].data_bytes;
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

    fn on_start(&mut self, f: usize) {
        let now = self.now;
        let mut out = std::mem::take(&mut self.out);
        let fl = &mut self.flows[f];
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
        let flows: Vec<FlowResult> = self
            .flows
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let bytes = (f.sender.snd_una - f.snap_una) as u64 * f.mss as u64;
                FlowResult {
                    id: i as u32,
                    rtt_s: f.rtt_s,
                    start_s: f.start_s,
                    goodput_bps: bytes as f64 * 8.0 / span,
                    bytes_acked: bytes,
                    retransmits: f.sender.retransmits - f.snap_retx,
                    timeouts: f.sender.timeouts - f.snap_to,
                    mean_cwnd: f.cwnd_area / span_ns,
                    cwnd_std: (f.cwnd_area2 / span_ns - (f.cwnd_area / span_ns).powi(2))
                        .max(0.0)
                        .sqrt(),
                }
            })
            .collect();
        let goodputs: Vec<f64> = flows.iter().map(|f| f.goodput_bps).collect();
        let total_gp: f64 = goodputs.iter().sum();
        let fast: u64 = self
            .flows
            .iter()
            .map(|f| f.sender.fast_retransmits)
            .sum::<u64>()
            - self.snap_fast;
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
            goodput_bps_mean: if flows.is_empty() {
                0.0
            } else {
                total_gp / flows.len() as f64
            },
            goodput_bps_total: total_gp,
            jain_fairness: jain(&goodputs),
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
                    Some(self.qtrace)
                } else {
                    None
                },
                cwnd: self.ctrace,
            },
        }
    }
}
