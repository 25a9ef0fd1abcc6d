//! Measurements taken while the run goes: the bottleneck's queue statistics and delay histogram
//! (fed by packet forwarding), Σcwnd / Σflight kept up to date by the senders, and the sampled
//! series (Σcwnd samples, queue trace, per-flow cwnd traces, flows per phase), plus the
//! snapshot of every flow's counters at the start of the measurement window.
use crate::engine::Simulation;
use crate::flows::{window_cwnd, CA, NONE, SS};
use crate::metrics::{DelayHist, QueueStats};
use crate::net::link::Link;
use crate::results::{CwndTrace, PhaseTrace, QueueTrace};
use crate::scenario::Measure;
use crate::time::{ns, secs, Ns};

pub(crate) struct Meter {
    /// The sampled series of flows in slow start / congestion avoidance.
    pub(crate) phase_iv: Option<Ns>,
    pub(crate) next_phase: Ns,
    pub(crate) phase_trace: PhaseTrace,
    pub(crate) qstats: QueueStats,
    pub(crate) qlimit: Option<u64>,
    pub(crate) want_qhist: bool,
    pub(crate) delay: DelayHist,
    pub(crate) sum_cwnd: f64,
    pub(crate) sum_flight: u64,
    pub(crate) flight_sum_samples: Vec<f64>,
    /// The window's start snapshot is taken.
    pub(crate) snapped: bool,
    /// The earliest time a sample or the snapshot is due.
    pub(crate) next_sample: Ns,
    pub(crate) cwnd_sum_iv: Ns,
    pub(crate) next_cwnd_sum: Ns,
    pub(crate) cwnd_sum_samples: Vec<f64>,
    pub(crate) qtrace_iv: Option<Ns>,
    pub(crate) next_qtrace: Ns,
    pub(crate) qtrace: QueueTrace,
    pub(crate) ctrace_iv: Ns,
    pub(crate) next_ctrace: Ns,
    pub(crate) ctrace: Vec<CwndTrace>,
}

impl Meter {
    /// `max_wait`: the longest possible wait at the bottleneck (the delay histogram's range).
    pub(crate) fn new(m: &Measure, warm: Ns, end: Ns, qlimit: Option<u64>, max_wait: Ns) -> Meter {
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
        let phase_iv = m.phase_trace_interval_s.map(|x| ns(x).max(1));
        let qtrace_iv = m.queue_trace_interval_s.map(|x| ns(x).max(1));
        let mut meter = Meter {
            phase_iv,
            next_phase: if phase_iv.is_some() { warm } else { NONE },
            phase_trace: PhaseTrace::default(),
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
            qtrace_iv,
            next_qtrace: if qtrace_iv.is_some() { warm } else { NONE },
            qtrace: QueueTrace::default(),
            ctrace_iv: ns(m.cwnd_trace_interval_s).max(1),
            next_ctrace: if m.cwnd_trace_flows.is_empty() {
                NONE
            } else {
                warm
            },
            ctrace,
        };
        meter.next_sample = meter.compute_next_sample(warm);
        meter
    }

    /// Size what depends on the bottleneck's limit for another limit, as `new` would have
    /// (before the measurement window: nothing in it has been counted yet).
    pub(crate) fn resize_for_limit(&mut self, qlimit: Option<u64>, warm: Ns, end: Ns, max_wait: Ns) {
        let t = self.qstats.t;
        self.qstats = QueueStats::new(warm, end, qlimit);
        self.qstats.t = t;
        self.qlimit = qlimit;
        self.delay = DelayHist::new(max_wait.max(1000), 10_000);
    }

    pub(crate) fn compute_next_sample(&self, warm: Ns) -> Ns {
        let snap = if self.snapped { NONE } else { warm };
        snap.min(self.next_cwnd_sum)
            .min(self.next_qtrace)
            .min(self.next_ctrace)
            .min(self.next_phase)
    }
}

/// Bring a measured link's queue up to time `t`, integrating its occupancy in `q`. (Called
/// once, by `forward`, for every packet at the bottleneck: always inline there.)
#[inline(always)]
pub(crate) fn advance_measured(l: &mut Link, q: &mut QueueStats, t: Ns) {
    while let Some(s) = l.queue.next_start() {
        if s > t {
            break;
        }
        q.integrate(l.queue.len(), s);
        l.queue.pop();
    }
    q.integrate(l.queue.len(), t);
}

impl Simulation {
    /// Bring the bottleneck queue (and its time-weighted statistics) up to time `t`.
    #[inline]
    pub(crate) fn advance_bn(&mut self, t: Ns) {
        let bn = &mut self.links[self.bn];
        if bn.queued() {
            // A discipline's queue changes only at its own events, which integrate it.
            let n = self.ports[bn.port as usize].disc.packets();
            self.meter.qstats.integrate(n, t);
        } else {
            advance_measured(bn, &mut self.meter.qstats, t);
        }
    }

