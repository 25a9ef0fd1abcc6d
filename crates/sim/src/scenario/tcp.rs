//! Per-flow TCP settings: congestion control, recovery options, segment sizes, timers.
use super::{finite_pos, ScenarioError};
use crate::tcp::params::{FlightSize, LossDetection, TcpParams};
use serde::{Deserialize, Serialize};

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
fn d_true() -> bool {
    true
}
fn is_true(v: &bool) -> bool {
    *v
}
fn d_abc_limit() -> u32 {
    2
}
fn is_abc_default(v: &u32) -> bool {
    *v == 2
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
fn d_loss_detection() -> String {
    "dupack".to_string()
}
fn is_dupack(s: &String) -> bool {
    s == "dupack"
}
fn d_flight_size() -> String {
    "flight".to_string()
}
fn is_flight(s: &String) -> bool {
    s == "flight"
}
fn is_zero(x: &f64) -> bool {
    *x == 0.0
}
fn is_false(b: &bool) -> bool {
    !*b
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
    /// Loss detection: `"dupack"` (default: DupThresh duplicate ACKs, or DupThresh SACKed
    /// segments above a hole with `sack`, as ns-2/ns-3) or `"rack"` (RACK-TLP, RFC 8985, as
    /// Linux: a segment is lost once one sent after it was delivered and a reordering window
    /// has passed, and a tail-loss probe replaces most tail timeouts). RACK needs `sack`;
    /// without it the sender uses duplicate ACKs.
    #[serde(default = "d_loss_detection", skip_serializing_if = "is_dupack")]
    pub loss_detection: String,
    /// CUBIC in whole segments as Linux's `tcp_cubic` (default off: continuous CUBIC): integer
    /// cwnd grown through an ACK counter, ssthresh = ⌊β·cwnd⌋, the Reno-friendly estimate grown
    /// a whole segment at a time. Read by the "cubic" controls only.
    #[serde(default, skip_serializing_if = "is_false")]
    pub cubic_integer: bool,
    /// PRR as Linux's `tcp_cwnd_reduction` (default off: RFC 6937 PRR-SSRB): proportional to the
    /// window at the start of recovery, one extra segment only when snd_una advances without a
    /// new loss, no change on an ACK that delivers nothing. Only with `prr`.
    #[serde(default, skip_serializing_if = "is_false")]
    pub prr_linux: bool,
    /// ns-3 3.37's PRR arithmetic (default off): the proportional part's prr_delivered ×
    /// ssthresh, in bytes, wraps modulo 2^32 as in ns-3 3.37's TcpPrrRecovery (fixed after it).
    /// Only with `prr` and without `prr_linux`.
    #[serde(default, skip_serializing_if = "is_false")]
    pub prr_wraps_32bit: bool,
    /// FlightSize that a loss halves (Reno/NewReno; CUBIC, BIC, Compound and BBR use their
    /// own rules): `"flight"` (default: snd_max - snd_una, RFC 5681, but at most the window),
    /// `"pipe"` (with SACK the RFC 6675 pipe, as ns-3's BytesInFlight) or `"cwnd"` (the window,
    /// as Linux's `tcp_reno_ssthresh` and ns-2).
    #[serde(default = "d_flight_size", skip_serializing_if = "is_flight")]
    pub flight_size: String,
    /// Host jitter, seconds (default 0: none, the engine's deterministic timing): each data
    /// segment reaches the receiver's TCP, and each ACK the sender's, after an extra uniform
    /// random delay on [0, host_jitter_s], in order within the flow (interrupt coalescing and
    /// scheduling at real hosts; without it identical RTTs lock the flows' phases).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub host_jitter_s: f64,
    /// Segments an ACK may count towards Reno/NewReno window growth (default 2: appropriate byte
    /// counting with L = 2, RFC 3465, which with delayed ACKs grows like Linux; 1: one segment per
    /// ACK whatever it covers, as ns-3's TcpNewReno and ns-2's agents, so delayed ACKs halve the
    /// growth). Read by "reno", "newreno" and "newreno-paced" only.
    #[serde(default = "d_abc_limit", skip_serializing_if = "is_abc_default")]
    pub abc_limit: u32,
    /// Limited transmit (RFC 3042; default off): each of the first two duplicate ACKs lets one
    /// new segment out, the window unchanged, so a small window can still gather the duplicate
    /// ACKs of a fast retransmit. On in ns-3 (`TcpSocketBase::LimitedTransmit`) and ns-2
    /// (`singledup_`). Duplicate-ACK detection only.
    #[serde(default, skip_serializing_if = "is_false")]
    pub limited_transmit: bool,
    /// Reno's fast retransmit only after the ACKs pass the last recovery point, as NewReno's
    /// (default off; ns-2's `bugfix_`): see `TcpParams::reno_careful`. "reno" without SACK only.
    #[serde(default, skip_serializing_if = "is_false")]
    pub reno_careful: bool,
    /// ns-2's halving (default off): ssthresh ⌊W/2⌋, the window W/2 with its fraction through
    /// the recovery; see `TcpParams::ns2_halving`. Loss-based controls without SACK.
    #[serde(default, skip_serializing_if = "is_false")]
    pub ns2_halving: bool,
    /// CUBIC's Reno-friendly region (RFC 9438 §4.3; default on, as Linux): below the window an
    /// AIMD flow would have, CUBIC grows at that flow's rate. ns-3 3.37's TcpCubic has none.
    /// Read by the "cubic" controls only.
    #[serde(default = "d_true", skip_serializing_if = "is_true")]
    pub cubic_reno_friendly: bool,
    /// CUBIC's HyStart (Linux's default: on in the linux profile, which sets it; off when a
    /// scenario leaves it out): slow start ends when a round's ACK train spans half the minimum
    /// RTT or its RTT rises by an eighth of it (4–16 ms). Read by the "cubic" controls only.
    #[serde(default, skip_serializing_if = "is_false")]
    pub cubic_hystart: bool,
    /// A repeated retransmission timeout (the timer fires again before a new RTT sample) keeps
    /// ssthresh (RFC 5681 §3.1, ns-3's TcpSocketBase in CA_LOSS, Linux's Loss state); default off:
    /// every timeout halves what is outstanding, one retransmission on a repeat, so ssthresh
    /// falls to 2 (ns-2's slowdown(), the engine's behaviour so far).
    #[serde(default, skip_serializing_if = "is_false")]
    pub repeat_rto_holds_ssthresh: bool,
    /// ECN (RFC 3168; default off): data leaves ECT(0), a queue discipline with ECN on marks it
    /// CE instead of dropping it, the receiver echoes ECE until CWR and the sender reduces its
    /// window once per window of data, as for a loss but retransmitting nothing. Both ends are
    /// taken to agree (no handshake is simulated). `"dctcp"` runs ECN whatever this says.
    #[serde(default, skip_serializing_if = "is_false")]
    pub ecn: bool,
    /// The minimum RTO bounds the variation term above SRTT (RTO = SRTT + max(4·RTTVAR,
    /// min_rto_s), Linux's rule: at least RTT + 200 ms) instead of the whole RTO (RFC 6298,
    /// ns-3, ns-2; the default).
    #[serde(default, skip_serializing_if = "is_false")]
    pub rto_min_above_srtt: bool,
    /// With ECN: a loss found during an ECE reduction's episode does not reduce the window again
    /// (Linux, RFC 3168 §6.1.2) instead of reducing it twice (ns-3; the default).
    #[serde(default, skip_serializing_if = "is_false")]
    pub loss_in_cwr_keeps_reduction: bool,
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
            loss_detection: d_loss_detection(),
            cubic_integer: false,
            prr_linux: false,
            prr_wraps_32bit: false,
            flight_size: d_flight_size(),
            host_jitter_s: 0.0,
            abc_limit: d_abc_limit(),
            limited_transmit: false,
            reno_careful: false,
            ns2_halving: false,
            cubic_reno_friendly: true,
            cubic_hystart: false,
            repeat_rto_holds_ssthresh: false,
            ecn: false,
            rto_min_above_srtt: false,
            loss_in_cwr_keeps_reduction: false,
        }
    }
}

