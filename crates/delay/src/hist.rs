//! Lateness histogram: how long after its due time each packet left the element.

/// Fixed-size histogram of lateness in nanoseconds.
///
/// Buckets are 1 µs wide below 1 ms and 1 ms wide from 1 ms to 10 s; anything later falls into
/// the last bucket. Quantiles are therefore exact to 1 µs for the values that matter (a healthy
/// element is late by tens of microseconds) and to 1 ms for stalls. `max_ns` is kept exactly.
#[derive(Clone, Debug)]
pub struct LatenessHistogram {
    counts: Vec<u64>,
    total: u64,
    sum_ns: u128,
    max_ns: u64,
}

const FINE: usize = 1000; // 1 µs buckets up to 1 ms
const COARSE: usize = 10_000; // 1 ms buckets up to 10 s

impl Default for LatenessHistogram {
    fn default() -> Self {
        Self::new()
    }
}

impl LatenessHistogram {
    pub fn new() -> Self {
        Self {
            counts: vec![0; FINE + COARSE],
            total: 0,
            sum_ns: 0,
            max_ns: 0,
        }
    }

    fn bucket(ns: u64) -> usize {
        let us = ns / 1_000;
        if us < FINE as u64 {
            us as usize
        } else {
            let ms = (ns / 1_000_000) as usize; // >= 1
            (FINE + ms - 1).min(FINE + COARSE - 1)
        }
    }

    /// Upper edge of a bucket in nanoseconds (a quantile is reported as this edge).
    fn upper_ns(b: usize) -> u64 {
        if b < FINE {
            (b as u64 + 1) * 1_000
        } else {
            (b - FINE + 2) as u64 * 1_000_000
        }
    }

    pub fn record(&mut self, ns: u64) {
        self.counts[Self::bucket(ns)] += 1;
        self.total += 1;
        self.sum_ns += ns as u128;
        self.max_ns = self.max_ns.max(ns);
    }

    pub fn count(&self) -> u64 {
        self.total
    }

    pub fn max_ns(&self) -> u64 {
        self.max_ns
    }

    pub fn mean_ns(&self) -> f64 {
        if self.total == 0 {
            0.0
        } else {
            self.sum_ns as f64 / self.total as f64
        }
    }

    /// The `q`-quantile (0 < q <= 1) as the upper edge of its bucket, capped at the exact maximum.
    /// Returns 0 for an empty histogram.
    pub fn quantile_ns(&self, q: f64) -> u64 {
        if self.total == 0 {
            return 0;
        }
        let rank = ((q.clamp(0.0, 1.0) * self.total as f64).ceil() as u64).max(1);
        let mut seen = 0u64;
        for (b, &c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                return Self::upper_ns(b).min(self.max_ns);
            }
        }
        self.max_ns
    }

    /// Number of packets later than `ns` (counted by bucket, so exact to the bucket width).
    pub fn count_above_ns(&self, ns: u64) -> u64 {
        let b = Self::bucket(ns);
        self.counts[b + 1..].iter().sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_histogram_reports_zero() {
        let h = LatenessHistogram::new();
        assert_eq!(h.quantile_ns(0.99), 0);
        assert_eq!(h.count(), 0);
        assert_eq!(h.mean_ns(), 0.0);
    }

    #[test]
    fn quantiles_follow_the_samples() {
        let mut h = LatenessHistogram::new();
        for i in 0..1000u64 {
            h.record(i * 1_000 + 500); // 0.5 µs .. 999.5 µs
        }
        assert_eq!(h.count(), 1000);
        // the median sample is 499.5 µs -> bucket upper edge 500 µs
        assert_eq!(h.quantile_ns(0.5), 500_000);
        assert_eq!(h.quantile_ns(0.99), 990_000);
        assert_eq!(h.quantile_ns(1.0), 999_500); // capped at the exact maximum
        assert_eq!(h.max_ns(), 999_500);
        assert!((h.mean_ns() - 500_000.0).abs() < 1.0);
    }

    #[test]
    fn stalls_land_in_millisecond_buckets() {
        let mut h = LatenessHistogram::new();
        for _ in 0..98 {
            h.record(20_000);
        }
        h.record(35_400_000); // a 35.4 ms stall
        h.record(20_000_000_000); // beyond 10 s: last bucket, max stays exact
        assert_eq!(h.quantile_ns(0.5), 21_000);
        assert_eq!(h.quantile_ns(0.99), 36_000_000);
        assert_eq!(h.max_ns(), 20_000_000_000);
        assert_eq!(h.count_above_ns(1_000_000), 2);
        assert_eq!(h.count_above_ns(100_000), 2);
    }
}
