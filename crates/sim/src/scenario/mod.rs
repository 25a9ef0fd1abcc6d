//! The scenario: the one input of the engine, as plain serde data.
//!
//! Units are SI everywhere: rates in bit/s, times in seconds (f64), sizes in bytes, windows in
//! packets. The engine converts times to integer nanoseconds when it loads a scenario.
//! Every struct rejects unknown fields, so a typo is reported with the field's name.
//!
//! Defaults (used when a field is absent):
//!
//! | field | default |
//! |---|---|
//! | `seed` | 1 |
//! | `duration_s` | 60.0 |
//! | `warmup_s` | 10.0 (measurements cover `[warmup_s, duration_s)`) |
//! | `links[].delay_s` | 0.0 |
//! | `links[].queue` | `{}` = unlimited drop-tail FIFO; `discipline` names RED, CoDel, PIE or FQ-CoDel instead (see `net::aqm`) |
//! | `bottleneck` | `"bn"` when a dumbbell is given, otherwise required |
//! | `flows[].start_s` | 0.0 |
//! | `flows[].kind` | `"bulk"`; `bytes` absent = long-lived (always has data) |
//! | `tcp` | see [`TcpConfig`] |
//! | `measure` | see [`Measure`] |
//!
//! Flow ids: the dumbbell's flows come first (ids `0..dumbbell.flows`), then `flows[]` in order,
//! then one per closed-loop user (`users[]`), then the slots that open-loop short flows take
//! at run time.
//!
//! One file per concept: [`topology`] (links, queues, explicit flows, the dumbbell,
//! distributions), [`tcp`] (per-flow TCP settings), [`traffic`] (short flows, closed-loop users,
//! UDP sources), `expand` (the scenario reduced to links and flows with resolved indices).
use serde::{Deserialize, Serialize};
use std::fmt;

mod expand;
pub mod tcp;
pub mod topology;
pub mod traffic;

pub use expand::ClassKind;
pub(crate) use expand::{expand, ClassPlan, FlowPlan, Plan, ShortPlan, UdpPlan, UsersPlan};
pub(crate) use tcp::check_tcp;
pub use tcp::TcpConfig;
use topology::d_start_dist;
pub(crate) use topology::{check_dist, check_queue, check_shaped_queue};
pub use topology::{
    DisciplineSpec, Dist, Dumbbell, FlowClass, FlowKind, FlowSpec, LinkSpec, QueueSpec, SobasSpec,
};
pub use traffic::{ShortFlows, Udp, UdpPattern, Users};

/// A rejected scenario: which field, and why. Displays as `field: reason`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScenarioError {
    pub field: String,
    pub reason: String,
}

impl ScenarioError {
    pub fn new(field: impl Into<String>, reason: impl Into<String>) -> Self {
        ScenarioError {
            field: field.into(),
            reason: reason.into(),
        }
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.reason)
    }
}

impl std::error::Error for ScenarioError {}

fn d_seed() -> u64 {
    1
}
fn d_duration() -> f64 {
    60.0
}
fn d_warmup() -> f64 {
    10.0
}

/// One experiment.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Root of every random stream of the run (start times, RTT draws, ...).
    #[serde(default = "d_seed")]
    pub seed: u64,
    /// Name of the TCP profile the Python side built the flows' stacks from (`linux`, `ns3`,
    /// `ns2`). Informational: the engine runs each flow's own `tcp` table and never reads this.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<String>,
    /// Total simulated time, seconds.
    #[serde(default = "d_duration")]
    pub duration_s: f64,
    /// Measurements cover `[warmup_s, duration_s)`.
    #[serde(default = "d_warmup")]
    pub warmup_s: f64,
    /// Explicit links (may be empty when a dumbbell is given).
    #[serde(default)]
    pub links: Vec<LinkSpec>,
    /// Name of the link whose measurements are reported.
    #[serde(default)]
    pub bottleneck: Option<String>,
    /// Explicit flows (appended after the dumbbell's flows).
    #[serde(default)]
    pub flows: Vec<FlowSpec>,
    /// Shorthand for the classic dumbbell; expanded into links and flows.
    #[serde(default)]
    pub dumbbell: Option<Dumbbell>,
    /// Open-loop short TCP flows (Poisson arrivals), see [`ShortFlows`].
    #[serde(default)]
    pub short_flows: Vec<ShortFlows>,
    /// Closed-loop users (transfer, think, transfer, ...), see [`Users`].
    #[serde(default)]
    pub users: Vec<Users>,
    /// UDP sources, see [`Udp`].
    #[serde(default)]
    pub udp: Vec<Udp>,
    #[serde(default)]
    pub measure: Measure,
    /// A different drop-tail limit at the bottleneck before the measured one, see [`WarmBuffer`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warm_buffer: Option<WarmBuffer>,
}

