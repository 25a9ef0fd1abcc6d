//! Seeded random streams: xoshiro256++ seeded through SplitMix64.
//!
//! Every source of randomness gets its own stream, derived from the scenario seed and a fixed
//! stream number, so adding draws to one source never shifts the values of another.

/// Stream numbers (one per purpose). Never renumber: results depend on them.
pub const STREAM_RTT: u64 = 1;
pub const STREAM_START: u64 = 2;

/// Kinds of traffic source, for [`source_stream`].
pub const SRC_USERS: u64 = 0;
pub const SRC_SHORT: u64 = 1;
pub const SRC_UDP: u64 = 2;

/// The stream number of one purpose (< 16) of source `src` of a kind (`SRC_*`): every source
/// draws from its own streams, so adding a source or a draw never shifts another's values.
pub fn source_stream(kind: u64, src: u64, purpose: u64) -> u64 {
    debug_assert!(purpose < 16);
    1000 + kind * (1 << 40) + src * 16 + purpose
}

/// The stream of the queue discipline at link `link` (RED's and PIE's draws, FQ-CoDel's hash
/// perturbation); far above every source's streams.
pub fn queue_stream(link: u64) -> u64 {
    (1 << 50) + link
}

#[derive(Debug, Clone)]
pub struct Rng {
    s: [u64; 4],
}

fn splitmix(x: &mut u64) -> u64 {
    *x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *x;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl Rng {
    /// The stream `stream` of the run seeded with `seed`.
    pub fn stream(seed: u64, stream: u64) -> Rng {
        let mut x = seed ^ stream.wrapping_mul(0xD1B5_4A32_D192_ED03);
        let mut s = [0u64; 4];
        for v in s.iter_mut() {
            *v = splitmix(&mut x);
        }
        Rng { s }
    }

    /// xoshiro256++ (Blackman & Vigna).
    pub fn next_u64(&mut self) -> u64 {
        let s = &mut self.s;
        let result = s[0].wrapping_add(s[3]).rotate_left(23).wrapping_add(s[0]);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        result
    }

    /// Uniform on [0, 1) with 53 random bits.
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_deterministic_and_distinct() {
        let mut a = Rng::stream(7, STREAM_RTT);
        let mut b = Rng::stream(7, STREAM_RTT);
        let mut c = Rng::stream(7, STREAM_START);
        let va: Vec<u64> = (0..4).map(|_| a.next_u64()).collect();
        let vb: Vec<u64> = (0..4).map(|_| b.next_u64()).collect();
        let vc: Vec<u64> = (0..4).map(|_| c.next_u64()).collect();
        assert_eq!(va, vb);
        assert_ne!(va, vc);
    }

    #[test]
    fn uniform_mean_is_half() {
        let mut r = Rng::stream(3, 9);
        let n = 100_000;
        let m: f64 = (0..n).map(|_| r.next_f64()).sum::<f64>() / n as f64;
        assert!((m - 0.5).abs() < 0.005, "mean {m}");
    }
}
