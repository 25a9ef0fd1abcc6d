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
//! | `links[].queue` | `{}` = unlimited |
//! | `bottleneck` | `"bn"` when a dumbbell is given, otherwise required |
//! | `flows[].start_s` | 0.0 |
//! | `flows[].kind` | `"bulk"`; `bytes` absent = long-lived (always has data) |
//! | `tcp` | see [`TcpConfig`] |
//! | `measure` | see [`Measure`] |
//!
//! Flow ids: the dumbbell's flows come first (ids `0..dumbbell.flows`), then `flows[]` in order.
use serde::{Deserialize, Serialize};
use std::fmt;

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
    #[serde(default)]
    pub measure: Measure,
}

/// A unidirectional link: serialization at `rate_bps`, then `delay_s` of propagation, fed by
/// an output queue.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LinkSpec {
    pub name: String,
    pub rate_bps: f64,
    #[serde(default)]
    pub delay_s: f64,
    #[serde(default)]
    pub queue: QueueSpec,
}

/// Drop-tail FIFO. The limit counts packets waiting for the link, not the one being
/// serialized (as ns-2/ns-3 do: the router holds B waiting packets + 1 in transmission).
/// `{}` means unlimited; give at most one of the two limits.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct QueueSpec {
    #[serde(default)]
    pub limit_packets: Option<u64>,
    #[serde(default)]
    pub limit_bytes: Option<u64>,
}

/// What a flow sends.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum FlowKind {
    /// Bulk transfer: long-lived (`bytes` absent) or finite (`bytes` given).
    #[default]
    Bulk,
}

/// One TCP flow: data goes along `path`, ACKs along `ack_path` (lists of link names).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct FlowSpec {
    pub path: Vec<String>,
    pub ack_path: Vec<String>,
    #[serde(default)]
    pub start_s: f64,
    #[serde(default)]
    pub kind: FlowKind,
    /// Payload bytes of a finite transfer (rounded up to whole segments); absent = unlimited.
    #[serde(default)]
    pub bytes: Option<u64>,
    #[serde(default)]
    pub tcp: TcpConfig,
}

fn d_cc() -> String {
    "newreno".to_string()
}
fn d_packet_bytes() -> u32 {
    1000
}
fn d_header_bytes() -> u32 {
    40
}
fn d_iw() -> u32 {
    2
}
fn d_min_rto() -> f64 {
    0.2
}
fn d_max_rto() -> f64 {
    60.0
}
fn d_initial_rto() -> f64 {
    1.0
}
fn d_ack_bytes() -> u32 {
    40
}
fn d_delack_timeout() -> f64 {
    0.2
}
fn d_dupthresh() -> u32 {
    3
}

