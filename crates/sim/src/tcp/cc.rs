//! The congestion-control trait and the registry of implementations.
//!
//! A congestion control only decides how the window grows and how far it falls; loss detection,
//! retransmission and fast recovery live in the sender. Adding a variant = one file implementing
//! [`CongestionControl`] + one line in [`REGISTRY`].
use super::params::TcpParams;
use crate::time::Ns;

/// Window state shared between the sender and its congestion control (segments).
#[derive(Debug, Clone, Copy)]
pub struct Window {
    pub cwnd: f64,
    pub ssthresh: f64,
}

/// What the sender tells the congestion control on an ACK that advances snd_una.
#[derive(Debug, Clone, Copy)]
pub struct AckInfo {
    /// Segments newly acknowledged by this ACK.
    pub acked: u32,
    /// Current time.
    pub now: Ns,
    /// The RTT sample taken from this ACK, if any (Karn's rule applied).
    pub rtt_sample: Option<Ns>,
    /// Smoothed RTT, if known.
    pub srtt: Option<Ns>,
    /// Segments in flight before this ACK.
    pub flight: u32,
}

pub use super::rate::RateSample;

/// The sender's loss-recovery state, as Linux's `icsk_ca_state` tells it to a control.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum CaState {
    /// No recovery under way.
    Open,
    /// Fast recovery (duplicate ACKs or SACK found a loss).
    Recovery,
    /// After a retransmission timeout, until what was outstanding then is acknowledged.
    Loss,
}

/// What a model-based control sees of the connection on each ACK (with its rate sample).
#[derive(Debug, Clone, Copy)]
pub struct ConnState {
    pub now: Ns,
    /// Segments delivered so far (Linux `tp->delivered`).
    pub delivered: u64,
    /// When `delivered` last changed.
    pub delivered_time: Ns,
    /// Segments ever deemed lost (Linux `tp->lost`; a timeout counts all then outstanding).
    pub lost: u64,
    /// Segments in the pipe after this ACK was processed (before anything new is sent).
    pub in_flight: u32,
    pub state: CaState,
    /// Smoothed RTT and the connection's smallest RTT sample, if any.
    pub srtt: Option<Ns>,
    pub min_rtt: Option<Ns>,
    /// Payload bytes per segment (the MSS).
    pub mss: u32,
}

pub trait CongestionControl: Send {
    /// Window growth on an ACK of new data outside loss recovery.
    fn on_ack(&mut self, w: &mut Window, ack: &AckInfo);
    /// New ssthresh when a loss is detected by duplicate ACKs (fast retransmit).
    fn ssthresh_on_loss(&mut self, w: &Window, flight: u32, now: Ns) -> f64;
    /// Retransmission timeout: set ssthresh (cwnd is set to 1 segment by the sender).
    fn on_timeout(&mut self, w: &mut Window, flight: u32, now: Ns) {
        w.ssthresh = self.ssthresh_on_loss(w, flight, now);
    }
    /// ECN: the new ssthresh when the sender answers ECE (at most once per window; the sender
    /// then sets cwnd to it). Default: the control's loss rule (RFC 3168 §6.1.2).
    fn ssthresh_on_ece(&mut self, w: &Window, flight: u32, now: Ns) -> f64 {
        self.ssthresh_on_loss(w, flight, now)
    }
    /// ECN: every ACK of a connection running ECN, after the sender processed it: the segments
    /// it newly acknowledged, whether it carried ECE, and snd_una / snd_max after it (DCTCP's
    /// estimate of the marked fraction). Default: nothing.
    fn on_ecn_ack(&mut self, _acked: u32, _ece: bool, _snd_una: u32, _snd_max: u32) {}
    /// The control needs DCTCP's ECN (RFC 8257 §3.2 echo, every segment ECT), whatever the
    /// connection's `ecn` setting says. Default false.
    fn needs_dctcp_ecn(&self) -> bool {
        false
    }
    /// Pacing: the rate (segments per second) at which new segments may leave, or None to
    /// send as fast as the window allows (the default). Asked before every transmission
    /// opportunity; retransmissions are not paced.
    fn pacing_rate(&self, _w: &Window, _srtt: Option<Ns>) -> Option<f64> {
        None
    }
    /// Paced controls: the next gap between new segments is this draw (mean 1) times
    /// 1/`pacing_rate`. 1 (the default) spreads segments evenly; `poisson-paced` returns
    /// exponential draws from its own seeded stream. Asked once per paced segment.
    fn pacing_gap_scale(&self) -> f64 {
        1.0
    }
    /// Model-based controls (registered with `model: true`, e.g. BBR): called on every ACK,
    /// in and out of recovery, after the sender's loss detection and before it sends, with
    /// the ACK's delivery-rate sample. The control sets `w.cwnd` itself (the sender then
    /// neither inflates, deflates nor resets it in recovery, and does not call `on_ack`).
    /// Returns true to mark the connection application-limited from here (the samples of
    /// what is sent next do not lower a bandwidth estimate; BBR's PROBE_RTT does this).
    fn on_rate_sample(&mut self, _w: &mut Window, _rs: &RateSample, _c: &ConnState) -> bool {
        false
    }
}

/// What a congestion control is built from: the flow's TCP settings, the scenario seed and the
/// flow's index (a control that needs randomness derives its own stream from the last two).
#[derive(Debug, Clone, Copy)]
pub struct CcContext<'a> {
    pub tcp: &'a TcpParams,
    pub seed: u64,
    pub flow: u64,
}

