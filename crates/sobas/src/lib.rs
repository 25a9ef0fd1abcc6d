//! SOBAS (SOcket Buffer Auto-Sizing), paper 001 §VII-A, as a pure state machine.
//!
//! The controller follows the restatement in `MODELS.md` J6 (steps 1-7). It does no I/O and reads
//! no clock: every input is an event carrying its own timestamp in integer nanoseconds (any
//! monotonic origin), and the only output is the receive-buffer limit in bytes that the receiver
//! should apply (as an advertised-window cap in a simulator, with `TCP_WINDOW_CLAMP` on Linux).
//! The same event sequence always gives the same limits, so a simulator can drive it
//! deterministically and a real tool can drive it from socket events.
//!
//! States (J6 step numbers in brackets):
//!
//! ```text
//! Start ──5 trains + RTT──▶ InitialLimit ──window ≥ S̃──▶ LinearIncrease
//!   │  [1: limit = max]        [3: limit = C̃·T̃]            [3: +2 MSS per RTT]
//!   └───────────────┬──────────────┴───────────────────────────┘
//!          rate saturation [5: |slope of last 5 per-second R_r| ≈ 0]
//!                   ├── a forward-path probe lost among the last 1000 [6] ─▶ Congested (limit = max)
//!                   └── otherwise [6] ─▶ Adjusted (limit = R_rs·T_rs)
//! Adjusted/Congested are final [7] unless `Config::readjust` is set (then see `Config::readjust`).
//! ```
//!
//! "Slope ≈ 0" is not quantified in the paper. Here it means: the least-squares slope of the last
//! `slope_samples` receive-throughput samples, in bytes/s per second, is at most
//! `slope_tolerance × MSS / T̄²` in absolute value. `MSS / T̄²` is the growth rate of the receive
//! throughput of a window that grows by one segment per RTT (Reno's congestion avoidance); the
//! controller's own linear increase (2 MSS per RTT) grows it twice as fast. The default tolerance
//! 0.5 therefore declares saturation when the rate grows at less than half of what a window still
//! growing in congestion avoidance would give, and a quarter of the controller's own increase.
//! Being relative to MSS/T̄² it scales with the path (a fixed percentage of the rate would not: at
//! 1 Gb/s and 200 ms a growth of 2 MSS per RTT is 0.06 % of the rate per second).

use std::collections::VecDeque;

/// Tunable parameters. `Config::new(mss, max_buffer)` gives the paper's values.
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    /// Maximum segment size in bytes (payload per segment).
    pub mss: u32,
    /// The largest buffer the receiver may use (J6 step 1: buffers start at the maximum).
    pub max_buffer: u64,
    /// The limit is never set below this (bytes); default 4 segments.
    pub min_buffer: u64,
    /// Number of packet trains for the initial capacity estimate (paper: 5).
    pub trains: usize,
    /// If fewer trains have arrived this long after the first event, use those that did (if none,
    /// skip the initial limit). Nanoseconds.
    pub train_deadline_ns: u64,
    /// Length of one receive-throughput sample (paper: 1 s). Nanoseconds.
    pub sample_period_ns: u64,
    /// Number of samples in the saturation slope (paper: 5).
    pub slope_samples: usize,
    /// "Slope ≈ 0" threshold in units of MSS/T̄² (bytes/s per second); see the crate docs.
    pub slope_tolerance: f64,
    /// The window counts as having reached S̃ when R_r·T̄ ≥ this fraction of S̃.
    pub window_reached: f64,
    /// Number of most recent probes examined for forward-path losses (paper: 1000 = 20 s).
    pub probe_memory: usize,
    /// Segments added per RTT in the linear-increase phase (paper: 2).
    pub increase_segments: u32,
    /// Gain of the running-average RTT (exponentially weighted, as TCP's SRTT: 1/8).
    pub rtt_gain: f64,
    /// Re-adjust after the first decision (the paper's prototype does not; its "future work").
    /// When set, after a decision the sample history is cleared; after `Adjusted` the limit grows
    /// linearly again from R_rs·T_rs (so a path whose available bandwidth rose is found), after
    /// `Congested` it stays at the maximum; the next rate saturation decides again (probes
    /// re-examined). Each re-adjustment therefore costs up to `slope_samples` periods of linear
    /// increase, i.e. some queueing.
    pub readjust: bool,
}

