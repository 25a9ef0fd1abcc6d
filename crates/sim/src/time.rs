//! Simulated time: integer nanoseconds (u64), plus conversions.

pub type Ns = u64;

pub const NS_PER_S: f64 = 1e9;

/// Seconds to nanoseconds, rounded to the nearest nanosecond.
pub fn ns(seconds: f64) -> Ns {
    (seconds * NS_PER_S).round() as Ns
}

/// Nanoseconds to seconds.
pub fn secs(t: Ns) -> f64 {
    t as f64 / NS_PER_S
}

/// Serialization time of `bytes` at `rate_bps`, in nanoseconds, rounded up to a whole ns.
/// (Rounding up makes a link at most 1 ns per packet slower than its nominal rate, never
/// faster.)
pub fn tx_ns(bytes: u32, rate_bps: f64) -> Ns {
    ((bytes as f64 * 8.0 / rate_bps) * NS_PER_S).ceil().max(1.0) as Ns
}
