//! Issue 8 §0: every registered congestion control × SACK on/off × delayed ACKs on/off ×
//! B ∈ {0.1, 0.25, 0.5, 1} × BDP, one long-lived flow in steady state.
//!
//! Each cell must show no timeout after the warm-up and a utilization within 2 points of the
//! control's own window law, integrated here round by round through a drop-tail buffer
//! (`model_utilization`, which does not use the engine): a fluid model of the window through a
//! drop-tail buffer (see there).
//!
//! Setting: C = 10 Mb/s, RTT 40 ms, 1000-byte packets: BDP = 50 packets, so a cycle lasts a
//! few seconds and a cell takes a few tens of milliseconds.
mod common;
use bufsize_sim::tcp::cc;
use common::*;

const C_BPS: f64 = 10e6;
const RTT: f64 = 0.04;
const BDP: f64 = 50.0;
const DURATION: f64 = 140.0;
const WARMUP: f64 = 40.0;

/// The control's window law as a fluid: the window's growth rate (segments per second) at
/// window `w`, round-trip time `rtt` and backlog `queue`, and its value right after a loss.
trait Law {
    fn rate(&mut self, w: f64, rtt: f64, queue: f64, dt: f64) -> f64;
    fn cut(&mut self, w: f64) -> f64;
}

/// Reno AIMD: +1 segment per RTT, halve.
struct Aimd;
impl Law for Aimd {
    fn rate(&mut self, _: f64, rtt: f64, _: f64, _: f64) -> f64 {
        1.0 / rtt
    }
    fn cut(&mut self, w: f64) -> f64 {
        w / 2.0
    }
}

/// CUBIC (RFC 9438): W(t) = 0.4 (t − K)³ + W_max from the loss, K = ∛(W_max (1 − β)/0.4),
/// fast convergence, and the Reno-friendly estimate growing 3(1 − β)/(1 + β) per RTT; the
/// window follows the larger of the two.
struct CubicLaw {
    beta: f64,
    w_max: f64,
    k: f64,
    t: f64,
    w_est: f64,
}
impl CubicLaw {
    fn new(beta: f64) -> Self {
        CubicLaw {
            beta,
            w_max: 0.0,
            k: 0.0,
            t: 0.0,
            w_est: 0.0,
        }
    }
}
impl Law for CubicLaw {
    fn rate(&mut self, w: f64, rtt: f64, _: f64, dt: f64) -> f64 {
        self.t += dt;
        self.w_est += 3.0 * (1.0 - self.beta) / (1.0 + self.beta) * dt / rtt;
        let d = self.t - self.k;
        let target = (0.4 * d * d * d + self.w_max).max(self.w_est);
        ((target - w) / dt).max(0.0)
    }
    fn cut(&mut self, w: f64) -> f64 {
        self.w_max = if w < self.w_max {
            w * (1.0 + self.beta) / 2.0
        } else {
            w
        };
        let after = self.beta * w;
        self.k = ((self.w_max - after).max(0.0) / 0.4).cbrt();
        self.t = 0.0;
        self.w_est = after;
        after
    }
}

/// BIC (Linux tcp_bic.c): per RTT a quarter of the way to W_max, between 0.2 and 16 segments;
/// above W_max 0.2 per RTT for 4 segments, then (W − W_max)/3, then 16; β = 819/1024.
struct BicLaw {
    w_max: f64,
}
impl Law for BicLaw {
    fn rate(&mut self, w: f64, rtt: f64, _: f64, _: f64) -> f64 {
        let m = self.w_max;
        let per_rtt = if w <= 14.0 {
            1.0
        } else if w < m {
            let dist = (m - w) / 4.0;
            if dist <= 1.0 {
                0.2
            } else {
                dist.min(16.0)
            }
        } else if w < m + 4.0 {
            0.2
        } else if w < m + 48.0 {
            (w - m) / 3.0
        } else {
            16.0
        };
        per_rtt / rtt
    }
    fn cut(&mut self, w: f64) -> f64 {
        let beta = 819.0 / 1024.0;
        self.w_max = if w < self.w_max {
            w * (1.0 + beta) / 2.0
        } else {
            w
        };
        if w <= 14.0 {
            w / 2.0
        } else {
            beta * w
        }
    }
}

/// Compound TCP: loss window +1 per RTT; delay window + (α·W^k − 1) per RTT while the backlog
/// is below γ = 30, else − backlog per RTT; a loss halves the whole window.
struct CtcpLaw {
    dwnd: f64,
}
impl Law for CtcpLaw {
    fn rate(&mut self, w: f64, rtt: f64, queue: f64, dt: f64) -> f64 {
        let d = if queue < 30.0 {
            (0.125 * w.powf(0.75) - 1.0).max(0.0)
        } else {
            -queue.min(self.dwnd * rtt / dt)
        };
        self.dwnd += d * dt / rtt;
        (1.0 + d) / rtt
    }
    fn cut(&mut self, w: f64) -> f64 {
        let lwnd = w - self.dwnd;
        self.dwnd = (w / 2.0 - lwnd / 2.0).max(0.0);
        lwnd / 2.0 + self.dwnd
    }
}