/// TCP sender/receiver settings. Sequence numbers count whole segments: every data packet is
/// `packet_bytes` on the wire and carries `packet_bytes - header_bytes` of payload.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct TcpConfig {
    /// Congestion control: `"newreno"` (RFC 6582, default), `"reno"` (RFC 5681),
    /// `"newreno-paced"` (NewReno with new segments paced at gain x cwnd/SRTT) or `"cubic"`
    /// (RFC 9438; NewReno-style recovery when SACK is off).
    #[serde(default = "d_cc")]
    pub cc: String,
    /// SACK-based loss recovery (RFC 6675). Default false.
    #[serde(default)]
    pub sack: bool,
    /// Size of a data packet on the wire, bytes (default 1000).
    #[serde(default = "d_packet_bytes")]
    pub packet_bytes: u32,
    /// Header part of `packet_bytes` (default 40): the payload (MSS) is the rest.
    #[serde(default = "d_header_bytes")]
    pub header_bytes: u32,
    /// Initial congestion window, segments (default 2).
    #[serde(default = "d_iw")]
    pub initial_window: u32,
    /// Lower bound of the retransmission timeout, seconds (default 0.2, as Linux).
    #[serde(default = "d_min_rto")]
    pub min_rto_s: f64,
    /// Upper bound of the backed-off RTO, seconds (default 60, RFC 6298 allows >= 60).
    #[serde(default = "d_max_rto")]
    pub max_rto_s: f64,
    /// RTO before the first RTT sample, seconds (default 1.0, RFC 6298).
    #[serde(default = "d_initial_rto")]
    pub initial_rto_s: f64,
    /// Window cap Wmax in segments (socket buffer / receive window); null = none.
    #[serde(default)]
    pub max_window_packets: Option<u64>,
    /// Delayed ACKs: ACK every 2nd full segment or after `delayed_ack_timeout_s`
    /// (default off: ACK every segment). Out-of-order segments are always ACKed at once.
    #[serde(default)]
    pub delayed_ack: bool,
    /// Delayed-ACK timer, seconds (default 0.2, the ns-3 value; Linux uses 40 ms minimum).
    #[serde(default = "d_delack_timeout")]
    pub delayed_ack_timeout_s: f64,
    /// Size of a pure ACK on the wire, bytes (default 40).
    #[serde(default = "d_ack_bytes")]
    pub ack_bytes: u32,
    /// Duplicate ACKs that trigger fast retransmit (default 3).
    #[serde(default = "d_dupthresh")]
    pub dupack_threshold: u32,
    /// Proportional rate reduction (RFC 6937, as Linux) in SACK recovery: the window falls to
    /// ssthresh gradually, in proportion to the data delivered, instead of at once (default off,
    /// RFC 6675 as ns-3's classic recovery). Only with `sack`.
    #[serde(default)]
    pub prr: bool,
}

impl Default for TcpConfig {
    fn default() -> Self {
        TcpConfig {
            cc: d_cc(),
            sack: false,
            packet_bytes: d_packet_bytes(),
            header_bytes: d_header_bytes(),
            initial_window: d_iw(),
            min_rto_s: d_min_rto(),
            max_rto_s: d_max_rto(),
            initial_rto_s: d_initial_rto(),
            max_window_packets: None,
            delayed_ack: false,
            delayed_ack_timeout_s: d_delack_timeout(),
            ack_bytes: d_ack_bytes(),
            dupack_threshold: d_dupthresh(),
            prr: false,
        }
    }
}

/// A distribution of a per-flow quantity (seconds).
/// JSON: `{"uniform": [lo, hi]}`, `{"list": [a, b, ...]}` (cycled over flows), `{"fixed": x}`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "lowercase", deny_unknown_fields)]
pub enum Dist {
    Uniform([f64; 2]),
    List(Vec<f64>),
    Fixed(f64),
}

fn d_start_dist() -> Dist {
    Dist::Uniform([0.0, 1.0])
}

/// The dumbbell shorthand. Expansion (flow i):
/// - forward path `["acc{i}", "bn"]`: a private access link (rate `access_rate_bps`, queue
///   `access_queue`, delay `a_i`), then the shared bottleneck `bn` (rate `capacity_bps`, queue
///   `buffer`, delay `bottleneck_delay_s`);
/// - ACK path `["bnr", "racc{i}"]`: the shared reverse link `bnr` (rate `capacity_bps`,
///   unlimited queue, delay `bottleneck_delay_s`), then a private reverse access link `racc{i}`
///   (rate `access_rate_bps`, unlimited queue, delay `a_i`);
/// - `a_i = rtt_i/2 - bottleneck_delay_s`, so the two-way propagation delay is exactly `rtt_i`.
///
/// RTTs and start times come from their own seeded random streams.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Dumbbell {
    pub capacity_bps: f64,
    pub flows: u32,
    /// Two-way propagation delay of each flow.
    pub rtt_s: Dist,
    /// The bottleneck queue (default unlimited).
    #[serde(default)]
    pub buffer: QueueSpec,
    /// Rate of the per-flow access links; null = 10 x capacity (capacity ratio Γ = 0.1).
    #[serde(default)]
    pub access_rate_bps: Option<f64>,
    /// Queue of the forward access links (default unlimited).
    #[serde(default)]
    pub access_queue: QueueSpec,
    /// One-way propagation delay of the shared links (default 0).
    #[serde(default)]
    pub bottleneck_delay_s: f64,
    /// Start times (default uniform over [0, 1] s).
    #[serde(default = "d_start_dist")]
    pub start_s: Dist,
    #[serde(default)]
    pub tcp: TcpConfig,
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
}

