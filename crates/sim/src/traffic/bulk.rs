//! Bulk transfers: the application always has data (long-lived flow) or a fixed number of
//! payload bytes, rounded up to whole segments (every segment carries a full MSS).

/// Segments a bulk flow has to send: u32::MAX for a long-lived flow.
pub fn segments(bytes: Option<u64>, mss: u32) -> u32 {
    match bytes {
        None => u32::MAX,
        Some(b) => b.div_ceil(mss as u64).min(u32::MAX as u64 - 1) as u32,
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn rounding_up_to_segments() {
        assert_eq!(super::segments(Some(1), 960), 1);
        assert_eq!(super::segments(Some(960), 960), 1);
        assert_eq!(super::segments(Some(961), 960), 2);
        assert_eq!(super::segments(None, 960), u32::MAX);
    }
}
