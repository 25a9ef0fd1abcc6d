//! UDP sources (001 §V-A): packets of a fixed size along a path to a sink, no feedback, at a
//! mean rate `rate_bps` with constant, exponential or Pareto gaps, or Pareto on/off periods
//! with the peak rate inside on periods. Each packet is one event at the source.
use super::{Build, Datagram, Registered, Source};
use crate::engine::{Ev, Simulation};
use crate::flows::{add_route, Class};
use crate::net::packet::{Kind, Packet, Tag};
use crate::results::SourceResult;
use crate::rng::{source_stream, Rng, SRC_UDP};
use crate::scenario::{UdpPattern, UdpPlan};
use crate::time::{ns, Ns};

pub struct UdpSource {
    pub name: String,
    /// Its index in the engine's datagram table (the `flow` of its packets).
    dgram: u32,
    /// Its path (for the private-link analysis).
    path: Vec<usize>,
    pub bytes: u16,
    pub rate_bps: f64,
    pattern: UdpPattern,
    rng: Rng,
    /// Mean gap between packets at the mean rate (on/off: at the peak rate), seconds.
    gap_s: f64,
    /// On/off: end of the current on period.
    on_until: Ns,
    start: Ns,
    stop: Ns,
    pub sent: u64,
    pub received: u64,
    pub dropped: u64,
    pub window_sent: u64,
    pub window_bits: f64,
}

/// A Pareto draw with the given shape and mean.
fn pareto(rng: &mut Rng, shape: f64, mean: f64) -> f64 {
    let xm = mean * (shape - 1.0) / shape;
    xm / (1.0 - rng.next_f64()).powf(1.0 / shape)
}

impl UdpSource {
    pub(crate) fn new(plan: UdpPlan, seed: u64, idx: usize, dgram: u32) -> UdpSource {
        let bits = 8.0 * plan.packet_bytes as f64;
        let gap_s = match plan.pattern {
            UdpPattern::ParetoOnOff { on_s, off_s, .. } => {
                bits / (plan.rate_bps * (on_s + off_s) / on_s)
            }
            _ => bits / plan.rate_bps,
        };
        UdpSource {
            name: plan.name,
            dgram,
            path: plan.path,
            bytes: plan.packet_bytes as u16,
            rate_bps: plan.rate_bps,
            pattern: plan.pattern,
            rng: Rng::stream(seed, source_stream(SRC_UDP, idx as u64, 0)),
            gap_s,
            on_until: 0,
            start: ns(plan.start_s),
            stop: ns(plan.stop_s),
            sent: 0,
            received: 0,
            dropped: 0,
            window_sent: 0,
            window_bits: 0.0,
        }
    }

    /// Time of the first packet (None if the source never sends).
    pub fn first(&mut self) -> Option<Ns> {
        let t = self.start;
        if let UdpPattern::ParetoOnOff { shape, on_s, .. } = self.pattern {
            self.on_until = t + ns(pareto(&mut self.rng, shape, on_s));
        }
        (t < self.stop).then_some(t)
    }

    /// Time of the packet after one sent at `t`.
    pub fn next_after(&mut self, t: Ns) -> Option<Ns> {
        let gap = match self.pattern {
            UdpPattern::Cbr | UdpPattern::ParetoOnOff { .. } => self.gap_s,
            UdpPattern::Poisson => -self.gap_s * (1.0 - self.rng.next_f64()).ln(),
            UdpPattern::Pareto { shape } => pareto(&mut self.rng, shape, self.gap_s),
        };
        let mut next = t + ns(gap).max(1);
        if let UdpPattern::ParetoOnOff { shape, on_s, off_s } = self.pattern {
            // Skip over off periods until the next packet falls inside an on period.
            while next >= self.on_until {
                let off = ns(pareto(&mut self.rng, shape, off_s.max(1e-12)));
                let on_start = self.on_until + if off_s > 0.0 { off } else { 0 };
                self.on_until = on_start + ns(pareto(&mut self.rng, shape, on_s)).max(1);
                if next < on_start {
                    next = on_start;
                }
            }
        }
        (next < self.stop).then_some(next)
    }
}

impl Source for UdpSource {
    fn build(b: &mut Build) -> Vec<UdpSource> {
        let mut out = Vec::with_capacity(b.plan.udp.len());
        for (i, p) in b.plan.udp.iter().enumerate() {
            let d = b.dgrams.len() as u32;
            b.dgrams.push(Datagram {
                route: add_route(b.hops, &p.path),
                kind: UdpSource::KIND,
                k: i as u32,
            });
            out.push(UdpSource::new(p.clone(), b.seed, i, d));
        }
        out
    }

    fn paths<'a>(&'a self, out: &mut Vec<(&'a [usize], &'a [usize])>) {
        out.push((self.path.as_slice(), &[]));
    }

    fn max_packet_bytes(&self) -> u32 {
        self.bytes as u32
    }

    fn first_wake(&mut self) -> Option<Ns> {
        self.first()
    }

    fn wake(sim: &mut Simulation, k: usize) {
        sim.on_udp(k)
    }

    fn datagram(&mut self, delivered: bool) {
        if delivered {
            self.received += 1;
        } else {
            self.dropped += 1;
        }
    }

    fn result(&self, _classes: &[Class], span: f64) -> SourceResult {
        SourceResult {
            name: self.name.clone(),
            kind: "udp".into(),
            target_bps: self.rate_bps,
            offered_bps: self.window_bits / span,
            arrivals: self.window_sent,
            packets_sent: self.sent,
            packets_received: self.received,
            packets_dropped: self.dropped,
        }
    }
}

impl Simulation {
    /// UDP source k sends a packet and schedules the next.
    pub(crate) fn on_udp(&mut self, k: usize) {
        let now = self.now;
        let src = &mut self.src.udp[k];
        let p = Packet {
            flow: src.dgram,
            seq: src.sent as u32,
            sacked: u32::MAX,
            bytes: src.bytes,
            hop: 0,
            tag: Tag::new(Kind::Udp),
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
            self.cal.push(t, Ev::Source(UdpSource::KIND, k as u32));
        }
    }
}
