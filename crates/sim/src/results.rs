//! What a run returns (serde-Serialize; the Python face reads it as JSON).
//!
//! Everything is measured at the bottleneck link over the window `[warmup_s, duration_s)`
//! unless the field says otherwise. Queue sizes count packets waiting for the link (not the
//! one in transmission).
use crate::engine::{Ev, Simulation};
use crate::metrics::{histogram, jain, mean_std};
use crate::scenario::ClassKind;
use crate::time::ns;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Results {
    pub summary: Summary,
    /// Fraction of the measurement time the bottleneck queue held k packets, k = 0..=max
    /// (max = the packet limit, or the largest occupancy seen when the limit is in bytes or
    /// absent). Empty when `measure.queue_histogram` is false.
    pub queue_histogram: Vec<f64>,
    pub cwnd_sum_histogram: CwndSumHistogram,
    pub flows: Vec<FlowResult>,
    pub links: Vec<LinkResult>,
    pub traces: Traces,
    /// The flow classes (`FlowResult::class` and `TransferRecord::class` index this list).
    pub classes: Vec<ClassResult>,
    /// Every finite transfer (explicit finite flows, users' fetches, short flows): completed
    /// ones in completion order, then those still running at the end (`completed` false).
    pub transfers: Vec<TransferRecord>,
    /// Per traffic source (short flows, users, UDP): what it offered in the window.
    pub sources: Vec<SourceResult>,
    /// Flows with SOBAS at their receiver.
    pub sobas: Vec<SobasResult>,
}

/// SOBAS at one flow's receiver: where the controller ended, its decisions and its series.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct SobasResult {
    pub flow: u32,
    /// "start", "initial-limit", "linear-increase", "adjusted" or "congested".
    pub phase: String,
    /// The receive-buffer limit at the end, bytes.
    pub limit_bytes: u64,
    pub initial_limit_bytes: Option<u64>,
    /// Tight-link capacity estimated from the packet trains, bit/s.
    pub capacity_estimate_bps: Option<f64>,
    /// Running-average probe RTT at the end, s.
    pub rtt_s: Option<f64>,
    pub decisions: Vec<SobasDecision>,
    /// Receive throughput per second of the run (start of each second, bit/s).
    pub rate_t_s: Vec<f64>,
    pub rate_bps: Vec<f64>,
    /// The limit over time: the value from each time on.
    pub limit_t_s: Vec<f64>,
    pub limit_series_bytes: Vec<u64>,
    pub probes_sent: u64,
    pub echoes_received: u64,
    /// Echoes missing in the forward (data) direction.
    pub forward_losses: u64,
}

/// One rate-saturation decision of SOBAS.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct SobasDecision {
    pub t_s: f64,
    /// Receive throughput and RTT at saturation (R_rs, T_rs).
    pub rate_bps: f64,
    pub rtt_s: f64,
    /// A forward-path probe was lost among the last 1000: limit left at the maximum.
    pub congested: bool,
    pub probes_lost: u64,
    pub limit_bytes: u64,
}

/// A class of flows: its label, what kind of traffic it is, and its congestion control.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ClassResult {
    pub name: String,
    /// "long", "finite", "users" or "short".
    pub kind: String,
    pub cc: String,
    /// Flows (users, short-flow slots) of the class.
    pub flows: u64,
}

/// One finite TCP transfer. Counters cover the whole transfer (not only the window).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct TransferRecord {
    pub class: u32,
    /// The flow (user or slot) that carried it.
    pub flow: u32,
    pub segments: u32,
    /// Payload bytes (segments x MSS).
    pub size_bytes: u64,
    pub start_s: f64,
    /// Completion: the time the last segment was acknowledged (NaN, as null, if still running).
    pub end_s: f64,
    /// The time the receiver first held every segment in order (NaN, as null, if not yet): the end
    /// of a transfer as 004 §5.1.2 counts it, "until the last packet reaches the destination".
    pub delivered_s: f64,
    pub fct_s: f64,
    /// size_bytes x 8 / fct_s.
    pub goodput_bps: f64,
    pub acked_segments: u32,
    /// Two-way propagation delay, and the mean of the RTT samples the sender took.
    pub rtt_s: f64,
    pub mean_rtt_s: f64,
    /// Data packets of the transfer dropped anywhere on its path.
    pub drops: u64,
    /// Losses at least two RTTs apart (000 §IV).
    pub congestion_events: u64,
    /// Packets sent while cwnd < ssthresh / otherwise (retransmissions included).
    pub ss_packets: u64,
    pub ca_packets: u64,
    pub retransmits: u64,
    pub timeouts: u64,
    /// The think time before this fetch (users; NaN otherwise).
    pub think_s: f64,
    pub completed: bool,
}