impl Config {
    /// The paper's parameters for a receiver with segment size `mss` and maximum buffer `max_buffer`.
    pub fn new(mss: u32, max_buffer: u64) -> Self {
        Config {
            mss,
            max_buffer,
            min_buffer: 4 * mss as u64,
            trains: 5,
            train_deadline_ns: 5_000_000_000,
            sample_period_ns: 1_000_000_000,
            slope_samples: 5,
            slope_tolerance: 0.5,
            window_reached: 0.9,
            probe_memory: 1000,
            increase_segments: 2,
            rtt_gain: 0.125,
            readjust: false,
        }
    }

    /// Check the parameters; the message names the field.
    pub fn validate(&self) -> Result<(), String> {
        if self.mss == 0 {
            return Err("mss: must be > 0".into());
        }
        if self.max_buffer < self.min_buffer || self.min_buffer == 0 {
            return Err("max_buffer: must be ≥ min_buffer > 0".into());
        }
        if self.trains == 0 || self.trains > 1000 {
            return Err("trains: must be in 1..=1000".into());
        }
        if self.sample_period_ns == 0 {
            return Err("sample_period_ns: must be > 0".into());
        }
        if self.slope_samples < 2 || self.slope_samples > 1000 {
            return Err("slope_samples: must be in 2..=1000".into());
        }
        if !(self.slope_tolerance.is_finite() && self.slope_tolerance >= 0.0) {
            return Err("slope_tolerance: must be a finite number ≥ 0".into());
        }
        if !(self.window_reached > 0.0 && self.window_reached <= 1.0) {
            return Err("window_reached: must be in (0, 1]".into());
        }
        if self.probe_memory == 0 || self.probe_memory > 1_000_000 {
            return Err("probe_memory: must be in 1..=1000000".into());
        }
        if !(self.rtt_gain > 0.0 && self.rtt_gain <= 1.0) {
            return Err("rtt_gain: must be in (0, 1]".into());
        }
        Ok(())
    }
}

/// Where the controller is (see the crate docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Buffers at the maximum; waiting for the packet trains and an RTT estimate.
    Start,
    /// Limit S̃ = C̃·T̃ applied; waiting for the window to reach it.
    InitialLimit,
    /// The window reached the limit: the limit grows by `increase_segments` MSS per RTT.
    LinearIncrease,
    /// Rate saturation on a non-congested path: limit = R_rs·T_rs.
    Adjusted,
    /// Rate saturation with a forward-path probe lost recently: limit left at the maximum.
    Congested,
}

impl Phase {
    pub fn name(self) -> &'static str {
        match self {
            Phase::Start => "start",
            Phase::InitialLimit => "initial-limit",
            Phase::LinearIncrease => "linear-increase",
            Phase::Adjusted => "adjusted",
            Phase::Congested => "congested",
        }
    }
}

/// What the controller decided at a rate-saturation event.
#[derive(Clone, Debug, PartialEq)]
pub struct Decision {
    /// Time of the event (ns).
    pub t_ns: u64,
    /// Receive throughput at saturation R_rs (bytes/s): the mean of the samples in the slope.
    pub rate: f64,
    /// RTT at saturation T_rs (s): the running average then.
    pub rtt: f64,
    /// Slope of the samples (bytes/s per second) and the threshold it was compared with.
    pub slope: f64,
    pub threshold: f64,
    /// Forward-path probe losses among the last `probe_memory` probes.
    pub probes_lost: usize,
    /// Congested (limit left at maximum) or adjusted.
    pub congested: bool,
    /// The limit applied (bytes).
    pub limit: u64,
}

