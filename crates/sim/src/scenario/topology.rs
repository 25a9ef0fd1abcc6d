//! Links, queues, explicit flows, the dumbbell shorthand and the distributions of per-flow
//! quantities.
use super::{finite_nonneg, finite_pos, ScenarioError, TcpConfig};
use serde::{Deserialize, Serialize};

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
    /// Shape like Linux's htb instead of serializing: a token bucket of this many bytes filled
    /// at `rate_bps` releases packets whole (the kernel testbed's bottleneck, `burst` of its htb
    /// class). Absent: ideal serialization at the rate (a router's output port).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub burst_bytes: Option<u64>,
}

/// A link's output queue: drop-tail FIFO unless `discipline` names another. The limit counts
/// packets waiting for the link, not the one being serialized (as ns-2/ns-3 do: the router
/// holds B waiting packets + 1 in transmission). For the FIFO `{}` means unlimited; a
/// discipline always keeps a hard limit (its default when none is given, see `net::aqm`).
/// Give at most one of the two limits.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct QueueSpec {
    #[serde(default)]
    pub limit_packets: Option<u64>,
    #[serde(default)]
    pub limit_bytes: Option<u64>,
    /// A queue discipline instead of the drop-tail FIFO: `{"name": "codel", "target_s": ...}`
    /// (`red`, `codel`, `pie`, `fq_codel`; the other fields are the discipline's parameters).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub discipline: Option<DisciplineSpec>,
}

/// A queue discipline by name, with its own parameters beside the name (each discipline's file
/// under `net/aqm/` defines them and refuses unknown ones).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct DisciplineSpec {
    pub name: String,
    #[serde(flatten)]
    pub params: serde_json::Map<String, serde_json::Value>,
}

impl QueueSpec {
    /// The hard limit of a queue with a discipline: the given one, else the discipline's
    /// default in packets. (None, None) for the FIFO without limits.
    pub fn effective_limits(&self) -> (Option<u64>, Option<u64>) {
        match &self.discipline {
            Some(d) if self.limit_packets.is_none() && self.limit_bytes.is_none() => (
                crate::net::aqm::lookup(&d.name).map(|r| r.default_limit_packets),
                None,
            ),
            _ => (self.limit_packets, self.limit_bytes),
        }
    }
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
    /// SOBAS socket-buffer auto-sizing at the receiver (001 §VII-A); absent = off.
    #[serde(default)]
    pub sobas: Option<SobasSpec>,
}

fn d_sobas_max() -> u64 {
    16 << 20
}
fn d_probe_interval() -> f64 {
    0.02
}
fn d_probe_bytes() -> u32 {
    100
}

/// SOBAS at a flow's receiver: the controller (crate `bufsize-sobas`) sets the receive-buffer
/// limit, applied as the advertised window (whole segments, at the moment it changes). Its inputs:
/// the application bytes received, packet trains (the first slow-start rounds, each ended by an
/// idle gap of more than a quarter RTT; see `sobas.rs`), and UDP probes of `probe_bytes`
/// sent every `probe_interval_s` by the receiver along the ACK path and echoed by the sender
/// along the data path (their RTT, and echoes missing in the forward direction).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SobasSpec {
    /// The largest receive buffer, bytes (the limit at the start; default 16 MiB).
    #[serde(default = "d_sobas_max")]
    pub max_buffer_bytes: u64,
    #[serde(default = "d_probe_interval")]
    pub probe_interval_s: f64,
    #[serde(default = "d_probe_bytes")]
    pub probe_bytes: u32,
    /// "Slope about zero" threshold in units of MSS/RTT² (default: the controller's, 0.5).
    #[serde(default)]
    pub slope_tolerance: Option<f64>,
    /// Re-adjust after the first decision (default false: one adjustment, as the prototype).
    #[serde(default)]
    pub readjust: bool,
}