/// What one traffic source offered over the window.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct SourceResult {
    pub name: String,
    /// "short", "users" or "udp".
    pub kind: String,
    /// The rate the source was asked to offer, wire bit/s (short flows and UDP; NaN for users).
    pub target_bps: f64,
    /// Wire bits of the transfers (every segment once) or datagrams started in the window, per
    /// second of window.
    pub offered_bps: f64,
    /// Transfers (datagrams for UDP) started in the window.
    pub arrivals: u64,
    /// UDP only (whole run): datagrams sent, received by the sink, dropped.
    pub packets_sent: u64,
    pub packets_received: u64,
    pub packets_dropped: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Summary {
    /// Bottleneck bytes transmitted in the window / (capacity x window).
    pub utilization: f64,
    /// Bottleneck drops / bottleneck arrivals in the window.
    pub loss_rate: f64,
    /// Bottleneck drops in the window (= aqm_drops + overflow_drops).
    pub drops: u64,
    /// The bottleneck's queue discipline: "fifo" (drop-tail) or a `net::aqm` name.
    #[serde(default)]
    pub queue_discipline: String,
    /// Bottleneck drops in the window decided by the discipline (RED/PIE early drops, CoDel's
    /// drops at dequeue), and those of a full queue (the hard limit; all of a FIFO's drops).
    #[serde(default)]
    pub aqm_drops: u64,
    #[serde(default)]
    pub overflow_drops: u64,
    /// Bottleneck packets marked CE in the window instead of dropped (ECN; not counted in
    /// `drops`), and marks / arrivals.
    #[serde(default)]
    pub marks: u64,
    #[serde(default)]
    pub mark_rate: f64,
    /// Time-weighted mean of the bottleneck queue, packets.
    pub mean_queue_packets: f64,
    pub queue_std_packets: f64,
    /// Largest queue seen over the whole run (packets); never above the limit.
    pub max_queue_packets: u64,
    /// Packets / bytes the bottleneck transmitted in the window (counted when transmission
    /// completes).
    pub bottleneck_packets: u64,
    pub bottleneck_bytes: u64,
    /// Mean and total per-flow goodput (payload bytes newly acknowledged in the window).
    pub goodput_bps_mean: f64,
    pub goodput_bps_total: f64,
    /// Jain's fairness index of the per-flow goodputs.
    pub jain_fairness: f64,
    /// Finite transfers that completed in the window.
    pub transfers_completed: u64,
    /// Retransmission timeouts and fast retransmits in the window, all flows.
    pub timeouts: u64,
    pub fast_retransmits: u64,
    /// Fraction of the window the queue was empty / at its packet limit (always 0 when the
    /// limit is in bytes or absent).
    pub frac_time_queue_empty: f64,
    pub frac_time_queue_full: f64,
    /// Waiting time of the packets the bottleneck accepted in the window (enqueue to start of
    /// transmission): the sojourn time, for every discipline (with a discipline, of the packets
    /// that started transmission in the window; packets it dropped are not counted).
    /// Percentiles come from a fixed-bin histogram (see queue_delay_bin_s).
    pub queue_delay_mean_s: f64,
    pub queue_delay_p50_s: f64,
    pub queue_delay_p99_s: f64,
    pub queue_delay_bin_s: f64,
    /// Σcwnd over all flows (segments), sampled every measure.cwnd_sum_interval_s in the window.
    /// A flow's cwnd counts from its start; during fast recovery the inflated value is left
    /// out (min(cwnd, ssthresh)); a flow waiting for its RTO keeps its last cwnd until the
    /// timer fires.
    pub cwnd_sum_mean: f64,
    pub cwnd_sum_std: f64,
    /// Σ over flows of snd_nxt - snd_una (segments sent and not yet acknowledged; after a
    /// timeout only those re-sent since, as go-back-N restarts from snd_una), sampled
    /// like Σcwnd. Paper 004 eq. (4) equates it with 2TpC + Q + (dropped, not yet detected).
    pub flight_sum_mean: f64,
    pub flight_sum_std: f64,
    /// Packet conservation over the whole run, data + ACK packets:
    /// sent == delivered + dropped + in_flight.
    pub sent: u64,
    pub delivered: u64,
    pub dropped: u64,
    pub in_flight: u64,
    pub conservation_ok: bool,
    /// Events processed over the whole run.
    pub events: u64,
    pub engine_version: String,
    pub seed: u64,
    pub measure_seconds: f64,
}

