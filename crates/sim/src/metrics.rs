//! Measurements: time-weighted queue statistics, a fixed-bin delay histogram, sampled series.
//!
//! Everything here is clipped to the measurement window [lo, hi): an interval that straddles
//! the warm-up boundary contributes only its part after it.
use crate::time::Ns;

/// Time-weighted occupancy of one queue (packets), integrated exactly between changes.
#[derive(Debug, Clone)]
pub struct QueueStats {
    lo: Ns,
    hi: Ns,
    /// Integrated up to this time.
    pub t: Ns,
    /// Σ level·dt and Σ level²·dt (ns·packets, ns·packets²), as f64 sums of exact u128 parts.
    area: u128,
    area2: u128,
    /// Nanoseconds spent at each level (grows as needed).
    pub hist: Vec<u64>,
}

impl QueueStats {
    pub fn new(lo: Ns, hi: Ns, limit: Option<u64>) -> QueueStats {
        let n = limit.map_or(64, |l| (l as usize + 1).min(1 << 22));
        QueueStats {
            lo,
            hi,
            t: 0,
            area: 0,
            area2: 0,
            hist: vec![0; n],
        }
    }

    /// The queue held `level` packets from the last call until `to`.
    #[inline]
    pub fn integrate(&mut self, level: u64, to: Ns) {
        let a = self.t.max(self.lo);
        let b = to.min(self.hi);
        if b > a {
            let dt = (b - a) as u128;
            self.area += level as u128 * dt;
            self.area2 += (level as u128) * (level as u128) * dt;
            let l = level as usize;
            if l >= self.hist.len() {
                self.hist.resize(l + 1, 0);
            }
            self.hist[l] += b - a;
        }
        if to > self.t {
            self.t = to;
        }
    }

    fn span(&self) -> f64 {
        (self.hi - self.lo) as f64
    }

    /// Close the window at `hi` (before its planned end): nothing after it is integrated.
    pub fn close_at(&mut self, hi: Ns) {
        self.hi = hi.max(self.lo);
    }

    /// Σ level·dt so far, packet-seconds (the integral of the queue over the window up to `t`).
    pub fn area_packet_s(&self) -> f64 {
        self.area as f64 / 1e9
    }

    pub fn mean(&self) -> f64 {
        self.area as f64 / self.span()
    }

    pub fn std(&self) -> f64 {
        let m = self.mean();
        (self.area2 as f64 / self.span() - m * m).max(0.0).sqrt()
    }

    /// Fraction of the window spent at each level 0..=max (trailing zeros trimmed, but at
    /// least up to `min_len - 1`).
    pub fn fractions(&self, min_len: usize) -> Vec<f64> {
        let mut last = self.hist.iter().rposition(|&x| x > 0).map_or(0, |i| i + 1);
        last = last.max(min_len).min(self.hist.len().max(min_len));
        let s = self.span();
        (0..last)
            .map(|i| self.hist.get(i).copied().unwrap_or(0) as f64 / s)
            .collect()
    }

    pub fn frac_at(&self, level: u64) -> f64 {
        self.hist.get(level as usize).copied().unwrap_or(0) as f64 / self.span()
    }
}

/// Fixed-bin histogram of durations, with an exact sum for the mean. Values beyond the last
/// bin are counted in it (and are still exact in the mean).
#[derive(Debug, Clone)]
pub struct DelayHist {
    pub bin: Ns,
    counts: Vec<u64>,
    n: u64,
    sum: u128,
}

impl DelayHist {
    pub fn new(max: Ns, bins: usize) -> DelayHist {
        let bin = (max / bins as u64).max(1);
        DelayHist {
            bin,
            counts: vec![0; bins + 1],
            n: 0,
            sum: 0,
        }
    }

    #[inline]
    pub fn record(&mut self, d: Ns) {
        let i = ((d / self.bin) as usize).min(self.counts.len() - 1);
        self.counts[i] += 1;
        self.n += 1;
        self.sum += d as u128;
    }