/// How the sender recovers from a loss detected by duplicate ACKs (when SACK is off).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Recovery {
    /// RFC 5681 fast recovery: leave recovery on the first ACK of new data.
    Reno,
    /// RFC 6582: stay in recovery until everything outstanding at the loss is acknowledged,
    /// retransmitting on each partial ACK.
    NewReno,
}

pub struct Registration {
    pub name: &'static str,
    pub recovery: Recovery,
    pub make: fn(&CcContext) -> Box<dyn CongestionControl>,
    /// The control may return a pacing rate. False lets the sender skip asking on every ACK
    /// (a test checks that such controls never pace).
    pub paced: bool,
    /// Model-based: the sender keeps delivery-rate samples for it, calls `on_rate_sample` on
    /// every ACK and leaves cwnd to it in recovery too (Linux's `cong_control` hook).
    pub model: bool,
    /// One line for `--help` and the docs: what it is and the source followed.
    pub about: &'static str,
}

impl Registration {
    /// A fresh instance for flow `flow` of a run seeded with `seed`.
    pub fn build(&self, tcp: &TcpParams, seed: u64, flow: u64) -> Box<dyn CongestionControl> {
        (self.make)(&CcContext { tcp, seed, flow })
    }
}

/// All known congestion controls (one line each).
#[rustfmt::skip]
pub static REGISTRY: &[Registration] = &[
    Registration { name: "newreno", recovery: Recovery::NewReno, paced: false, model: false, make: super::reno::make,
        about: "Reno AIMD (RFC 5681) with NewReno recovery (RFC 6582)" },
    Registration { name: "reno", recovery: Recovery::Reno, paced: false, model: false, make: super::reno::make,
        about: "Reno AIMD with RFC 5681 fast recovery (leaves recovery on the first new ACK)" },
    Registration { name: "newreno-paced", recovery: Recovery::NewReno, paced: true, model: false, make: super::reno::make_paced,
        about: "NewReno paced at Linux's gains: 2 (slow start) / 1.2 (avoidance) x cwnd/SRTT" },
    Registration { name: "paced", recovery: Recovery::NewReno, paced: true, model: false, make: super::paced::make_even,
        about: "NewReno paced evenly at cwnd/SRTT (paper 002 section III)" },
    Registration { name: "poisson-paced", recovery: Recovery::NewReno, paced: true, model: false, make: super::paced::make_poisson,
        about: "NewReno with exponential gaps of mean SRTT/cwnd (paper 002 section II, Theorem 1)" },
    Registration { name: "cubic", recovery: Recovery::NewReno, paced: false, model: false, make: super::cubic::make,
        about: "CUBIC, RFC 9438 / Linux >= 2.6.26, beta 0.7 (CUBIC'' of paper 003)" },
    Registration { name: "cubic-0.8", recovery: Recovery::NewReno, paced: false, model: false, make: super::cubic::make_08,
        about: "CUBIC of Linux <= 2.6.25, beta 0.8 (CUBIC' of paper 003)" },
    Registration { name: "bic", recovery: Recovery::NewReno, paced: false, model: false, make: super::bic::make,
        about: "BIC, Linux tcp_bic.c (binary search, Smax 16, low_window 14, beta 819/1024)" },
    Registration { name: "ctcp", recovery: Recovery::NewReno, paced: false, model: false, make: super::ctcp::make,
        about: "Compound TCP (Tan et al. 2006): Reno loss window + delay window, gamma 30" },
    Registration { name: "dctcp", recovery: Recovery::NewReno, paced: false, model: false, make: super::dctcp::make,
        about: "DCTCP, RFC 8257: cwnd x (1 - alpha/2) once per window of ECE, alpha EWMA g = 1/16; loss as Reno" },
    Registration { name: "bbr", recovery: Recovery::NewReno, paced: true, model: true, make: super::bbr::make,
        about: "BBR v1 as Linux tcp_bbr.c: max-bw filter 10 rounds, min-RTT 10 s, gain cycle, PROBE_RTT" },
];

pub fn lookup(name: &str) -> Option<&'static Registration> {
    REGISTRY.iter().find(|r| r.name == name)
}

pub fn names() -> Vec<&'static str> {
    REGISTRY.iter().map(|r| r.name).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `paced: false` lets the sender skip `pacing_rate`, so it must mean the control never
    /// paces; and a control flagged paced does pace once it has an RTT.
    #[test]
    fn the_paced_flag_matches_what_each_control_does() {
        let tcp = TcpParams::default();
        for reg in REGISTRY {
            let mut cc = reg.build(&tcp, 1, 0);
            let mut paces = false;
            for (cwnd, ssthresh) in [(2.0, f64::INFINITY), (10.0, 5.0), (300.0, 200.0)] {
                let mut w = Window { cwnd, ssthresh };
                for srtt in [None, Some(50_000_000), Some(2_000_000)] {
                    let ack = AckInfo {
                        acked: 1,
                        now: 1_000_000_000,
                        rtt_sample: srtt,
                        srtt,
                        flight: cwnd as u32,
                    };
                    cc.on_ack(&mut w, &ack);
                    paces |= cc.pacing_rate(&w, srtt).is_some();
                }
            }
            assert_eq!(paces, reg.paced, "{}", reg.name);
        }
    }
}