/// Histogram of the sampled Σcwnd: `bins[k]` is the lower edge of bin k, each `bin_width`
/// segments wide; `fractions[k]` the fraction of samples in it.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct CwndSumHistogram {
    pub bins: Vec<f64>,
    pub bin_width: f64,
    pub fractions: Vec<f64>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct FlowResult {
    pub id: u32,
    /// Two-way propagation delay of the flow's paths.
    pub rtt_s: f64,
    pub start_s: f64,
    /// Payload bytes newly acknowledged in the window / window length, bit/s.
    pub goodput_bps: f64,
    /// Payload bytes newly acknowledged in the window.
    pub bytes_acked: u64,
    /// Counted in the window.
    pub retransmits: u64,
    pub timeouts: u64,
    /// Time-weighted mean and standard deviation of cwnd (segments) over the window (the
    /// window as counted in Σcwnd: without fast-recovery inflation, 0 once a finite flow ends).
    pub mean_cwnd: f64,
    pub cwnd_std: f64,
    /// Index into `Results::classes`.
    pub class: u32,
    /// Transfers completed over the whole run (users and short-flow slots carry many).
    pub transfers: u64,
    /// In the window: data packets dropped, congestion events (losses at least two RTTs apart,
    /// 000 §IV), packets sent in slow start and in congestion avoidance.
    pub drops: u64,
    pub congestion_events: u64,
    pub ss_packets: u64,
    pub ca_packets: u64,
    /// Mean of the RTT samples taken over the whole run (NaN, as null, if none).
    pub mean_rtt_s: f64,
}