impl Default for Measure {
    fn default() -> Self {
        Measure {
            queue_trace_interval_s: None,
            cwnd_trace_flows: Vec::new(),
            cwnd_trace_interval_s: d_cwnd_trace_interval(),
            queue_histogram: true,
            cwnd_sum_interval_s: d_cwnd_sum_interval(),
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
                start_s: d_start_dist(),
                tcp: TcpConfig::default(),
            }),
            measure: Measure::default(),
        }
    }
}

fn finite_pos(field: &str, v: f64) -> Result<(), ScenarioError> {
    if v.is_finite() && v > 0.0 {
        Ok(())
    } else {
        Err(ScenarioError::new(
            field,
            format!("must be a positive finite number, got {v}"),
        ))
    }
}

fn finite_nonneg(field: &str, v: f64) -> Result<(), ScenarioError> {
    if v.is_finite() && v >= 0.0 {
        Ok(())
    } else {
        Err(ScenarioError::new(
            field,
            format!("must be a finite number >= 0, got {v}"),
        ))
    }
}

fn check_queue(field: &str, q: &QueueSpec) -> Result<(), ScenarioError> {
    if q.limit_packets.is_some() && q.limit_bytes.is_some() {
        return Err(ScenarioError::new(
            field,
            "give limit_packets or limit_bytes, not both",
        ));
    }
    Ok(())
}

fn check_dist(field: &str, d: &Dist, allow_zero: bool) -> Result<(), ScenarioError> {
    let chk = |f: &str, v: f64| {
        if allow_zero {
            finite_nonneg(f, v)
        } else {
            finite_pos(f, v)
        }
    };
    match d {
        Dist::Uniform([a, b]) => {
            chk(&format!("{field}.uniform[0]"), *a)?;
            chk(&format!("{field}.uniform[1]"), *b)?;
            if a > b {
                return Err(ScenarioError::new(
                    format!("{field}.uniform"),
                    format!("lower bound {a} is above upper bound {b}"),
                ));
            }
        }
        Dist::List(v) => {
            if v.is_empty() {
                return Err(ScenarioError::new(
                    format!("{field}.list"),
                    "must not be empty",
                ));
            }
            for (i, x) in v.iter().enumerate() {
                chk(&format!("{field}.list[{i}]"), *x)?;
            }
        }
        Dist::Fixed(x) => chk(&format!("{field}.fixed"), *x)?,
    }
    Ok(())
}

