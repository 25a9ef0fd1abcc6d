//! Traffic sources other than the long-lived and explicit bulk flows: open-loop short flows,
//! closed-loop users, and UDP. Each entry of `short_flows[]`, `users[]` and `udp[]` is one
//! source; the engine runs each through its module in `crate::traffic`.
//!
//! Paths default to the dumbbell's shared links (`["bn"]` forward, `["bnr"]` for ACKs); a
//! source's RTT (`rtt_s`) is its flows' two-way propagation delay, of which whatever the path's
//! links do not provide is added as a fixed delay between the last link and the endpoint (an
//! infinitely fast access link of that delay).
use super::topology::{check_dist, check_queue, Dist, QueueSpec};
use super::{check_tcp, finite_nonneg, finite_pos, ScenarioError, TcpConfig};
use serde::{Deserialize, Serialize};

/// Open-loop short TCP flows: transfers arrive as a Poisson process and each runs once from a
/// fresh connection (004 §4–5). Give the arrival intensity as exactly one of `load` (a fraction
/// of `load_link`'s rate, which must be below 1), `rate_bps` (offered bits per second) or
/// `arrivals_per_s`. The offered load counts every segment of a transfer once, at its wire size.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ShortFlows {
    /// Label in the results (default `short{i}`).
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub path: Option<Vec<String>>,
    #[serde(default)]
    pub ack_path: Option<Vec<String>>,
    #[serde(default)]
    pub load: Option<f64>,
    /// The link `load` refers to (default: the bottleneck).
    #[serde(default)]
    pub load_link: Option<String>,
    #[serde(default)]
    pub rate_bps: Option<f64>,
    #[serde(default)]
    pub arrivals_per_s: Option<f64>,
    /// Transfer size: payload bytes (`size_bytes`) or segments (`size_packets`, rounded up to
    /// whole segments); exactly one.
    #[serde(default)]
    pub size_bytes: Option<Dist>,
    #[serde(default)]
    pub size_packets: Option<Dist>,
    /// Two-way propagation delay of each transfer, drawn per transfer.
    pub rtt_s: Dist,
    /// Arrivals happen in [start_s, stop_s) (default: the whole run).
    #[serde(default)]
    pub start_s: f64,
    #[serde(default)]
    pub stop_s: Option<f64>,
    #[serde(default)]
    pub tcp: TcpConfig,
}

/// Closed-loop users (Harpoon-like, 000 §III): each of `count` users fetches a file, thinks,
/// fetches the next, for the whole run. Each user keeps one RTT (drawn once). With
/// `access_rate_bps` the users sit behind input links of that rate (`inputs` of them, users
/// spread over them round-robin; default one per user), so Γ = C_out / C_in is a parameter.
/// Defaults follow 000: Pareto sizes with mean 80 KB and shape 1.5, exponential think times with
/// mean 1 s, first transfer after one think time.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Users {
    /// Label in the results (default `users{i}`).
    #[serde(default)]
    pub name: Option<String>,
    pub count: u32,
    #[serde(default)]
    pub path: Option<Vec<String>>,
    #[serde(default)]
    pub ack_path: Option<Vec<String>>,
    #[serde(default)]
    pub access_rate_bps: Option<f64>,
    /// Number of input links the users share (default: `count`, one each).
    #[serde(default)]
    pub inputs: Option<u32>,
    #[serde(default)]
    pub access_queue: QueueSpec,
    #[serde(default)]
    pub size_bytes: Option<Dist>,
    #[serde(default)]
    pub size_packets: Option<Dist>,
    #[serde(default)]
    pub think_s: Option<Dist>,
    pub rtt_s: Dist,
    /// Time of each user's first transfer (default: one think time after 0).
    #[serde(default)]
    pub start_s: Option<Dist>,
    #[serde(default)]
    pub tcp: TcpConfig,
}

/// How a UDP source spaces its packets (the mean rate is always `rate_bps`).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum UdpPattern {
    /// Constant bit rate: equal gaps.
    Cbr,
    /// Exponential gaps.
    Poisson,
    /// Pareto gaps of the given shape (> 1), mean gap = packet bits / rate (001 §V-A).
    Pareto { shape: f64 },
    /// On/off: Pareto on and off periods (means `on_s`, `off_s`, one shape); during an on
    /// period packets leave at the peak rate rate_bps·(on_s + off_s)/on_s.
    ParetoOnOff { shape: f64, on_s: f64, off_s: f64 },
}

fn d_udp_packet() -> u32 {
    1000
}

/// A UDP source: packets along `path` (default `["bn"]`) to a sink, no feedback.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Udp {
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub path: Option<Vec<String>>,
    /// Mean rate, bit/s (wire bytes).
    pub rate_bps: f64,
    #[serde(default = "d_udp_packet")]
    pub packet_bytes: u32,
    #[serde(default = "d_pattern")]
    pub pattern: UdpPattern,
    #[serde(default)]
    pub start_s: f64,
    #[serde(default)]
    pub stop_s: Option<f64>,
}

fn d_pattern() -> UdpPattern {
    UdpPattern::Cbr
}

/// Default size of a closed-loop user's file: Pareto, mean 80 KB, shape 1.5 (000 §III).
pub fn default_user_size() -> Dist {
    Dist::Pareto {
        shape: 1.5,
        mean: 80_000.0,
    }
}

/// Default think time: exponential with mean 1 s (000 §III).
pub fn default_think() -> Dist {
    Dist::Exponential(1.0)
}

fn check_path(field: &str, p: &Option<Vec<String>>) -> Result<(), ScenarioError> {
    if let Some(p) = p {
        if p.is_empty() || p.len() > 200 {
            return Err(ScenarioError::new(
                field,
                "must name between 1 and 200 links",
            ));
        }
    }
    Ok(())
}