/// Per-link counters over the window (every link of the scenario).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct LinkResult {
    pub name: String,
    pub rate_bps: f64,
    pub packets: u64,
    pub bytes: u64,
    pub drops: u64,
    pub arrivals: u64,
    pub utilization: f64,
    /// Largest number of waiting packets over the whole run.
    pub max_queue_packets: u64,
    /// Largest number of waiting bytes over the whole run.
    pub max_queue_bytes: u64,
    /// "fifo" (drop-tail) or the discipline's name.
    #[serde(default)]
    pub discipline: String,
    /// Drops in the window by cause: the discipline's decision / the hard limit (a FIFO's).
    #[serde(default)]
    pub aqm_drops: u64,
    #[serde(default)]
    pub overflow_drops: u64,
    /// Packets marked CE in the window instead of dropped (ECN); 0 on a FIFO.
    #[serde(default)]
    pub marks: u64,
    /// Sojourn time (enqueue to start of transmission) of the packets sent in the window, mean
    /// and 99th percentile, seconds: links with a discipline, and the bottleneck (null for the
    /// other drop-tail links, whose waits are not recorded).
    #[serde(default)]
    pub sojourn_mean_s: Option<f64>,
    #[serde(default)]
    pub sojourn_p99_s: Option<f64>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Traces {
    /// Bottleneck queue samples (null unless measure.queue_trace_interval_s is set).
    pub queue: Option<QueueTrace>,
    pub cwnd: Vec<CwndTrace>,
    /// Flows in slow start / congestion avoidance over time (null if not asked for).
    pub phases: Option<PhaseTrace>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct PhaseTrace {
    pub t_s: Vec<f64>,
    pub slow_start: Vec<u64>,
    pub congestion_avoidance: Vec<u64>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct QueueTrace {
    pub t_s: Vec<f64>,
    pub packets: Vec<u64>,
    /// Bits serialized on the bottleneck from the start of the measurement window up to each
    /// sample time (differences over an interval / (rate x interval) = its utilization).
    pub bits: Vec<f64>,
    /// The bottleneck's rate, bits per second.
    pub rate_bps: f64,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct CwndTrace {
    pub flow: u32,
    pub t_s: Vec<f64>,
    pub cwnd: Vec<f64>,
    /// Segments outstanding at each sample, snd_nxt - snd_una (the quantity whose sum over flows
    /// the run summarizes as flight_sum): lost but undetected segments count; after a timeout
    /// the sender restarts from snd_una, so the segments it will resend no longer do. Unlike
    /// cwnd it does not count fast recovery's inflation or a window that is waiting out a timeout.
    #[serde(default)]
    pub flight: Vec<u32>,
}

impl Results {
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("results serialize")
    }
}

// Assembling the results from what each part recorded: the links, the flows' counters, the
// sources, the meter's samples and traces.
impl Simulation {
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
        // Packets waiting in a discipline's queue are in flight too (no event holds them).
        in_flight += self.packets_in_ports();
        let conservation_ok = self.sent == self.delivered + self.dropped + in_flight;
        debug_assert!(conservation_ok, "packet conservation violated");
        // Nothing is scheduled any more: free the calendar (at 10^5 flows tens of MB of pending
        // events) before the results are built, so they reuse its memory instead of adding to
        // the peak.
        self.cal = crate::calendar::Calendar::with_geometry(0, 0);

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
            .zip(self.cold.iter())
            .enumerate()
            .map(|(i, (f, cold))| {
                let v = cold.window_values(&f.sender);
                let c = cold.counts(f);
                let bytes = v[0] * f.mss as u64;
                let (rs, rn) = (
                    cold.rtt_sum + f.sender.rtt_sum,
                    cold.rtt_n + f.sender.rtt_samples,
                );
                FlowResult {
                    id: i as u32,
                    rtt_s: cold.rtt_s,
                    start_s: cold.start_s,
                    goodput_bps: bytes as f64 * 8.0 / span,
                    bytes_acked: bytes,
                    retransmits: v[1],
                    timeouts: v[2],
                    mean_cwnd: f.cwnd_area / span_ns,
                    cwnd_std: (f.cwnd_area2 / span_ns - (f.cwnd_area / span_ns).powi(2))
                        .max(0.0)
                        .sqrt(),
                    class: f.class,
                    transfers: cold.transfers,
                    drops: c[0] - cold.snap_counts[0],
                    congestion_events: c[1] - cold.snap_counts[1],
                    ss_packets: c[2] - cold.snap_counts[2],
                    ca_packets: c[3] - cold.snap_counts[3],
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
        let fast: u64 = self
            .cold
            .iter()
            .zip(self.flows.iter())
            .map(|(c, f)| c.window_values(&f.sender)[3])
            .sum();
        let mut classes: Vec<ClassResult> = self
            .classes
            .iter()
            .map(|c| ClassResult {
                name: c.name.clone(),
                kind: c.kind.as_str().to_string(),
                cc: c.cc.clone(),
                flows: 0,
            })
            .collect();
        for f in self.flows.iter() {
            classes[f.class as usize].flows += 1;
        }
        // What each source recorded, kind by kind in registration order (traffic/mod.rs).
        let sources = self.src.results(&self.classes, span);
        let sobas = self
            .flows
            .iter()
            .enumerate()
            .filter_map(|(i, f)| f.sobas.as_ref().map(|rx| rx.result(i as u32)))
            .collect();
        // The flows' state is read: free it before the link results are built (as above).
        self.flows = Vec::new();
        self.cold = Vec::new();
        self.ccs = Vec::new();
        let bn = &self.links[self.bn];
        let (cs_mean, cs_std) = mean_std(&self.meter.cwnd_sum_samples);
        let (fs_mean, fs_std) = mean_std(&self.meter.flight_sum_samples);
        let (bins, bin_width, fractions) = histogram(&self.meter.cwnd_sum_samples, 60);
        let links: Vec<LinkResult> = self
            .links
            .iter()
            .enumerate()
            .map(|(i, l)| {
                let mut r = LinkResult {
                    name: self.link_names.get(i).to_string(),
                    rate_bps: l.rate_bps,
                    packets: l.packets,
                    bytes: l.bytes,
                    drops: l.drops,
                    arrivals: l.arrivals,
                    utilization: l.window_bits / (l.rate_bps * span),
                    max_queue_packets: l.queue.max_packets,
                    max_queue_bytes: l.queue.max_bytes,
                    discipline: "fifo".to_string(),
                    aqm_drops: 0,
                    overflow_drops: l.drops,
                    marks: 0,
                    sojourn_mean_s: None,
                    sojourn_p99_s: None,
                };
                if l.queued() {
                    let p = &self.ports[l.port as usize];
                    r.max_queue_packets = p.max_packets;
                    r.max_queue_bytes = p.max_bytes;
                    r.discipline = p.name.to_string();
                    r.aqm_drops = p.aqm_drops;
                    r.overflow_drops = p.overflow_drops;
                    r.marks = p.marks;
                    r.sojourn_mean_s = Some(p.sojourn.mean() / 1e9);
                    r.sojourn_p99_s = Some(p.sojourn.quantile(0.99) / 1e9);
                } else if i == self.bn {
                    r.sojourn_mean_s = Some(self.meter.delay.mean() / 1e9);
                    r.sojourn_p99_s = Some(self.meter.delay.quantile(0.99) / 1e9);
                }
                r
            })
            .collect();
        let bn_link = &links[self.bn];
        let summary = Summary {
            utilization: bn.window_bits / (bn.rate_bps * span),
            loss_rate: if bn.arrivals == 0 {
                0.0
            } else {
                bn.drops as f64 / bn.arrivals as f64
            },
            drops: bn.drops,
            queue_discipline: bn_link.discipline.clone(),
            aqm_drops: bn_link.aqm_drops,
            overflow_drops: bn_link.overflow_drops,
            marks: bn_link.marks,
            mark_rate: if bn.arrivals == 0 {
                0.0
            } else {
                bn_link.marks as f64 / bn.arrivals as f64
            },
            mean_queue_packets: self.meter.qstats.mean(),
            queue_std_packets: self.meter.qstats.std(),
            max_queue_packets: bn_link.max_queue_packets,
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
            frac_time_queue_empty: self.meter.qstats.frac_at(0),
            frac_time_queue_full: self
                .meter
                .qlimit
                .map_or(0.0, |l| self.meter.qstats.frac_at(l)),
            queue_delay_mean_s: self.meter.delay.mean() / 1e9,
            queue_delay_p50_s: self.meter.delay.quantile(0.5) / 1e9,
            queue_delay_p99_s: self.meter.delay.quantile(0.99) / 1e9,
            queue_delay_bin_s: self.meter.delay.bin as f64 / 1e9,
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
        let queue_histogram = if self.meter.want_qhist {
            self.meter
                .qstats
                .fractions(self.meter.qlimit.map_or(1, |l| l as usize + 1))
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
                queue: if self.meter.qtrace_iv.is_some() {
                    let mut q = self.meter.qtrace;
                    q.rate_bps = self.links[self.bn].rate_bps;
                    Some(q)
                } else {
                    None
                },
                cwnd: self.meter.ctrace,
                phases: if self.meter.phase_iv.is_some() {
                    Some(self.meter.phase_trace)
                } else {
                    None
                },
            },
            classes,
            sobas,
            transfers: self.transfers,
            sources,
        }
    }
}