fn law(name: &str) -> Box<dyn Law> {
    match name {
        // DCTCP without ECN marks (a drop-tail buffer) is Reno: it halves on a loss.
        "newreno" | "reno" | "newreno-paced" | "paced" | "poisson-paced" | "dctcp" => {
            Box::new(Aimd)
        }
        "cubic" => Box::new(CubicLaw::new(0.7)),
        "cubic-0.8" => Box::new(CubicLaw::new(0.8)),
        "bic" => Box::new(BicLaw { w_max: 0.0 }),
        "ctcp" => Box::new(CtcpLaw { dwnd: 0.0 }),
        other => panic!("no window law written for {other}: add one to this test"),
    }
}

/// Fluid model: the window W(t) grows by the law, the RTT is τ + backlog/C with backlog
/// max(W − BDP, 0), the link carries min(W, BDP)/BDP of its capacity, and the buffer overflows
/// when W reaches BDP + B (the classic drop-tail single-flow model, as paper 001 eq. (17)),
/// where the law's decrease applies at once; the window then stays put for one RTT, the fast
/// recovery (no control grows its window in recovery). Time average after a long settling time.
fn model_utilization(law: &mut dyn Law, bdp: f64, b: f64, tau: f64) -> f64 {
    let c = bdp / tau; // packets per second
    let dt = tau / 100.0;
    let mut w = law.cut(bdp + b);
    let (mut t, mut busy, mut total, mut frozen_until) = (0.0, 0.0, 0.0, 0.0);
    while t < 1000.0 {
        let queue = (w - bdp).max(0.0);
        let rtt = tau + queue / c;
        if t > 300.0 {
            busy += w.min(bdp) / bdp * dt;
            total += dt;
        }
        t += dt;
        if t < frozen_until {
            continue;
        }
        w += law.rate(w, rtt, queue, dt) * dt;
        if w >= bdp + b {
            w = law.cut(w);
            // fast recovery: one RTT (of the window that overflowed) without growth
            frozen_until = t + tau + b / c;
        }
    }
    busy / total
}

struct Cell {
    cc: &'static str,
    sack: bool,
    delack: bool,
    frac: f64,
    util: f64,
    model: f64,
    /// Poisson pacing only: the packet-by-packet Monte-Carlo of its law (see the test).
    poisson: Option<f64>,
    timeouts: u64,
}

/// Poisson-paced AIMD under its window, packet by packet (a Monte-Carlo of the law, not the
/// engine): a segment may leave when fewer than W are unacknowledged, at the earliest an
/// exponential gap (mean RTT/W, RTT = the latest sample) after the previous one; the bottleneck
/// serves at C with B waiting places and one in service; an ACK returns τ − 1/C after the
/// departure and grows W by 1/W; a drop is seen one RTT after it was sent and halves W, which
/// then does not grow for one RTT (the recovery).
fn poisson_window_model_utilization(bdp: f64, b: f64, tau: f64) -> f64 {
    use bufsize_sim::rng::Rng;
    use std::collections::VecDeque;
    let c = bdp / tau;
    let mut rng = Rng::stream(4242, 778);
    let mut queue: VecDeque<f64> = VecDeque::new(); // departure times of packets in the system
    let mut flight: VecDeque<(f64, f64, bool)> = VecDeque::new(); // (return time, send time, dropped)
    let mut last_dep = 0.0f64;
    let (mut w, mut rtt, mut frozen_until) = ((bdp + b) / 2.0, tau, 0.0f64);
    let mut next = 0.0f64;
    let (t0, t1) = (200.0, 1200.0);
    let mut served = 0u64;
    loop {
        // the earliest time a segment may leave: the pacing time, or when the window opens
        let mut t = next;
        if flight.len() as f64 >= w.floor().max(1.0) {
            t = t.max(flight.front().unwrap().0);
        }
        if t > t1 {
            break;
        }
        // returns up to t: ACKs grow the window, a drop's detection halves it
        while flight.front().is_some_and(|f| f.0 <= t) {
            let (ret, sent, dropped) = flight.pop_front().unwrap();
            if dropped {
                if ret >= frozen_until {
                    w = (w / 2.0).max(1.0);
                    frozen_until = ret + rtt;
                }
            } else {
                rtt = ret - sent;
                if ret >= frozen_until {
                    w += 1.0 / w;
                }
            }
        }
        if flight.len() as f64 >= w.floor().max(1.0) {
            continue;
        }
        while queue.front().is_some_and(|&d| d <= t) {
            queue.pop_front();
        }
        if queue.len() as f64 >= b + 1.0 {
            flight.push_back((t + rtt, t, true));
        } else {
            last_dep = last_dep.max(t) + 1.0 / c;
            queue.push_back(last_dep);
            flight.push_back((last_dep + tau - 1.0 / c, t, false));
            if last_dep > t0 && last_dep <= t1 {
                served += 1;
            }
        }
        next = t - (1.0 - rng.next_f64()).ln() * rtt / w;
    }
    served as f64 / (c * (t1 - t0))
}