/// A distribution of a per-flow quantity (seconds for times, bytes or packets for sizes).
///
/// JSON forms:
/// - `{"fixed": x}`; `{"uniform": [lo, hi]}`; `{"list": [a, b, ...]}` (cycled over flows in
///   order: flow i gets element i mod len, no randomness);
/// - `{"int_uniform": [lo, hi]}`: a whole number drawn uniformly from lo..=hi;
/// - `{"exponential": mean}`;
/// - `{"pareto": {"shape": a, "mean": m}}`: P(X > x) = (x_m/x)^a for x ≥ x_m, with the scale
///   x_m = m·(a − 1)/a chosen so that the mean is m (needs a > 1);
/// - `{"empirical": {"values": [...], "cdf": [...]}}`: a piecewise-linear CDF through the points
///   (values[k], cdf[k]); values non-decreasing, cdf non-decreasing from ≥ 0 to exactly 1;
///   cdf[0] > 0 puts an atom at values[0].
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Dist {
    Uniform([f64; 2]),
    List(Vec<f64>),
    Fixed(f64),
    IntUniform([u64; 2]),
    Exponential(f64),
    Pareto { shape: f64, mean: f64 },
    Empirical { values: Vec<f64>, cdf: Vec<f64> },
}

impl Dist {
    /// The mean of the distribution (of the list's elements for `list`).
    pub fn mean(&self) -> f64 {
        match self {
            Dist::Uniform([a, b]) => 0.5 * (a + b),
            Dist::List(v) => v.iter().sum::<f64>() / v.len() as f64,
            Dist::Fixed(x) => *x,
            Dist::IntUniform([a, b]) => 0.5 * (*a as f64 + *b as f64),
            Dist::Exponential(m) => *m,
            Dist::Pareto { mean, .. } => *mean,
            Dist::Empirical { values, cdf } => {
                let mut m = values[0] * cdf[0];
                for k in 1..values.len() {
                    m += (cdf[k] - cdf[k - 1]) * 0.5 * (values[k] + values[k - 1]);
                }
                m
            }
        }
    }

    /// The smallest value the distribution can produce.
    pub fn min(&self) -> f64 {
        match self {
            Dist::Uniform([a, _]) => *a,
            Dist::List(v) => v.iter().cloned().fold(f64::INFINITY, f64::min),
            Dist::Fixed(x) => *x,
            Dist::IntUniform([a, _]) => *a as f64,
            Dist::Exponential(_) => 0.0,
            Dist::Pareto { shape, mean } => mean * (shape - 1.0) / shape,
            Dist::Empirical { values, .. } => values[0],
        }
    }

    /// P(X > x).
    pub fn survival(&self, x: f64) -> f64 {
        match self {
            Dist::Uniform([a, b]) => {
                if x < *a {
                    1.0
                } else if x >= *b {
                    0.0
                } else {
                    (b - x) / (b - a)
                }
            }
            Dist::List(v) => v.iter().filter(|&&y| y > x).count() as f64 / v.len() as f64,
            Dist::Fixed(y) => (*y > x) as u8 as f64,
            Dist::IntUniform([a, b]) => {
                let n = (b - a + 1) as f64;
                let above = (*b as f64 - x.floor()).clamp(0.0, n);
                above / n
            }
            Dist::Exponential(m) => (-x.max(0.0) / m).exp(),
            Dist::Pareto { shape, mean } => {
                let xm = mean * (shape - 1.0) / shape;
                if x < xm {
                    1.0
                } else {
                    (xm / x).powf(*shape)
                }
            }
            Dist::Empirical { values, cdf } => {
                if x < values[0] {
                    return 1.0;
                }
                for k in 1..values.len() {
                    if x < values[k] {
                        let f = cdf[k - 1]
                            + (cdf[k] - cdf[k - 1]) * (x - values[k - 1])
                                / (values[k] - values[k - 1]);
                        return 1.0 - f;
                    }
                }
                0.0
            }
        }
    }

