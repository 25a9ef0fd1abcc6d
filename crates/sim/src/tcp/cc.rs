//! The congestion-control trait and the registry of implementations.
//!
//! A congestion control only decides how the window grows and how far it falls; loss detection,
//! retransmission and fast recovery live in the sender. Adding a variant = one file implementing
//! [`CongestionControl`] + one line in [`REGISTRY`].
use crate::scenario::TcpConfig;
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

pub trait CongestionControl: Send {
    /// Window growth on an ACK of new data outside loss recovery.
    fn on_ack(&mut self, w: &mut Window, ack: &AckInfo);
    /// New ssthresh when a loss is detected by duplicate ACKs (fast retransmit).
    fn ssthresh_on_loss(&mut self, w: &Window, flight: u32, now: Ns) -> f64;
    /// Retransmission timeout: set ssthresh (cwnd is set to 1 segment by the sender).
    fn on_timeout(&mut self, w: &mut Window, flight: u32, now: Ns) {
        w.ssthresh = self.ssthresh_on_loss(w, flight, now);
    }
    /// Pacing: the rate (segments per second) at which new segments may leave, or None to
    /// send as fast as the window allows (the default). Asked before every transmission
    /// opportunity; retransmissions are not paced.
    fn pacing_rate(&self, _w: &Window, _srtt: Option<Ns>) -> Option<f64> {
        None
    }
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
    pub make: fn(&TcpConfig) -> Box<dyn CongestionControl>,
}

/// All known congestion controls (one line each).
#[rustfmt::skip]
pub static REGISTRY: &[Registration] = &[
    Registration { name: "newreno", recovery: Recovery::NewReno, make: super::reno::make },
    Registration { name: "reno", recovery: Recovery::Reno, make: super::reno::make },
    Registration { name: "newreno-paced", recovery: Recovery::NewReno, make: super::reno::make_paced },
    Registration { name: "cubic", recovery: Recovery::NewReno, make: super::cubic::make },
];

pub fn lookup(name: &str) -> Option<&'static Registration> {
    REGISTRY.iter().find(|r| r.name == name)
}

pub fn names() -> Vec<&'static str> {
    REGISTRY.iter().map(|r| r.name).collect()
}