/// Validate the TCP settings of one flow (`field` is the prefix used in messages).
pub(crate) fn check_tcp(field: &str, t: &TcpConfig) -> Result<(), ScenarioError> {
    if crate::tcp::cc::lookup(&t.cc).is_none() {
        return Err(ScenarioError::new(
            format!("{field}.cc"),
            format!(
                "unknown congestion control {:?} (known: {})",
                t.cc,
                crate::tcp::cc::names().join(", ")
            ),
        ));
    }
    if t.packet_bytes > 65_535 {
        return Err(ScenarioError::new(
            format!("{field}.packet_bytes"),
            "must be at most 65535",
        ));
    }
    if t.packet_bytes <= t.header_bytes {
        return Err(ScenarioError::new(
            format!("{field}.packet_bytes"),
            format!(
                "must exceed header_bytes ({}), got {}",
                t.header_bytes, t.packet_bytes
            ),
        ));
    }
    if t.initial_window == 0 {
        return Err(ScenarioError::new(
            format!("{field}.initial_window"),
            "must be at least 1",
        ));
    }
    finite_pos(&format!("{field}.min_rto_s"), t.min_rto_s)?;
    finite_pos(&format!("{field}.max_rto_s"), t.max_rto_s)?;
    finite_pos(&format!("{field}.initial_rto_s"), t.initial_rto_s)?;
    if t.max_rto_s < t.min_rto_s {
        return Err(ScenarioError::new(
            format!("{field}.max_rto_s"),
            "must be >= min_rto_s",
        ));
    }
    if let Some(w) = t.max_window_packets {
        if w == 0 || w > (1 << 30) {
            return Err(ScenarioError::new(
                format!("{field}.max_window_packets"),
                "must be between 1 and 2^30",
            ));
        }
    }
    finite_pos(
        &format!("{field}.delayed_ack_timeout_s"),
        t.delayed_ack_timeout_s,
    )?;
    if t.ack_bytes == 0 || t.ack_bytes > 65_535 {
        return Err(ScenarioError::new(
            format!("{field}.ack_bytes"),
            "must be between 1 and 65535",
        ));
    }
    if t.dupack_threshold == 0 {
        return Err(ScenarioError::new(
            format!("{field}.dupack_threshold"),
            "must be at least 1",
        ));
    }
    Ok(())
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
        let min_rtt = match &d.rtt_s {
            Dist::Uniform([a, _]) => *a,
            Dist::List(v) => v.iter().cloned().fold(f64::INFINITY, f64::min),
            Dist::Fixed(x) => *x,
        };
        if min_rtt < 2.0 * d.bottleneck_delay_s {
            return Err(ScenarioError::new(
                "dumbbell.rtt_s",
                format!("smallest RTT {min_rtt} s is below twice bottleneck_delay_s"),
            ));
        }
        check_tcp("dumbbell.tcp", &d.tcp)?;
    }
    if s.dumbbell.is_none() && s.flows.is_empty() {
        return Err(ScenarioError::new(
            "flows",
            "the scenario has no flows (give flows or a dumbbell)",
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
    let nflows = s.flows.len() as u64 + s.dumbbell.as_ref().map_or(0, |d| d.flows as u64);
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

/// A flow after expansion: link names resolved, RTT known when drawn by the dumbbell.
#[derive(Debug, Clone)]
pub(crate) struct FlowPlan {
    pub path: Vec<usize>,
    pub ack_path: Vec<usize>,
    pub start_s: f64,
    pub bytes: Option<u64>,
    pub tcp: TcpConfig,
    /// Two-way propagation delay (sum of the delays along path and ack_path).
    pub rtt_s: f64,
}

/// The scenario reduced to links and flows.
#[derive(Debug, Clone)]
pub(crate) struct Plan {
    pub links: Vec<LinkSpec>,
    pub flows: Vec<FlowPlan>,
    pub bottleneck: usize,
}

fn draw(d: &Dist, i: usize, rng: &mut crate::rng::Rng) -> f64 {
    match d {
        Dist::Uniform([a, b]) => a + (b - a) * rng.next_f64(),
        Dist::List(v) => v[i % v.len()],
        Dist::Fixed(x) => *x,
    }
}

/// Validate and expand the dumbbell into links + flows with resolved link indices.
pub(crate) fn expand(s: &Scenario) -> Result<Plan, ScenarioError> {
    check_top(s)?;
    let mut links: Vec<LinkSpec> = Vec::new();
    let mut flows: Vec<FlowPlan> = Vec::new();
    let mut db_links = 0usize;
    if let Some(d) = &s.dumbbell {
        let access = d.access_rate_bps.unwrap_or(10.0 * d.capacity_bps);
        let mut rtt_rng = crate::rng::Rng::stream(s.seed, crate::rng::STREAM_RTT);
        let mut start_rng = crate::rng::Rng::stream(s.seed, crate::rng::STREAM_START);
        links.push(LinkSpec {
            name: "bn".into(),
            rate_bps: d.capacity_bps,
            delay_s: d.bottleneck_delay_s,
            queue: d.buffer.clone(),
        });
        links.push(LinkSpec {
            name: "bnr".into(),
            rate_bps: d.capacity_bps,
            delay_s: d.bottleneck_delay_s,
            queue: QueueSpec::default(),
        });
        for i in 0..d.flows as usize {
            let rtt = draw(&d.rtt_s, i, &mut rtt_rng);
            let start = draw(&d.start_s, i, &mut start_rng);
            let a = (rtt / 2.0 - d.bottleneck_delay_s).max(0.0);
            let acc = links.len();
            links.push(LinkSpec {
                name: format!("acc{i}"),
                rate_bps: access,
                delay_s: a,
                queue: d.access_queue.clone(),
            });
            links.push(LinkSpec {
                name: format!("racc{i}"),
                rate_bps: access,
                delay_s: a,
                queue: QueueSpec::default(),
            });
            flows.push(FlowPlan {
                path: vec![acc, 0],
                ack_path: vec![1, acc + 1],
                start_s: start,
                bytes: None,
                tcp: d.tcp.clone(),
                rtt_s: 2.0 * a + 2.0 * d.bottleneck_delay_s,
            });
        }
        db_links = links.len();
    }
    // Names must be unique across the dumbbell's and the explicit links. A sorted index keeps
    // lookups deterministic and avoids hashing.
    links.extend(s.links.iter().cloned());
    let mut names: Vec<(&str, usize)> = links
        .iter()
        .enumerate()
        .map(|(i, l)| (l.name.as_str(), i))
        .collect();
    names.sort();
    for w in names.windows(2) {
        if w[0].0 == w[1].0 {
            let i = w[0].1.max(w[1].1);
            let field = if i >= db_links {
                format!("links[{}].name", i - db_links)
            } else {
                "links".into()
            };
            return Err(ScenarioError::new(
                field,
                format!("duplicate link name {:?}", w[0].0),
            ));
        }
    }
    let find = |name: &str| {
        names
            .binary_search_by(|(n, _)| (*n).cmp(name))
            .ok()
            .map(|k| names[k].1)
    };
    for (i, f) in s.flows.iter().enumerate() {
        let mut path = Vec::new();
        for (h, n) in f.path.iter().enumerate() {
            path.push(find(n).ok_or_else(|| {
                ScenarioError::new(
                    format!("flows[{i}].path[{h}]"),
                    format!("no link named {n:?}"),
                )
            })?);
        }
        let mut ack_path = Vec::new();
        for (h, n) in f.ack_path.iter().enumerate() {
            ack_path.push(find(n).ok_or_else(|| {
                ScenarioError::new(
                    format!("flows[{i}].ack_path[{h}]"),
                    format!("no link named {n:?}"),
                )
            })?);
        }
        let rtt = path
            .iter()
            .chain(ack_path.iter())
            .map(|&l| links[l].delay_s)
            .sum();
        flows.push(FlowPlan {
            path,
            ack_path,
            start_s: f.start_s,
            bytes: f.bytes,
            tcp: f.tcp.clone(),
            rtt_s: rtt,
        });
    }
    let bname = match (&s.bottleneck, &s.dumbbell) {
        (Some(b), _) => b.clone(),
        (None, Some(_)) => "bn".to_string(),
        (None, None) => {
            return Err(ScenarioError::new(
                "bottleneck",
                "required: name the link to measure",
            ));
        }
    };
    let bottleneck = find(&bname)
        .ok_or_else(|| ScenarioError::new("bottleneck", format!("no link named {bname:?}")))?;
    // Segment numbers are 32-bit: a flow must not be able to send 2^31 segments in the run.
    for (i, f) in flows.iter().enumerate() {
        let min_rate = f
            .path
            .iter()
            .map(|&l| links[l].rate_bps)
            .fold(f64::INFINITY, f64::min);
        let segs = s.duration_s * min_rate / (8.0 * f.tcp.packet_bytes as f64);
        if segs > 2.0e9 {
            return Err(ScenarioError::new(
                "duration_s",
                format!("flow {i} could send {segs:.3e} segments, beyond the engine's 32-bit sequence space; shorten the run"),
            ));
        }
    }
    if flows.len() > u32::MAX as usize / 2 {
        return Err(ScenarioError::new("flows", "too many flows"));
    }
    Ok(Plan {
        links,
        flows,
        bottleneck,
    })
}