    /// E[ceil(X / unit)] for X ≥ 0: the mean number of whole units (segments) a draw needs,
    /// Σ_{k ≥ 0} P(X > k·unit). A Pareto tail beyond 10^6 terms is added in closed form.
    pub fn mean_units(&self, unit: f64) -> f64 {
        let mut s = 0.0;
        let mut k = 0u64;
        loop {
            let p = self.survival(k as f64 * unit);
            if p < 1e-13 {
                break;
            }
            s += p;
            k += 1;
            if k >= 1_000_000 {
                if let Dist::Pareto { shape, mean } = self {
                    let xm = mean * (shape - 1.0) / shape;
                    let t = k as f64 - 0.5;
                    s += (xm / unit).powf(*shape) * t.powf(1.0 - shape) / (shape - 1.0);
                }
                break;
            }
        }
        s
    }
}

pub(crate) fn d_start_dist() -> Dist {
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
    /// The bottleneck shaped by a token bucket of this many bytes (`LinkSpec::burst_bytes`);
    /// absent: ideal serialization.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bottleneck_burst_bytes: Option<u64>,
    /// Start times (default uniform over [0, 1] s).
    #[serde(default = "d_start_dist")]
    pub start_s: Dist,
    #[serde(default)]
    pub tcp: TcpConfig,
    /// Flow classes with their own TCP settings (e.g. 003's 42 Reno, 51 BIC, ... flows): the
    /// first `mix[0].flows` flows use `mix[0].tcp`, and so on; the counts must add up to
    /// `flows`. Empty (default): every flow uses `tcp`.
    #[serde(default)]
    pub mix: Vec<FlowClass>,
}

/// A class of flows sharing TCP settings.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct FlowClass {
    /// Label in the results (default: the congestion control's name).
    #[serde(default)]
    pub name: Option<String>,
    pub flows: u32,
    #[serde(default)]
    pub tcp: TcpConfig,
}

pub(crate) fn check_queue(field: &str, q: &QueueSpec) -> Result<(), ScenarioError> {
    if q.limit_packets.is_some() && q.limit_bytes.is_some() {
        return Err(ScenarioError::new(
            field,
            "give limit_packets or limit_bytes, not both",
        ));
    }
    if let Some(d) = &q.discipline {
        let f = format!("{field}.discipline");
        let Some(reg) = crate::net::aqm::lookup(&d.name) else {
            return Err(ScenarioError::new(
                format!("{f}.name"),
                format!(
                    "unknown queue discipline {:?} (known: {}; omit the discipline for drop-tail)",
                    d.name,
                    crate::net::aqm::names().join(", ")
                ),
            ));
        };
        if q.limit_packets == Some(0) {
            return Err(ScenarioError::new(
                format!("{field}.limit_packets"),
                "a discipline's hard limit must hold at least one packet",
            ));
        }
        // Build it once with a stand-in link to check the parameters.
        let ctx = crate::net::aqm::Context {
            limit: crate::net::aqm::Limit {
                packets: 1,
                bytes: u64::MAX,
            },
            rate_bps: 1e9,
            mtu_bytes: 1500,
            rng: crate::rng::Rng::stream(0, 0),
        };
        (reg.make)(&serde_json::Value::Object(d.params.clone()), ctx).map_err(|e| {
            let (name, why) = match e.split_once(": ") {
                Some((k, v)) if !k.contains(' ') => (format!("{f}.{k}"), v.to_string()),
                _ => (f.clone(), e),
            };
            ScenarioError::new(name, why)
        })?;
    }
    Ok(())
}

/// A token-bucket shaper and a queue discipline do not go together (the shaper releases packets
/// from the FIFO's own schedule).
pub(crate) fn check_shaped_queue(
    field: &str,
    q: &QueueSpec,
    burst: Option<u64>,
) -> Result<(), ScenarioError> {
    if q.discipline.is_some() && burst.is_some() {
        return Err(ScenarioError::new(
            field,
            "a shaped link (burst_bytes) runs a drop-tail FIFO only: drop the discipline or the burst",
        ));
    }
    Ok(())
}