    /// Take every sample due at or before `t` (state = all events before `t`).
    pub(crate) fn sample_upto(&mut self, t: Ns) {
        if !self.meter.snapped && t >= self.warm {
            self.meter.snapped = true;
            for (c, f) in self.cold.iter_mut().zip(self.flows.iter()) {
                c.snapshot(f);
            }
        }
        let end = self.end;
        let m = &mut self.meter;
        if let Some(iv) = m.phase_iv {
            if m.next_phase <= t && m.next_phase < end {
                // Counted at the sample (a pass over the flows every interval) rather than kept
                // up to date on every ACK: long-lived runs pay nothing per packet for the series.
                let mut n = [0u64; 3];
                for fl in self.flows.iter() {
                    n[fl.phase() as usize] += 1;
                }
                while m.next_phase <= t && m.next_phase < end {
                    m.phase_trace.t_s.push(secs(m.next_phase));
                    m.phase_trace.slow_start.push(n[SS as usize]);
                    m.phase_trace.congestion_avoidance.push(n[CA as usize]);
                    m.next_phase += iv;
                }
            }
            if m.next_phase >= end {
                m.next_phase = NONE;
            }
        }
        while m.next_cwnd_sum <= t && m.next_cwnd_sum < end {
            m.cwnd_sum_samples.push(m.sum_cwnd.max(0.0));
            m.flight_sum_samples.push(m.sum_flight as f64);
            m.next_cwnd_sum += m.cwnd_sum_iv;
        }
        if let Some(iv) = m.qtrace_iv {
            while m.next_qtrace <= t && m.next_qtrace < end {
                let s = m.next_qtrace;
                let bn = &mut self.links[self.bn];
                let waiting = if bn.queued() {
                    let n = self.ports[bn.port as usize].disc.packets();
                    m.qstats.integrate(n, s);
                    n
                } else {
                    advance_measured(bn, &mut m.qstats, s);
                    bn.queue.len()
                };
                m.qtrace.t_s.push(secs(s));
                m.qtrace.packets.push(waiting);
                let bits = bn.serialized_bits(s, (self.warm, end));
                m.qtrace.bits.push(bits);
                m.next_qtrace += iv;
            }
            if m.next_qtrace >= end {
                m.next_qtrace = NONE;
            }
        }
        while m.next_ctrace <= t && m.next_ctrace < end {
            let s = m.next_ctrace;
            for tr in m.ctrace.iter_mut() {
                let fl = &self.flows[tr.flow as usize];
                tr.t_s.push(secs(s));
                tr.cwnd.push(if fl.sender.started {
                    window_cwnd(&fl.sender)
                } else {
                    0.0
                });
                // Same count as the run's flight sum: from the next segment to send, so after a
                // timeout (go-back-N) the segments to be resent no longer count.
                tr.flight.push(if fl.sender.started {
                    fl.sender.snd_nxt - fl.sender.snd_una
                } else {
                    0
                });
            }
            m.next_ctrace += m.ctrace_iv;
        }
        if m.next_ctrace >= end {
            m.next_ctrace = NONE;
        }
        if m.next_cwnd_sum >= end {
            m.next_cwnd_sum = NONE;
        }
        m.next_sample = m.compute_next_sample(self.warm);
    }
}

/// The bottleneck's counters over the measurement window up to now: enough to judge, while a run
/// goes, whether what it measures has settled (batch means over successive reads).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WindowSoFar {
    /// Simulated time of the read.
    pub now_ns: Ns,
    /// Seconds of the measurement window behind `now_ns` (0 during the warm-up).
    pub window_s: f64,
    /// Bits serialized on the bottleneck within the window up to now.
    pub bits: f64,
    pub rate_bps: f64,
    /// Packets offered to the bottleneck in the window, and those it dropped.
    pub arrivals: u64,
    pub drops: u64,
    /// ∫ queue length dt over the window so far, packet-seconds.
    pub queue_area_packet_s: f64,
}

impl Simulation {
    /// Read the bottleneck's window counters at the current time (the queue integral is brought
    /// up to now first; no result changes).
    pub fn window_so_far(&mut self) -> WindowSoFar {
        let now = self.now;
        self.advance_bn(now);
        let bn = &self.links[self.bn];
        WindowSoFar {
            now_ns: now,
            window_s: secs(now.saturating_sub(self.warm)),
            bits: if now > self.warm {
                bn.serialized_bits(now, (self.warm, self.end))
            } else {
                0.0
            },
            rate_bps: bn.rate_bps,
            arrivals: bn.arrivals,
            drops: bn.drops,
            queue_area_packet_s: self.meter.qstats.area_packet_s(),
        }
    }

    /// End the run at the current time instead of the scenario's end: `finish()` then reports
    /// the measurement window [warm-up, now). Bits that links had counted for serializations
    /// running past now are taken back, so utilizations are of the shortened window. (Departure
    /// counts, `packets`/`bytes`, keep the packets already in service or queued with a departure
    /// inside the old window: at most a queue's worth, stated in the results' docs.) Does nothing
    /// during the warm-up, where there is no window to close.
    pub fn end_now(&mut self) {
        let now = self.now;
        if now <= self.warm || now >= self.end {
            return;
        }
        self.advance_bn(now);
        let window = (self.warm, self.end);
        for l in self.links.iter_mut() {
            l.window_bits = l.serialized_bits(now, window);
        }
        self.meter.qstats.close_at(now);
        self.end = now;
    }
}