/// The bottleneck's drop-tail FIFO holds at most `packets` packets until `until_s`, and its own
/// limit (the scenario's) from then on. A run that starts from another run's warmed-up traffic is
/// this scenario: the common prefix up to `until_s` is the same for every final limit, so a search
/// over buffer sizes can simulate it once and continue it at each size (`Simulation::set_buffer`),
/// with the same result as running each scenario from the start. `until_s` must lie within the
/// warm-up (nothing measured sees the other limit); packets queued beyond the new limit at
/// `until_s` are not dropped but drain, and the queue's peak (`max_queue_packets`) counts from
/// there, after each arrival the new limit admits.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct WarmBuffer {
    pub packets: u64,
    pub until_s: f64,
}

fn d_cwnd_trace_interval() -> f64 {
    0.01
}
fn d_true() -> bool {
    true
}
fn d_cwnd_sum_interval() -> f64 {
    0.001
}

/// What to record besides the summary.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Measure {
    /// Sample the bottleneck queue (waiting packets) every this many seconds; null = no trace.
    #[serde(default)]
    pub queue_trace_interval_s: Option<f64>,
    /// Flow ids whose cwnd is traced.
    #[serde(default)]
    pub cwnd_trace_flows: Vec<u32>,
    /// Sampling interval of the cwnd traces, seconds (default 0.01).
    #[serde(default = "d_cwnd_trace_interval")]
    pub cwnd_trace_interval_s: f64,
    /// Report the time-weighted histogram of the bottleneck queue (default true).
    #[serde(default = "d_true")]
    pub queue_histogram: bool,
    /// Σcwnd over all flows is sampled every this many seconds (default 0.001) for its
    /// mean, std and histogram.
    #[serde(default = "d_cwnd_sum_interval")]
    pub cwnd_sum_interval_s: f64,
    /// Count the flows in slow start and in congestion avoidance every this many seconds
    /// (default 0.1; null = no series).
    #[serde(default = "d_phase_interval")]
    pub phase_trace_interval_s: Option<f64>,
}

fn d_phase_interval() -> Option<f64> {
    Some(0.1)
}

impl Default for Measure {
    fn default() -> Self {
        Measure {
            queue_trace_interval_s: None,
            cwnd_trace_flows: Vec::new(),
            cwnd_trace_interval_s: d_cwnd_trace_interval(),
            queue_histogram: true,
            cwnd_sum_interval_s: d_cwnd_sum_interval(),
            phase_trace_interval_s: d_phase_interval(),
        }
    }
}

impl Scenario {
    /// Parse a JSON scenario. Syntax errors and unknown fields come back as a ScenarioError
    /// whose reason carries serde's message (which names the field).
    pub fn from_json(text: &str) -> Result<Scenario, ScenarioError> {
        serde_json::from_str(text).map_err(|e| ScenarioError::new("scenario", e.to_string()))
    }

    /// The scenario as JSON (all defaults filled in).
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("scenario serializes")
    }

    /// A dumbbell scenario with defaults everywhere else (handy in tests and examples).
    pub fn dumbbell(capacity_bps: f64, flows: u32, rtt_s: Dist, buffer: QueueSpec) -> Scenario {
        Scenario {
            seed: d_seed(),
            profile: None,
            duration_s: d_duration(),
            warmup_s: d_warmup(),
            links: Vec::new(),
            bottleneck: None,
            flows: Vec::new(),
            dumbbell: Some(Dumbbell {
                capacity_bps,
                flows,
                rtt_s,
                buffer,
                access_rate_bps: None,
                access_queue: QueueSpec::default(),
                bottleneck_delay_s: 0.0,
                bottleneck_burst_bytes: None,
                start_s: d_start_dist(),
                tcp: TcpConfig::default(),
                mix: Vec::new(),
            }),
            short_flows: Vec::new(),
            users: Vec::new(),
            udp: Vec::new(),
            measure: Measure::default(),
            warm_buffer: None,
        }
    }
}