impl From<&TcpConfig> for TcpParams {
    /// The sender's and the congestion control's share of the settings (the receiver's, the
    /// delayed ACKs and ACK size, and the control's name stay with the engine).
    fn from(t: &TcpConfig) -> TcpParams {
        TcpParams {
            sack: t.sack,
            packet_bytes: t.packet_bytes,
            header_bytes: t.header_bytes,
            initial_window: t.initial_window,
            min_rto_s: t.min_rto_s,
            max_rto_s: t.max_rto_s,
            initial_rto_s: t.initial_rto_s,
            max_window_packets: t.max_window_packets,
            dupack_threshold: t.dupack_threshold,
            prr: t.prr,
            loss_detection: LossDetection::from_name(&t.loss_detection)
                .unwrap_or(LossDetection::DupAck),
            cubic_integer: t.cubic_integer,
            prr_linux: t.prr_linux,
            prr_wraps_32bit: t.prr_wraps_32bit,
            flight_size: FlightSize::from_name(&t.flight_size).unwrap_or_default(),
            abc_limit: t.abc_limit,
            limited_transmit: t.limited_transmit,
            reno_careful: t.reno_careful,
            ns2_halving: t.ns2_halving,
            cubic_reno_friendly: t.cubic_reno_friendly,
            cubic_hystart: t.cubic_hystart,
            repeat_rto_holds_ssthresh: t.repeat_rto_holds_ssthresh,
            ecn: t.ecn,
            rto_min_above_srtt: t.rto_min_above_srtt,
            loss_in_cwr_keeps_reduction: t.loss_in_cwr_keeps_reduction,
        }
    }
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
    if t.abc_limit == 0 {
        return Err(ScenarioError::new(
            format!("{field}.abc_limit"),
            "must be at least 1 (segments an ACK may count)",
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
    if LossDetection::from_name(&t.loss_detection).is_none() {
        return Err(ScenarioError::new(
            format!("{field}.loss_detection"),
            format!(
                "unknown loss detection {:?} (known: dupack, rack)",
                t.loss_detection
            ),
        ));
    }
    if !(t.host_jitter_s.is_finite() && (0.0..=1.0).contains(&t.host_jitter_s)) {
        return Err(ScenarioError::new(
            format!("{field}.host_jitter_s"),
            format!("must be between 0 and 1 s, got {}", t.host_jitter_s),
        ));
    }
    if FlightSize::from_name(&t.flight_size).is_none() {
        return Err(ScenarioError::new(
            format!("{field}.flight_size"),
            format!(
                "unknown flight size {:?} (known: flight, pipe, cwnd)",
                t.flight_size
            ),
        ));
    }
    if t.dupack_threshold == 0 || t.dupack_threshold > 65_535 {
        return Err(ScenarioError::new(
            format!("{field}.dupack_threshold"),
            "must be between 1 and 65535",
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_schema_defaults_are_the_tcp_sides_defaults() {
        assert_eq!(TcpParams::from(&TcpConfig::default()), TcpParams::default());
    }
}
