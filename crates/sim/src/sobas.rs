//! SOBAS at a flow's receiver (paper 001 §VII-A): the controller of crate `bufsize-sobas` fed
//! from simulated events, and the probes it needs.
//!
//! - Application bytes: every in-order advance of the receiver (segments × MSS).
//! - Packet trains: the first slow-start rounds. A round's segments leave the sender as a burst
//!   and reach the receiver as one train; the rounds are separated by idle time until the window
//!   fills the pipe. A train therefore closes at an idle gap longer than a quarter of the RTT
//!   (the running-average probe RTT; before the first echo, half the time from the flow's start
//!   to its first segment, about the same). Its bytes after the first packet over its dispersion
//!   (first to last arrival, whatever cross traffic was interleaved) are one rate sample; the
//!   controller takes the median of the first five. Cross traffic that enters the tight link
//!   while a train crosses it lengthens the dispersion, so the estimate is what Dovrolis et al.
//!   call the asymptotic dispersion rate, between the available bandwidth and the capacity (001's
//!   footnote 7: "a rough estimate of a path's bandwidth"); it is the capacity only on an idle
//!   path. (An earlier version cut a train at any gap above four times the smallest one seen, so
//!   cross traffic split the rounds and only their uninterleaved pieces, spaced at the capacity,
//!   were measured: C̃ was the capacity whatever the load.)
//! - Probes: every `probe_interval_s` the receiver sends a probe of `probe_bytes` along the ACK
//!   path; the sender echoes it along the data path with its own echo number. The echo's RTT feeds
//!   the running-average RTT; a gap in the echo numbers at the receiver is an echo lost in the
//!   forward (data) direction. A probe lost on the way to the sender is never echoed and never
//!   counted as a forward loss (as in the paper).
//! - The limit (bytes) becomes the flow's advertised window (whole segments, at least one) at the
//!   moment the controller changes it: the half RTT an advertised window takes to reach the sender
//!   is left out, negligible at the 1-s time scale of the controller.
use crate::engine::{Ev, Simulation};
use crate::net::packet::{Kind, Packet, Tag};
use crate::results::{SobasDecision, SobasResult};
use crate::scenario::SobasSpec;
use crate::time::{ns, secs, Ns};
use bufsize_sobas::{Config, Sobas};

/// Probe send times are remembered for this many probes (about 80 s at 20 ms).
const RING: usize = 4096;

pub struct SobasRx {
    ctl: Sobas,
    pub probe_iv: Ns,
    pub probe_bytes: u16,
    mss: u32,
    next_probe: u32,
    sent_at: Vec<Ns>,
    /// Next echo number the receiver expects.
    echo_next: u32,
    /// Echo numbers given by the sender.
    pub echoes_sent: u32,
    train_start: Ns,
    train_last: Ns,
    train_n: u32,
    trains: u32,
    /// When the flow started and when its first segment arrived (the idle-gap threshold before
    /// any RTT sample).
    started: Ns,
    first_arrival: Option<Ns>,
    // receive throughput per second (the figure's series), and the limit over time
    sec_start: Ns,
    sec_bytes: u64,
    rate_t: Vec<f64>,
    rate_bps: Vec<f64>,
    limit_t: Vec<f64>,
    limit_bytes: Vec<u64>,
    probes_sent: u64,
    echoes_received: u64,
    forward_losses: u64,
}

impl SobasRx {
    pub fn new(spec: &SobasSpec, mss: u32) -> SobasRx {
        let mut cfg = Config::new(mss, spec.max_buffer_bytes);
        if let Some(t) = spec.slope_tolerance {
            cfg.slope_tolerance = t;
        }
        cfg.readjust = spec.readjust;
        let ctl = Sobas::new(cfg).expect("checked with the scenario");
        let limit = ctl.limit();
        SobasRx {
            ctl,
            probe_iv: ns(spec.probe_interval_s).max(1),
            probe_bytes: spec.probe_bytes as u16,
            mss,
            next_probe: 0,
            sent_at: vec![0; RING],
            echo_next: 0,
            echoes_sent: 0,
            train_start: 0,
            train_last: 0,
            train_n: 0,
            trains: 0,
            started: 0,
            first_arrival: None,
            sec_start: 0,
            sec_bytes: 0,
            rate_t: Vec::new(),
            rate_bps: Vec::new(),
            limit_t: vec![0.0],
            limit_bytes: vec![limit],
            probes_sent: 0,
            echoes_received: 0,
            forward_losses: 0,
        }
    }

    /// The limit in whole segments (at least one).
    pub fn window(&self) -> f64 {
        (self.ctl.limit() / self.mss as u64).max(1) as f64
    }

    fn changed(&mut self, now: Ns, new: Option<u64>) -> bool {
        if let Some(l) = new {
            self.limit_t.push(secs(now));
            self.limit_bytes.push(l);
            true
        } else {
            false
        }
    }

    fn close_seconds(&mut self, now: Ns) {
        while now >= self.sec_start + 1_000_000_000 {
            self.rate_t.push(secs(self.sec_start));
            self.rate_bps.push(self.sec_bytes as f64 * 8.0);
            self.sec_start += 1_000_000_000;
            self.sec_bytes = 0;
        }
    }

    /// The flow starts at `now`.
    pub fn start(&mut self, now: Ns) {
        self.sec_start = now;
        self.started = now;
    }

    /// A gap between two segments longer than this ends a train (the idle time between two
    /// slow-start rounds): a quarter of the running-average RTT, or before the first RTT sample
    /// half the one-way time of the first segment.
    fn idle_gap(&self) -> Ns {
        match self.ctl.srtt() {
            Some(t) => ns(t / 4.0).max(1),
            None => (self
                .first_arrival
                .unwrap_or(self.started)
                .saturating_sub(self.started)
                / 2)
            .max(1),
        }
    }

