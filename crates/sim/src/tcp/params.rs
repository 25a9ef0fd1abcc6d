//! The TCP side's own parameters: what a sender and a congestion control are built from. The
//! scenario schema (`scenario::TcpConfig`) converts itself into this type, so nothing under
//! `tcp/` depends on the input schema.

/// Sender and congestion-control settings of one connection. Sequence numbers count whole
/// segments: a data packet is `packet_bytes` on the wire with `packet_bytes - header_bytes` of
/// payload.
#[derive(Debug, Clone, PartialEq)]
pub struct TcpParams {
    /// SACK-based loss recovery (RFC 6675).
    pub sack: bool,
    /// Size of a data packet on the wire, bytes.
    pub packet_bytes: u32,
    /// Header part of `packet_bytes`; the payload (MSS) is the rest.
    pub header_bytes: u32,
    /// Initial congestion window, segments.
    pub initial_window: u32,
    /// Lower bound of the retransmission timeout, seconds.
    pub min_rto_s: f64,
    /// Upper bound of the backed-off RTO, seconds.
    pub max_rto_s: f64,
    /// RTO before the first RTT sample, seconds.
    pub initial_rto_s: f64,
    /// Window cap in segments (socket buffer / receive window), if any.
    pub max_window_packets: Option<u64>,
    /// Duplicate ACKs that trigger fast retransmit.
    pub dupack_threshold: u32,
    /// Proportional rate reduction (RFC 6937) in SACK recovery.
    pub prr: bool,
    /// How losses are detected: duplicate ACKs / DupThresh SACKed segments (RFC 5681, 6675)
    /// or by time (RACK-TLP, RFC 8985; only with `sack`, otherwise duplicate ACKs).
    pub loss_detection: LossDetection,
    /// CUBIC in whole segments, as Linux's `tcp_cubic` computes it (integer window grown through
    /// an ACK counter, ssthresh and W_max rounded down, the Reno estimate grown a whole segment
    /// at a time); off: the engine's continuous CUBIC. Only the "cubic" controls read it.
    pub cubic_integer: bool,
    /// PRR as Linux's `tcp_cwnd_reduction` instead of RFC 6937's PRR-SSRB: the proportional part
    /// scales by the window at the start of recovery (not FlightSize), the slow-start part sends
    /// one segment more than delivered only on an ACK that advances snd_una and marks no new
    /// loss, and an ACK that delivers nothing leaves the window as it is. Only with `prr`.
    pub prr_linux: bool,
    /// ns-3 3.37's PRR arithmetic (TcpPrrRecovery::DoRecovery): the proportional part's
    /// prr_delivered × ssthresh is a product of two 32-bit byte counts and wraps modulo 2^32, so
    /// once it passes 4 GiB (e.g. ~20 segments delivered with ssthresh 100 segments of 1448 B)
    /// the sender stops sending until pipe falls to ssthresh, and then sends one per ACK: the
    /// window's reduction comes as a gap of about half an RTT instead of spread over the RTT.
    /// Fixed in ns-3 after 3.37 (issue #1282). Only with `prr` and without `prr_linux`.
    pub prr_wraps_32bit: bool,
    /// The FlightSize a loss-based control halves (or scales by β) when it enters recovery or
    /// times out.
    pub flight_size: FlightSize,
    /// Segments one ACK may count towards Reno/NewReno growth (2: RFC 3465's L; 1: per ACK, as
    /// ns-3's TcpNewReno and ns-2). Only the Reno-family controls read it.
    pub abc_limit: u32,
    /// Limited transmit (RFC 3042): one new segment on each of the first two duplicate ACKs
    /// (duplicate-ACK loss detection only; with RACK the sender follows its own rules).
    pub limited_transmit: bool,
    /// Reno (RFC 5681 recovery) fast-retransmits only once the cumulative ACK has passed the
    /// highest segment sent at the last fast retransmit or timeout, as NewReno always does
    /// (RFC 6582 §4.1's careful variant; ns-2's `bugfix_`, on by default there): a second loss
    /// in the same window then waits for the timeout instead of halving the window again.
    /// Read by "reno" without SACK only.
    pub reno_careful: bool,
    /// ns-2's halving (`TcpAgent::slowdown` with CLOSE_SSTHRESH_HALF | CLOSE_CWND_HALF, and
    /// Agent/TCP/Reno's exit from fast recovery), for the loss-based controls without SACK: a loss
    /// sets ssthresh to ⌊W/2⌋ (at least 2) and the window to W/2 with its fraction, W the window
    /// when the loss is found (at most the window cap); the recovery ends at that fractional
    /// window, and the ACK that ends it grows it by 1/W as any congestion-avoidance ACK. A
    /// timeout sets ssthresh to ⌊W/2⌋ likewise. Without it ssthresh is half the whole window
    /// counted up, and the recovery ends at ssthresh with no growth on that ACK. The fraction
    /// decides when each flow's next increase falls, and so which flows a full drop-tail
    /// queue drops together. Approximation: below a window of 4 the recovery ends at ssthresh 2,
    /// where ns-2 keeps cwnd_ at W/2 (at least 1).
    pub ns2_halving: bool,
    /// CUBIC's Reno-friendly region (RFC 9438 §4.3): on in Linux; ns-3 3.37's TcpCubic has none.
    /// Only the "cubic" controls read it.
    pub cubic_reno_friendly: bool,
    /// CUBIC's HyStart (Linux's `tcp_cubic` `hystart`, both detections): leave slow start when a
    /// round's ACK train or its RTT says the path is full. Only the "cubic" controls read it.
    pub cubic_hystart: bool,
    /// A repeated timeout (no RTT sample since the last one) keeps ssthresh (RFC 5681 §3.1).
    pub repeat_rto_holds_ssthresh: bool,
    /// The minimum RTO is a floor on the variation term, above SRTT: RTO = SRTT + max(4·RTTVAR,
    /// min_rto), as Linux's tcp_rtt_estimator keeps rttvar at least TCP_RTO_MIN (so its RTO is at
    /// least RTT + 200 ms). Off: RFC 6298's RTO = max(min_rto, SRTT + 4·RTTVAR).
    pub rto_min_above_srtt: bool,
    /// A loss detected during an ECE reduction's episode (`Sender::in_cwr`) starts the recovery
    /// without a second reduction: ssthresh stays, the reduction's PRR goes on, and the recovery
    /// ends where the episode would have (Linux's tcp_enter_recovery, which reduces only when not
    /// already in CA_CWR; RFC 3168 §6.1.2: no second decrease within the same window). Off: the
    /// loss reduces again from the reduced window (ns-3 3.37's TcpSocketBase).
    pub loss_in_cwr_keeps_reduction: bool,
    /// Negotiate ECN (RFC 3168): both ends are taken to agree, so data leaves ECT(0) and the
    /// receiver echoes CE marks. A control that needs ECN (DCTCP) uses it whatever this says,
    /// as Linux does for a control with `TCP_CONG_NEEDS_ECN`.
    pub ecn: bool,
}