/// The SOBAS controller. Feed it events in non-decreasing time order; read [`Sobas::limit`].
#[derive(Clone, Debug)]
pub struct Sobas {
    cfg: Config,
    phase: Phase,
    limit: u64,
    t0: Option<u64>,
    // receive-throughput samples
    period_start: u64,
    period_bytes: u64,
    samples: VecDeque<f64>,
    // RTT
    srtt: Option<f64>,
    // trains (rates in bytes/s)
    train_rates: Vec<f64>,
    capacity_est: Option<f64>,
    initial_limit: Option<u64>,
    // linear increase
    increase_base: u64,
    increase_start: u64,
    increase_credit_ns: u64,
    // probes: true = lost in the forward path
    probes: VecDeque<bool>,
    probes_lost: usize,
    decisions: Vec<Decision>,
    last_t: u64,
}

impl Sobas {
    pub fn new(cfg: Config) -> Result<Self, String> {
        cfg.validate()?;
        let limit = cfg.max_buffer;
        Ok(Sobas {
            cfg,
            phase: Phase::Start,
            limit,
            t0: None,
            period_start: 0,
            period_bytes: 0,
            samples: VecDeque::new(),
            srtt: None,
            train_rates: Vec::new(),
            capacity_est: None,
            initial_limit: None,
            increase_base: 0,
            increase_start: 0,
            increase_credit_ns: 0,
            probes: VecDeque::new(),
            probes_lost: 0,
            decisions: Vec::new(),
            last_t: 0,
        })
    }

    pub fn config(&self) -> &Config {
        &self.cfg
    }
    /// The receive-buffer limit to apply now (bytes).
    pub fn limit(&self) -> u64 {
        self.limit
    }
    pub fn phase(&self) -> Phase {
        self.phase
    }
    /// Running-average RTT T̄ (s), if any sample arrived.
    pub fn srtt(&self) -> Option<f64> {
        self.srtt
    }
    /// Capacity estimate C̃ from the packet trains (bytes/s).
    pub fn capacity_estimate(&self) -> Option<f64> {
        self.capacity_est
    }
    /// The initial limit S̃ = C̃·T̃ (bytes), once computed.
    pub fn initial_limit(&self) -> Option<u64> {
        self.initial_limit
    }
    /// Completed receive-throughput samples still in the slope window (bytes/s), oldest first.
    pub fn samples(&self) -> Vec<f64> {
        self.samples.iter().copied().collect()
    }
    /// Forward-path losses among the probes remembered, and how many are remembered.
    pub fn probe_losses(&self) -> (usize, usize) {
        (self.probes_lost, self.probes.len())
    }
    /// Every rate-saturation decision taken so far.
    pub fn decisions(&self) -> &[Decision] {
        &self.decisions
    }

    fn set_limit(&mut self, v: u64) {
        self.limit = v.clamp(self.cfg.min_buffer, self.cfg.max_buffer);
    }

    /// Common start of every event: the time origin, the train deadline, closing sample periods,
    /// and the linear increase. Times earlier than the last event are treated as the last event.
    fn advance(&mut self, now: u64) {
        let now = now.max(self.last_t);
        self.last_t = now;
        if self.t0.is_none() {
            self.t0 = Some(now);
            self.period_start = now;
        }
        let t0 = self.t0.unwrap_or(now);
        if self.phase == Phase::Start
            && self.capacity_est.is_none()
            && now.saturating_sub(t0) >= self.cfg.train_deadline_ns
        {
            if self.train_rates.is_empty() {
                // no trains: the initial limit is skipped; mark it so the deadline fires once
                self.capacity_est = Some(f64::NAN);
            } else {
                self.finish_trains(now);
            }
        }
        self.grow(now);
        // close the sample periods that ended; a long silence gives at most `slope_samples` zero
        // samples (older ones would fall out of the window anyway), so the loop is bounded
        let p = self.cfg.sample_period_ns;
        let ended = (now - self.period_start) / p;
        if ended > 0 {
            let bytes = std::mem::take(&mut self.period_bytes);
            self.period_start += p;
            self.on_sample(self.period_start, bytes as f64 * 1e9 / p as f64);
            let rest = ended - 1;
            let zeros = rest.min(self.cfg.slope_samples as u64);
            for k in 0..zeros {
                self.on_sample(self.period_start + (k + 1) * p, 0.0);
            }
            self.period_start += rest * p;
        }
    }