fn check_window(field: &str, start: f64, stop: Option<f64>) -> Result<(), ScenarioError> {
    finite_nonneg(&format!("{field}.start_s"), start)?;
    if let Some(s) = stop {
        finite_pos(&format!("{field}.stop_s"), s)?;
        if s <= start {
            return Err(ScenarioError::new(
                format!("{field}.stop_s"),
                format!("must be after start_s ({start}), got {s}"),
            ));
        }
    }
    Ok(())
}

/// The size distribution given (exactly one of bytes / packets) and its field name.
pub(crate) fn size_of<'a>(
    field: &str,
    bytes: &'a Option<Dist>,
    packets: &'a Option<Dist>,
) -> Result<Option<(&'a Dist, bool)>, ScenarioError> {
    match (bytes, packets) {
        (Some(_), Some(_)) => Err(ScenarioError::new(
            field,
            "give size_bytes or size_packets, not both",
        )),
        (Some(d), None) => {
            check_dist(&format!("{field}.size_bytes"), d, false)?;
            Ok(Some((d, false)))
        }
        (None, Some(d)) => {
            check_dist(&format!("{field}.size_packets"), d, false)?;
            Ok(Some((d, true)))
        }
        (None, None) => Ok(None),
    }
}

impl ShortFlows {
    pub(crate) fn check(&self, field: &str) -> Result<(), ScenarioError> {
        check_path(&format!("{field}.path"), &self.path)?;
        check_path(&format!("{field}.ack_path"), &self.ack_path)?;
        let given = [self.load, self.rate_bps, self.arrivals_per_s]
            .iter()
            .filter(|x| x.is_some())
            .count();
        if given != 1 {
            return Err(ScenarioError::new(
                field,
                "give exactly one of load, rate_bps or arrivals_per_s",
            ));
        }
        if let Some(l) = self.load {
            if !(l.is_finite() && l > 0.0 && l < 1.0) {
                return Err(ScenarioError::new(
                    format!("{field}.load"),
                    format!("open-loop arrivals need a load in (0, 1), got {l}"),
                ));
            }
        }
        if let Some(r) = self.rate_bps {
            finite_pos(&format!("{field}.rate_bps"), r)?;
        }
        if let Some(r) = self.arrivals_per_s {
            finite_pos(&format!("{field}.arrivals_per_s"), r)?;
        }
        if size_of(field, &self.size_bytes, &self.size_packets)?.is_none() {
            return Err(ScenarioError::new(
                field,
                "needs a size distribution (size_bytes or size_packets)",
            ));
        }
        check_dist(&format!("{field}.rtt_s"), &self.rtt_s, true)?;
        check_window(field, self.start_s, self.stop_s)?;
        check_tcp(&format!("{field}.tcp"), &self.tcp)
    }
}

impl Users {
    pub(crate) fn check(&self, field: &str) -> Result<(), ScenarioError> {
        if self.count == 0 {
            return Err(ScenarioError::new(
                format!("{field}.count"),
                "must be at least 1",
            ));
        }
        check_path(&format!("{field}.path"), &self.path)?;
        check_path(&format!("{field}.ack_path"), &self.ack_path)?;
        if let Some(a) = self.access_rate_bps {
            finite_pos(&format!("{field}.access_rate_bps"), a)?;
        }
        if let Some(n) = self.inputs {
            if n == 0 || n > self.count {
                return Err(ScenarioError::new(
                    format!("{field}.inputs"),
                    format!("must be between 1 and count ({}), got {n}", self.count),
                ));
            }
            if self.access_rate_bps.is_none() {
                return Err(ScenarioError::new(
                    format!("{field}.inputs"),
                    "input links need access_rate_bps",
                ));
            }
        }
        check_queue(&format!("{field}.access_queue"), &self.access_queue)?;
        size_of(field, &self.size_bytes, &self.size_packets)?;
        if let Some(t) = &self.think_s {
            check_dist(&format!("{field}.think_s"), t, true)?;
        }
        check_dist(&format!("{field}.rtt_s"), &self.rtt_s, true)?;
        if let Some(s) = &self.start_s {
            check_dist(&format!("{field}.start_s"), s, true)?;
        }
        check_tcp(&format!("{field}.tcp"), &self.tcp)
    }
}

impl Udp {
    pub(crate) fn check(&self, field: &str) -> Result<(), ScenarioError> {
        check_path(&format!("{field}.path"), &self.path)?;
        finite_pos(&format!("{field}.rate_bps"), self.rate_bps)?;
        if self.packet_bytes == 0 || self.packet_bytes > 65_535 {
            return Err(ScenarioError::new(
                format!("{field}.packet_bytes"),
                "must be between 1 and 65535",
            ));
        }
        let shape_ok = |s: f64| s.is_finite() && s > 1.0;
        match &self.pattern {
            UdpPattern::Cbr | UdpPattern::Poisson => {}
            UdpPattern::Pareto { shape } => {
                if !shape_ok(*shape) {
                    return Err(ScenarioError::new(
                        format!("{field}.pattern.pareto.shape"),
                        format!("must be above 1 for a finite mean, got {shape}"),
                    ));
                }
            }
            UdpPattern::ParetoOnOff { shape, on_s, off_s } => {
                if !shape_ok(*shape) {
                    return Err(ScenarioError::new(
                        format!("{field}.pattern.pareto_on_off.shape"),
                        format!("must be above 1 for a finite mean, got {shape}"),
                    ));
                }
                finite_pos(&format!("{field}.pattern.pareto_on_off.on_s"), *on_s)?;
                finite_nonneg(&format!("{field}.pattern.pareto_on_off.off_s"), *off_s)?;
            }
        }
        check_window(field, self.start_s, self.stop_s)
    }
}