/// A token bucket must hold at least one byte (and a packet larger than it still passes: the
/// level may go negative, as htb's does).
fn check_burst(field: &str, b: Option<u64>) -> Result<(), ScenarioError> {
    match b {
        Some(0) => Err(ScenarioError::new(
            field,
            "must be at least 1 byte (omit it for an unshaped link)",
        )),
        _ => Ok(()),
    }
}

pub(crate) fn finite_pos(field: &str, v: f64) -> Result<(), ScenarioError> {
    if v.is_finite() && v > 0.0 {
        Ok(())
    } else {
        Err(ScenarioError::new(
            field,
            format!("must be a positive finite number, got {v}"),
        ))
    }
}

pub(crate) fn finite_nonneg(field: &str, v: f64) -> Result<(), ScenarioError> {
    if v.is_finite() && v >= 0.0 {
        Ok(())
    } else {
        Err(ScenarioError::new(
            field,
            format!("must be a finite number >= 0, got {v}"),
        ))
    }
}

/// Check every field that does not need the expansion; [`expand`] checks the rest.
pub(crate) fn check_top(s: &Scenario) -> Result<(), ScenarioError> {
    finite_pos("duration_s", s.duration_s)?;
    finite_nonneg("warmup_s", s.warmup_s)?;
    if s.warmup_s >= s.duration_s {
        return Err(ScenarioError::new(
            "warmup_s",
            format!(
                "must be below duration_s ({}), got {}",
                s.duration_s, s.warmup_s
            ),
        ));
    }
    if let Some(w) = &s.warm_buffer {
        if w.packets == 0 {
            return Err(ScenarioError::new("warm_buffer.packets", "must be at least 1"));
        }
        if !(w.until_s.is_finite() && w.until_s > 0.0 && w.until_s <= s.warmup_s) {
            return Err(ScenarioError::new(
                "warm_buffer.until_s",
                format!(
                    "must be above 0 and at most warmup_s ({}), got {}",
                    s.warmup_s, w.until_s
                ),
            ));
        }
    }
    if s.duration_s > 1.0e6 {
        return Err(ScenarioError::new(
            "duration_s",
            "must be at most 1e6 seconds",
        ));
    }
    for (i, l) in s.links.iter().enumerate() {
        if l.name.is_empty() {
            return Err(ScenarioError::new(
                format!("links[{i}].name"),
                "must not be empty",
            ));
        }
        finite_pos(&format!("links[{i}].rate_bps"), l.rate_bps)?;
        finite_nonneg(&format!("links[{i}].delay_s"), l.delay_s)?;
        check_queue(&format!("links[{i}].queue"), &l.queue)?;
        check_burst(&format!("links[{i}].burst_bytes"), l.burst_bytes)?;
        check_shaped_queue(&format!("links[{i}].queue"), &l.queue, l.burst_bytes)?;
    }
    for (i, f) in s.flows.iter().enumerate() {
        finite_nonneg(&format!("flows[{i}].start_s"), f.start_s)?;
        if f.path.is_empty() {
            return Err(ScenarioError::new(
                format!("flows[{i}].path"),
                "must name at least one link",
            ));
        }
        if f.ack_path.is_empty() {
            return Err(ScenarioError::new(
                format!("flows[{i}].ack_path"),
                "must name at least one link",
            ));
        }
        if f.path.len() > 200 || f.ack_path.len() > 200 {
            return Err(ScenarioError::new(
                format!("flows[{i}].path"),
                "at most 200 hops",
            ));
        }
        if f.bytes == Some(0) {
            return Err(ScenarioError::new(
                format!("flows[{i}].bytes"),
                "must be positive (or absent)",
            ));
        }
        check_tcp(&format!("flows[{i}].tcp"), &f.tcp)?;
        if let Some(sb) = &f.sobas {
            let field = format!("flows[{i}].sobas");
            finite_pos(&format!("{field}.probe_interval_s"), sb.probe_interval_s)?;
            if sb.probe_bytes == 0 || sb.probe_bytes > 65_535 {
                return Err(ScenarioError::new(
                    format!("{field}.probe_bytes"),
                    "must be between 1 and 65535",
                ));
            }
            let mss = f.tcp.packet_bytes.saturating_sub(f.tcp.header_bytes);
            let mut cfg = bufsize_sobas::Config::new(mss.max(1), sb.max_buffer_bytes);
            if let Some(t) = sb.slope_tolerance {
                cfg.slope_tolerance = t;
            }
            cfg.validate().map_err(|e| {
                ScenarioError::new(format!("{field}.{}", e.split(':').next().unwrap_or("")), e)
            })?;
        }
    }
    if let Some(d) = &s.dumbbell {
        finite_pos("dumbbell.capacity_bps", d.capacity_bps)?;
        if d.flows == 0 {
            return Err(ScenarioError::new("dumbbell.flows", "must be at least 1"));
        }
        check_dist("dumbbell.rtt_s", &d.rtt_s, false)?;
        check_dist("dumbbell.start_s", &d.start_s, true)?;
        check_queue("dumbbell.buffer", &d.buffer)?;
        check_queue("dumbbell.access_queue", &d.access_queue)?;
        if let Some(a) = d.access_rate_bps {
            finite_pos("dumbbell.access_rate_bps", a)?;
        }
        finite_nonneg("dumbbell.bottleneck_delay_s", d.bottleneck_delay_s)?;
        check_burst("dumbbell.bottleneck_burst_bytes", d.bottleneck_burst_bytes)?;
        check_shaped_queue("dumbbell.buffer", &d.buffer, d.bottleneck_burst_bytes)?;
        let min_rtt = d.rtt_s.min();
        if min_rtt < 2.0 * d.bottleneck_delay_s {
            return Err(ScenarioError::new(
                "dumbbell.rtt_s",
                format!("smallest RTT {min_rtt} s is below twice bottleneck_delay_s"),
            ));
        }
        check_tcp("dumbbell.tcp", &d.tcp)?;
    }
    if let Some(d) = &s.dumbbell {
        for (i, c) in d.mix.iter().enumerate() {
            if c.flows == 0 {
                return Err(ScenarioError::new(
                    format!("dumbbell.mix[{i}].flows"),
                    "must be at least 1",
                ));
            }
            check_tcp(&format!("dumbbell.mix[{i}].tcp"), &c.tcp)?;
        }
        if !d.mix.is_empty() {
            let total: u64 = d.mix.iter().map(|c| c.flows as u64).sum();
            if total != d.flows as u64 {
                return Err(ScenarioError::new(
                    "dumbbell.mix",
                    format!(
                        "the classes hold {total} flows, dumbbell.flows is {}",
                        d.flows
                    ),
                ));
            }
        }
    }
    for (i, x) in s.short_flows.iter().enumerate() {
        x.check(&format!("short_flows[{i}]"))?;
    }
    for (i, x) in s.users.iter().enumerate() {
        x.check(&format!("users[{i}]"))?;
    }
    for (i, x) in s.udp.iter().enumerate() {
        x.check(&format!("udp[{i}]"))?;
    }
    if s.dumbbell.is_none()
        && s.flows.is_empty()
        && s.short_flows.is_empty()
        && s.users.is_empty()
        && s.udp.is_empty()
    {
        return Err(ScenarioError::new(
            "flows",
            "the scenario has no traffic (give flows, a dumbbell, short_flows, users or udp)",
        ));
    }
    finite_pos(
        "measure.cwnd_trace_interval_s",
        s.measure.cwnd_trace_interval_s,
    )?;
    finite_pos("measure.cwnd_sum_interval_s", s.measure.cwnd_sum_interval_s)?;
    if let Some(q) = s.measure.queue_trace_interval_s {
        finite_pos("measure.queue_trace_interval_s", q)?;
    }
    if let Some(q) = s.measure.phase_trace_interval_s {
        finite_pos("measure.phase_trace_interval_s", q)?;
    }
    let nflows = s.flows.len() as u64
        + s.dumbbell.as_ref().map_or(0, |d| d.flows as u64)
        + s.users.iter().map(|u| u.count as u64).sum::<u64>();
    for (i, &f) in s.measure.cwnd_trace_flows.iter().enumerate() {
        if f as u64 >= nflows {
            return Err(ScenarioError::new(
                format!("measure.cwnd_trace_flows[{i}]"),
                format!("flow id {f} does not exist (the scenario has {nflows} flows)"),
            ));
        }
    }
    Ok(())
}