pub(crate) fn check_dist(field: &str, d: &Dist, allow_zero: bool) -> Result<(), ScenarioError> {
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
        Dist::IntUniform([a, b]) => {
            if a > b {
                return Err(ScenarioError::new(
                    format!("{field}.int_uniform"),
                    format!("lower bound {a} is above upper bound {b}"),
                ));
            }
            chk(&format!("{field}.int_uniform[0]"), *a as f64)?;
        }
        Dist::Exponential(m) => finite_pos(&format!("{field}.exponential"), *m)?,
        Dist::Pareto { shape, mean } => {
            finite_pos(&format!("{field}.pareto.mean"), *mean)?;
            if !(shape.is_finite() && *shape > 1.0) {
                return Err(ScenarioError::new(
                    format!("{field}.pareto.shape"),
                    format!("must be above 1 for a finite mean, got {shape}"),
                ));
            }
        }
        Dist::Empirical { values, cdf } => {
            let f = format!("{field}.empirical");
            if values.is_empty() || values.len() != cdf.len() {
                return Err(ScenarioError::new(
                    f,
                    format!(
                        "values and cdf must be non-empty and of equal length (got {} and {})",
                        values.len(),
                        cdf.len()
                    ),
                ));
            }
            for (k, (&v, &p)) in values.iter().zip(cdf.iter()).enumerate() {
                chk(&format!("{f}.values[{k}]"), v)?;
                if !(p.is_finite() && (0.0..=1.0).contains(&p)) {
                    return Err(ScenarioError::new(
                        format!("{f}.cdf[{k}]"),
                        format!("must be a probability in [0, 1], got {p}"),
                    ));
                }
                if k > 0 && (v < values[k - 1] || p < cdf[k - 1]) {
                    return Err(ScenarioError::new(
                        f,
                        format!("not monotone at point {k}: values and cdf must be non-decreasing"),
                    ));
                }
            }
            if (cdf[cdf.len() - 1] - 1.0).abs() > 1e-9 {
                return Err(ScenarioError::new(
                    format!("{f}.cdf"),
                    format!("must end at 1, ends at {}", cdf[cdf.len() - 1]),
                ));
            }
        }
    }
    Ok(())
}

/// Draw element `i` of `d` (the flow's or transfer's index, used by `list`).
pub(crate) fn draw(d: &Dist, i: usize, rng: &mut crate::rng::Rng) -> f64 {
    match d {
        Dist::Uniform([a, b]) => a + (b - a) * rng.next_f64(),
        Dist::List(v) => v[i % v.len()],
        Dist::Fixed(x) => *x,
        // The width b - a + 1 overflows only for the full range [0, 2^64 - 1], where every
        // draw of the generator is already uniform over the range.
        Dist::IntUniform([a, b]) => match (b - a).checked_add(1) {
            Some(width) => (a + rng.next_u64() % width) as f64,
            None => rng.next_u64() as f64,
        },
        Dist::Exponential(m) => -m * (1.0 - rng.next_f64()).ln(),
        Dist::Pareto { shape, mean } => {
            let xm = mean * (shape - 1.0) / shape;
            xm / (1.0 - rng.next_f64()).powf(1.0 / shape)
        }
        Dist::Empirical { values, cdf } => {
            let u = rng.next_f64();
            if u < cdf[0] {
                return values[0];
            }
            let k = cdf.partition_point(|&p| p <= u).clamp(1, cdf.len() - 1);
            let (p0, p1) = (cdf[k - 1], cdf[k]);
            if p1 <= p0 {
                values[k]
            } else {
                values[k - 1] + (values[k] - values[k - 1]) * (u - p0) / (p1 - p0)
            }
        }
    }
}