    /// The probe timer fired: the number of the probe to send, and whether the limit changed.
    pub fn probe(&mut self, now: Ns) -> (u32, bool) {
        let id = self.next_probe;
        self.next_probe = self.next_probe.wrapping_add(1);
        self.sent_at[id as usize % RING] = now;
        self.probes_sent += 1;
        self.close_seconds(now);
        let c = self.ctl.tick(now);
        (id, self.changed(now, c))
    }

    /// `segments` more arrived in order at `now` (and one segment arrived, for the trains).
    pub fn data(&mut self, now: Ns, segments: u32, pkt_bytes: u32) -> bool {
        let mut any = false;
        if self.first_arrival.is_none() {
            self.first_arrival = Some(now);
        }
        if self.trains < self.ctl.config().trains as u32 {
            if self.train_n == 0 {
                self.train_start = now;
                self.train_n = 1;
            } else if now - self.train_last > self.idle_gap() {
                // the round ended: one rate sample (a lone segment gives none)
                let n = self.train_n;
                let disp = self.train_last - self.train_start;
                self.train_start = now;
                self.train_n = 1;
                if n >= 2 && disp > 0 {
                    self.trains += 1;
                    let c = self
                        .ctl
                        .on_train(now, (n - 1) as u64 * pkt_bytes as u64, disp);
                    any = self.changed(now, c);
                }
            } else {
                self.train_n += 1;
            }
            self.train_last = now;
        }
        if segments == 0 {
            return any;
        }
        self.close_seconds(now);
        let bytes = segments as u64 * self.mss as u64;
        self.sec_bytes += bytes;
        let c = self.ctl.on_bytes(now, bytes);
        self.changed(now, c) || any
    }

    /// The echo `echo` of probe `probe` reached the receiver at `now`.
    pub fn echo(&mut self, now: Ns, probe: u32, echo: u32) -> bool {
        let mut any = false;
        while self.echo_next != echo && echo.wrapping_sub(self.echo_next) < (1 << 31) {
            self.forward_losses += 1;
            let c = self.ctl.on_probe(now, true, None);
            any |= self.changed(now, c);
            self.echo_next = self.echo_next.wrapping_add(1);
        }
        self.echo_next = echo.wrapping_add(1);
        self.echoes_received += 1;
        let age = self.next_probe.wrapping_sub(probe) as usize;
        let rtt = if age <= RING {
            Some(secs(now - self.sent_at[probe as usize % RING]))
        } else {
            None
        };
        let c = self.ctl.on_probe(now, false, rtt);
        any | self.changed(now, c)
    }

    pub fn result(&self, flow: u32) -> SobasResult {
        SobasResult {
            flow,
            phase: self.ctl.phase().name().to_string(),
            limit_bytes: self.ctl.limit(),
            initial_limit_bytes: self.ctl.initial_limit(),
            capacity_estimate_bps: self.ctl.capacity_estimate().map(|c| c * 8.0),
            rtt_s: self.ctl.srtt(),
            decisions: self
                .ctl
                .decisions()
                .iter()
                .map(|d| SobasDecision {
                    t_s: secs(d.t_ns),
                    rate_bps: d.rate * 8.0,
                    rtt_s: d.rtt,
                    congested: d.congested,
                    probes_lost: d.probes_lost as u64,
                    limit_bytes: d.limit,
                })
                .collect(),
            rate_t_s: self.rate_t.clone(),
            rate_bps: self.rate_bps.clone(),
            limit_t_s: self.limit_t.clone(),
            limit_series_bytes: self.limit_bytes.clone(),
            probes_sent: self.probes_sent,
            echoes_received: self.echoes_received,
            forward_losses: self.forward_losses,
        }
    }
}

// The engine's side: probes out on their timer, echoes back from the sender, the limit applied
// as the flow's advertised window.
impl Simulation {
    /// The SOBAS limit changed: it becomes the flow's advertised window.
    pub(crate) fn apply_sobas(&mut self, f: usize) {
        let fl = &mut self.flows[f];
        if let Some(rx) = &fl.sobas {
            fl.sender.max_window = rx.window().min(self.cold[f].cap_window);
        }
    }

    /// Flow f's SOBAS receiver sends a probe along the ACK path; the next one follows.
    pub(crate) fn on_probe_timer(&mut self, f: usize) {
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
            tag: Tag::new(Kind::Probe),
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

    /// A probe reached flow f's sender: echo it along the data path.
    pub(crate) fn on_probe_at_sender(&mut self, f: usize, p: Packet) {
        let fl = &mut self.flows[f];
        let rx = fl.sobas.as_mut().expect("probes come from SOBAS receivers");
        let echo = Packet {
            flow: f as u32,
            seq: p.seq,
            sacked: rx.echoes_sent,
            bytes: rx.probe_bytes,
            hop: 0,
            tag: Tag::new(Kind::Echo),
        };
        rx.echoes_sent = rx.echoes_sent.wrapping_add(1);
        fl.in_net += self.track_net as u32;
        self.sent += 1;
        self.forward(echo, self.now);
    }

    /// An echo reached flow f's receiver: an RTT sample (and any forward loss) for SOBAS.
    pub(crate) fn on_echo_at_receiver(&mut self, f: usize, p: Packet) {
        let now = self.now;
        let rx = self.flows[f]
            .sobas
            .as_mut()
            .expect("echoes go to SOBAS receivers");
        if rx.echo(now, p.seq, p.sacked) {
            self.apply_sobas(f);
        }
    }
}