/// The ECN a connection runs (both ends agree in the engine: no negotiation is simulated).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[repr(u8)]
pub enum Ecn {
    /// Not-ECT packets, no echo.
    #[default]
    Off,
    /// RFC 3168: new data ECT(0) (retransmissions Not-ECT, as Linux), the receiver sets ECE on
    /// every ACK from a CE mark until a segment with CWR arrives, the sender reduces once per
    /// window.
    Classic,
    /// RFC 8257 (DCTCP): every data segment ECT(0), the receiver's ECE follows the CE bit of
    /// the segments it acknowledges (an immediate ACK when that bit changes).
    Dctcp,
}

/// What a sender hands its congestion control as FlightSize on a loss (RFC 5681 eq. (4)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FlightSize {
    /// snd_max - snd_una, the data sent and not cumulatively acknowledged (RFC 5681, RFC 6675
    /// §5 step 4.2), but never more than the window: with SACK it counts the segments SACKed
    /// above a hole, and a recovery that keeps sending while a hole waits can hold several
    /// windows there.
    #[default]
    Flight,
    /// The RFC 6675 pipe (SACKed and lost segments out, retransmissions in), as ns-3's
    /// `BytesInFlight()` at `EnterRecovery`; without SACK as `Flight`.
    Pipe,
    /// The congestion window, as Linux's `tcp_reno_ssthresh` (`max(cwnd/2, 2)`) and ns-2's
    /// `windowd()`.
    Cwnd,
}

impl FlightSize {
    /// Parse the scenario's name (`"flight"`, `"pipe"` or `"cwnd"`).
    pub fn from_name(name: &str) -> Option<FlightSize> {
        match name {
            "flight" => Some(FlightSize::Flight),
            "pipe" => Some(FlightSize::Pipe),
            "cwnd" => Some(FlightSize::Cwnd),
            _ => None,
        }
    }
}

/// Loss detection of a sender.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LossDetection {
    /// DupThresh duplicate ACKs or SACKed segments above a hole (RFC 5681 / RFC 6675).
    #[default]
    DupAck,
    /// RACK-TLP (RFC 8985): time-based detection plus tail-loss probes. Needs SACK.
    Rack,
}

impl LossDetection {
    /// Parse the scenario's name (`"dupack"` or `"rack"`).
    pub fn from_name(name: &str) -> Option<LossDetection> {
        match name {
            "dupack" => Some(LossDetection::DupAck),
            "rack" => Some(LossDetection::Rack),
            _ => None,
        }
    }
}

impl TcpParams {
    /// Payload bytes per segment.
    pub fn mss(&self) -> u32 {
        self.packet_bytes - self.header_bytes
    }
}

impl Default for TcpParams {
    /// The defaults of the scenario schema (a test there checks they agree).
    fn default() -> Self {
        TcpParams {
            sack: false,
            packet_bytes: 1000,
            header_bytes: 40,
            initial_window: 2,
            min_rto_s: 0.2,
            max_rto_s: 60.0,
            initial_rto_s: 1.0,
            max_window_packets: None,
            dupack_threshold: 3,
            prr: false,
            loss_detection: LossDetection::DupAck,
            cubic_integer: false,
            prr_linux: false,
            prr_wraps_32bit: false,
            flight_size: FlightSize::Flight,
            abc_limit: 2,
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