    /// Linear increase: `increase_segments` MSS per elapsed T̄, from `increase_base`.
    fn grow(&mut self, now: u64) {
        if self.phase != Phase::LinearIncrease {
            return;
        }
        let Some(rtt) = self.srtt else { return };
        let rtt_ns = ((rtt * 1e9) as u64).max(1);
        self.increase_credit_ns += now.saturating_sub(self.increase_start);
        self.increase_start = now;
        let n = self.increase_credit_ns / rtt_ns;
        if n > 0 {
            self.increase_credit_ns -= n * rtt_ns;
            let add = n.saturating_mul(self.cfg.increase_segments as u64 * self.cfg.mss as u64);
            self.increase_base = self.increase_base.saturating_add(add);
            let v = self.increase_base;
            self.set_limit(v);
        }
    }

    fn finish_trains(&mut self, now: u64) {
        let mut r: Vec<f64> = self.train_rates.clone();
        r.sort_by(|a, b| a.total_cmp(b));
        let n = r.len();
        // median: robust to one train spread by cross traffic or compressed by a burst
        let c = if n % 2 == 1 {
            r[n / 2]
        } else {
            0.5 * (r[n / 2 - 1] + r[n / 2])
        };
        self.capacity_est = Some(c);
        if let Some(t) = self.srtt {
            let s = (c * t) as u64;
            self.initial_limit = Some(s.clamp(self.cfg.min_buffer, self.cfg.max_buffer));
            self.set_limit(s);
            self.phase = Phase::InitialLimit;
            let _ = now;
        }
    }

    fn slope(&self) -> f64 {
        // least-squares slope of y against x = 0..n-1 periods, in (bytes/s) per second
        let n = self.samples.len() as f64;
        let xm = (n - 1.0) / 2.0;
        let ym = self.samples.iter().sum::<f64>() / n;
        let mut sxy = 0.0;
        let mut sxx = 0.0;
        for (i, y) in self.samples.iter().enumerate() {
            let dx = i as f64 - xm;
            sxy += dx * (y - ym);
            sxx += dx * dx;
        }
        sxy / sxx / (self.cfg.sample_period_ns as f64 * 1e-9)
    }

    fn on_sample(&mut self, t: u64, rate: f64) {
        self.samples.push_back(rate);
        while self.samples.len() > self.cfg.slope_samples {
            self.samples.pop_front();
        }
        let Some(rtt) = self.srtt else { return };
        // J6 step 3: has the window reached S̃? (window ≈ R_r · T̄)
        if self.phase == Phase::InitialLimit {
            let s = self.initial_limit.unwrap_or(self.limit) as f64;
            if rate * rtt >= self.cfg.window_reached * s {
                self.phase = Phase::LinearIncrease;
                self.increase_base = self.limit;
                self.increase_start = t;
                self.increase_credit_ns = 0;
                // a flat rate at the limit is the buffer, not the path: judge saturation only on
                // samples taken while the limit grows
                self.samples.clear();
                return;
            }
        }
        let decided = matches!(self.phase, Phase::Adjusted | Phase::Congested);
        if decided || self.samples.len() < self.cfg.slope_samples {
            return;
        }
        // J6 step 5: rate saturation
        let slope = self.slope();
        let threshold = self.cfg.slope_tolerance * self.cfg.mss as f64 / (rtt * rtt);
        let mean = self.samples.iter().sum::<f64>() / self.samples.len() as f64;
        if mean <= 0.0 || slope.abs() > threshold {
            return;
        }
        // J6 step 6: congested path (a probe lost in the forward path) or limit to R·T
        let congested = self.probes_lost > 0;
        let limit = if congested {
            self.cfg.max_buffer
        } else {
            (mean * rtt) as u64
        };
        self.set_limit(limit);
        self.phase = if congested {
            Phase::Congested
        } else {
            Phase::Adjusted
        };
        self.decisions.push(Decision {
            t_ns: t,
            rate: mean,
            rtt,
            slope,
            threshold,
            probes_lost: self.probes_lost,
            congested,
            limit: self.limit,
        });
        // J6 step 7: once, unless re-adjustment is asked for
        if self.cfg.readjust {
            self.samples.clear();
            if !congested {
                self.phase = Phase::LinearIncrease;
                self.increase_base = self.limit;
                self.increase_start = t;
                self.increase_credit_ns = 0;
            } else {
                self.phase = Phase::Start; // limit at max; trains are not sent again
            }
        }
    }

