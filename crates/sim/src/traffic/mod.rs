//! Traffic sources, one per file: `bulk` (long-lived and finite transfers of the dumbbell and
//! `flows[]`), `short_flows` (open-loop Poisson arrivals of short transfers), `closed_loop`
//! (users that fetch a file, think, and fetch the next), `udp` (CBR, Poisson, Pareto and
//! Pareto on/off UDP). The engine (`sim.rs`) asks a source for its next event time and for the
//! size of the next transfer; the sources own their seeded random streams.
pub mod bulk;
pub mod closed_loop;
pub mod short_flows;
pub mod transfers;
pub mod udp;

/// Whole segments for a drawn size: `x` in packets (rounded up) or in payload bytes (divided by
/// the MSS, rounded up); at least one segment.
pub fn segments_of(x: f64, in_packets: bool, mss: u32) -> u32 {
    let s = if in_packets { x } else { x / mss as f64 };
    (s.ceil().max(1.0)).min((u32::MAX - 1) as f64) as u32
}

#[cfg(test)]
mod tests {
    #[test]
    fn sizes_round_up_to_whole_segments() {
        assert_eq!(super::segments_of(2.0, true, 960), 2);
        assert_eq!(super::segments_of(2.1, true, 960), 3);
        assert_eq!(super::segments_of(0.0, true, 960), 1);
        assert_eq!(super::segments_of(961.0, false, 960), 2);
        assert_eq!(super::segments_of(960.0, false, 960), 1);
    }
}