/// The models of one control and buffer (they do not depend on SACK or delayed ACKs).
fn models(name: &str, b: f64, tau: f64) -> (f64, Option<f64>) {
    use std::collections::HashMap;
    use std::sync::Mutex;
    static CACHE: Mutex<Option<HashMap<(String, u64), (f64, Option<f64>)>>> = Mutex::new(None);
    let key = (name.to_string(), b as u64);
    if let Some(v) = CACHE
        .lock()
        .unwrap()
        .get_or_insert_with(HashMap::new)
        .get(&key)
    {
        return *v;
    }
    let bdp = BDP * tau / RTT;
    let v = (
        model_utilization(law(name).as_mut(), bdp, b, tau),
        (name == "poisson-paced").then(|| poisson_window_model_utilization(bdp, b, tau)),
    );
    CACHE.lock().unwrap().as_mut().unwrap().insert(key, v);
    v
}

fn run_cell(name: &'static str, sack: bool, delack: bool, frac: f64) -> Cell {
    let b = (frac * BDP).round() as u64;
    let mut s = single_flow(C_BPS, RTT, b, DURATION, WARMUP);
    s.flows[0].tcp.cc = name.to_string();
    s.flows[0].tcp.sack = sack;
    s.flows[0].tcp.delayed_ack = delack;
    let r = bufsize_sim::run(&s).unwrap();
    check_invariants(&r, &[None, Some(b), None, None]);
    // The base RTT the flow sees: propagation plus one packet's serialization on each hop.
    let tau = RTT + 8000.0 / C_BPS + 8000.0 / (10.0 * C_BPS);
    let (model, poisson) = models(name, b as f64, tau);
    Cell {
        cc: name,
        sack,
        delack,
        frac,
        util: r.summary.utilization,
        model,
        poisson,
        timeouts: r.summary.timeouts,
    }
}

fn matrix_for(name: &'static str) {
    let mut cells = vec![];
    for sack in [false, true] {
        for delack in [false, true] {
            for frac in [0.1, 0.25, 0.5, 1.0] {
                cells.push(run_cell(name, sack, delack, frac));
            }
        }
    }
    let mut bad = vec![];
    for c in &cells {
        let line = format!(
            "{:<14} sack={:<5} delack={:<5} B={:<4} util {:.4} model {:.4} diff {:+.4} timeouts {}{}",
            c.cc,
            c.sack,
            c.delack,
            c.frac,
            c.util,
            c.model,
            c.util - c.model,
            c.timeouts,
            c.poisson.map_or(String::new(), |p| format!(" poisson-model {p:.4} diff {:+.4}", c.util - p))
        );
        eprintln!("{line}");
        let ok = match c.poisson {
            // Poisson pacing: random gaps overflow the buffer before W reaches BDP + B, so its
            // law is checked against the Monte-Carlo of the same law (the deterministic fluid
            // model is only an upper bound). At 5 packets of buffer a burst occasionally drops
            // several segments of one window: at most one timeout per cell is allowed there.
            Some(p) => {
                (c.util - p).abs() <= 0.02
                    && c.util <= c.model + 0.005
                    && c.timeouts <= if c.frac < 0.2 { 1 } else { 0 }
            }
            None => c.timeouts == 0 && (c.util - c.model).abs() <= 0.02,
        };
        if !ok {
            bad.push(line);
        }
    }
    assert!(
        bad.is_empty(),
        "cells off their window law:\n{}",
        bad.join("\n")
    );
}

#[test]
fn every_control_has_a_law_here() {
    for n in cc::names() {
        if cc::lookup(n).is_some_and(|r| r.model) {
            continue; // model-based (BBR): no window law; checked in tests/bbr.rs
        }
        let _ = law(n);
    }
}

#[test]
fn matrix_newreno() {
    matrix_for("newreno");
}
#[test]
fn matrix_reno() {
    matrix_for("reno");
}
#[test]
fn matrix_newreno_paced() {
    matrix_for("newreno-paced");
}
#[test]
fn matrix_paced() {
    matrix_for("paced");
}
#[test]
fn matrix_poisson_paced() {
    matrix_for("poisson-paced");
}
#[test]
fn matrix_cubic() {
    matrix_for("cubic");
}
#[test]
fn matrix_cubic_08() {
    matrix_for("cubic-0.8");
}
#[test]
fn matrix_bic() {
    matrix_for("bic");
}
#[test]
fn matrix_ctcp() {
    matrix_for("ctcp");
}