    /// Let time pass (closes sample periods, grows the limit). Returns the new limit if it changed.
    pub fn tick(&mut self, now_ns: u64) -> Option<u64> {
        let before = self.limit;
        self.advance(now_ns);
        (self.limit != before).then_some(self.limit)
    }

    /// `bytes` of application data received at `now_ns` (J6 step 4).
    pub fn on_bytes(&mut self, now_ns: u64, bytes: u64) -> Option<u64> {
        let before = self.limit;
        self.advance(now_ns);
        self.period_bytes = self.period_bytes.saturating_add(bytes);
        (self.limit != before).then_some(self.limit)
    }

    /// An RTT sample in seconds (from a probe echo, or from TCP_INFO).
    pub fn on_rtt(&mut self, now_ns: u64, rtt_s: f64) -> Option<u64> {
        let before = self.limit;
        self.advance(now_ns);
        if rtt_s.is_finite() && rtt_s > 0.0 {
            self.srtt = Some(match self.srtt {
                None => rtt_s,
                Some(s) => s + self.cfg.rtt_gain * (rtt_s - s),
            });
            // trains done before any RTT was known: apply S̃ now
            if self.phase == Phase::Start && self.initial_limit.is_none() {
                if let Some(c) = self.capacity_est.filter(|c| c.is_finite()) {
                    let t = self.srtt.unwrap_or(rtt_s);
                    let s = (c * t) as u64;
                    self.initial_limit = Some(s.clamp(self.cfg.min_buffer, self.cfg.max_buffer));
                    self.set_limit(s);
                    self.phase = Phase::InitialLimit;
                }
            }
        }
        (self.limit != before).then_some(self.limit)
    }

    /// A packet train of `bytes` (counted after its first packet) arrived with `dispersion_ns`
    /// between its first and last packet (J6 step 3).
    pub fn on_train(&mut self, now_ns: u64, bytes: u64, dispersion_ns: u64) -> Option<u64> {
        let before = self.limit;
        self.advance(now_ns);
        if self.phase == Phase::Start
            && self.capacity_est.is_none()
            && dispersion_ns > 0
            && bytes > 0
        {
            self.train_rates
                .push(bytes as f64 * 1e9 / dispersion_ns as f64);
            if self.train_rates.len() >= self.cfg.trains {
                self.finish_trains(now_ns);
            }
        }
        (self.limit != before).then_some(self.limit)
    }

    /// The outcome of one periodic probe: `lost_forward` when it (or its echo) was lost in the
    /// forward path (sender → receiver). Losses on the reverse path are not passed as lost.
    /// `rtt_s` is its round-trip time when it came back.
    pub fn on_probe(&mut self, now_ns: u64, lost_forward: bool, rtt_s: Option<f64>) -> Option<u64> {
        let before = self.limit;
        self.probes.push_back(lost_forward);
        self.probes_lost += lost_forward as usize;
        while self.probes.len() > self.cfg.probe_memory {
            if self.probes.pop_front() == Some(true) {
                self.probes_lost -= 1;
            }
        }
        match rtt_s {
            Some(r) => {
                self.on_rtt(now_ns, r);
            }
            None => self.advance(now_ns),
        }
        (self.limit != before).then_some(self.limit)
    }
}

#[cfg(test)]
mod tests;