    pub fn count(&self) -> u64 {
        self.n
    }

    pub fn mean(&self) -> f64 {
        if self.n == 0 {
            0.0
        } else {
            self.sum as f64 / self.n as f64
        }
    }

    /// q-quantile, interpolated linearly inside the bin that holds it. Zero-delay packets
    /// (those that found the link idle) sit at the bottom of bin 0.
    pub fn quantile(&self, q: f64) -> f64 {
        if self.n == 0 {
            return 0.0;
        }
        let target = q * self.n as f64;
        let mut cum = 0.0;
        for (i, &c) in self.counts.iter().enumerate() {
            let next = cum + c as f64;
            if next >= target && c > 0 {
                let frac = ((target - cum) / c as f64).clamp(0.0, 1.0);
                return (i as f64 + frac) * self.bin as f64;
            }
            cum = next;
        }
        (self.counts.len() as f64) * self.bin as f64
    }
}

/// Mean and standard deviation of samples.
pub fn mean_std(v: &[f64]) -> (f64, f64) {
    if v.is_empty() {
        return (0.0, 0.0);
    }
    let n = v.len() as f64;
    let m = v.iter().sum::<f64>() / n;
    let var = v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / n;
    (m, var.sqrt())
}

/// Histogram of samples over [min, max] in `nbins` equal bins: (lower edges, width, fractions).
pub fn histogram(v: &[f64], nbins: usize) -> (Vec<f64>, f64, Vec<f64>) {
    if v.is_empty() {
        return (vec![], 0.0, vec![]);
    }
    let lo = v.iter().cloned().fold(f64::INFINITY, f64::min);
    let hi = v.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let width = ((hi - lo) / nbins as f64).max(1e-9);
    let mut counts = vec![0u64; nbins];
    for &x in v {
        let i = (((x - lo) / width) as usize).min(nbins - 1);
        counts[i] += 1;
    }
    let n = v.len() as f64;
    let edges = (0..nbins).map(|i| lo + i as f64 * width).collect();
    (edges, width, counts.iter().map(|&c| c as f64 / n).collect())
}

/// Jain's fairness index (Σx)² / (n Σx²); 1 for an empty or all-zero input.
pub fn jain(x: &[f64]) -> f64 {
    let s: f64 = x.iter().sum();
    let s2: f64 = x.iter().map(|v| v * v).sum();
    if s2 == 0.0 {
        1.0
    } else {
        s * s / (x.len() as f64 * s2)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queue_stats_clip_to_window() {
        let mut q = QueueStats::new(100, 300, Some(5));
        q.integrate(4, 50); // before the window: ignored
        q.integrate(2, 150); // 2 packets for [100, 150)
        q.integrate(0, 250); // 0 for [150, 250)
        q.integrate(5, 400); // 5 for [250, 300), clipped
        assert!((q.mean() - (2.0 * 50.0 + 5.0 * 50.0) / 200.0).abs() < 1e-12);
        assert!((q.frac_at(0) - 0.5).abs() < 1e-12);
        assert!((q.frac_at(5) - 0.25).abs() < 1e-12);
        let f = q.fractions(6);
        assert_eq!(f.len(), 6);
        assert!((f.iter().sum::<f64>() - 1.0).abs() < 1e-12);
    }

    #[test]
    fn delay_quantiles() {
        let mut h = DelayHist::new(1000, 100);
        for d in 0..1000u64 {
            h.record(d);
        }
        assert!((h.mean() - 499.5).abs() < 1e-9);
        assert!((h.quantile(0.5) - 500.0).abs() <= 10.0);
        assert!((h.quantile(0.99) - 990.0).abs() <= 10.0);
    }

    #[test]
    fn jain_index() {
        assert!((jain(&[1.0, 1.0, 1.0]) - 1.0).abs() < 1e-12);
        assert!((jain(&[1.0, 0.0]) - 0.5).abs() < 1e-12);
    }
}
