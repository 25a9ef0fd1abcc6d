//! Shared helpers of the engine's integration tests.
#![allow(dead_code)]
use bufsize_sim::scenario::*;
use bufsize_sim::Results;

/// One flow through a dedicated bottleneck: access link 10x faster than the bottleneck, the
/// whole two-way propagation delay `rtt` on the access links (half each way).
pub fn single_flow(c_bps: f64, rtt: f64, buffer_pkts: u64, duration: f64, warmup: f64) -> Scenario {
    let json = format!(
        r#"{{"seed": 1, "duration_s": {duration}, "warmup_s": {warmup},
        "links": [
          {{"name": "acc", "rate_bps": {a}, "delay_s": {d}}},
          {{"name": "bn", "rate_bps": {c_bps}, "queue": {{"limit_packets": {buffer_pkts}}}}},
          {{"name": "bnr", "rate_bps": {c_bps}}},
          {{"name": "racc", "rate_bps": {a}, "delay_s": {d}}}],
        "bottleneck": "bn",
        "flows": [{{"path": ["acc", "bn"], "ack_path": ["bnr", "racc"]}}]}}"#,
        a = 10.0 * c_bps,
        d = rtt / 2.0
    );
    Scenario::from_json(&json).unwrap()
}

/// Invariants every run must satisfy; `limits[i]` is link i's packet limit if any.
pub fn check_invariants(r: &Results, limits: &[Option<u64>]) {
    let s = &r.summary;
    assert!(
        s.conservation_ok,
        "conservation: sent {} delivered {} dropped {} in flight {}",
        s.sent, s.delivered, s.dropped, s.in_flight
    );
    assert_eq!(s.sent, s.delivered + s.dropped + s.in_flight);
    for (l, lim) in r.links.iter().zip(limits) {
        if let Some(lim) = lim {
            assert!(
                l.max_queue_packets <= *lim,
                "link {} queue {} above limit {}",
                l.name,
                l.max_queue_packets,
                lim
            );
        }
        // Packets whose transmission ended in the window were all transmitted within
        // [start - one packet time, end): allow one 64 KiB packet of slack.
        let slack = 65_535.0 * 8.0 / l.rate_bps / s.measure_seconds;
        assert!(
            l.utilization <= 1.0 + slack,
            "link {} transmitted faster than its rate: {}",
            l.name,
            l.utilization
        );
    }
    // The summary's queue maximum is the bottleneck link's.
    assert!(r
        .links
        .iter()
        .any(|l| l.max_queue_packets == s.max_queue_packets));
    // The summary's utilization is the bottleneck link's (checked against its rate above).
    assert!(r
        .links
        .iter()
        .any(|l| (l.utilization - s.utilization).abs() < 1e-12));
    assert!(s.loss_rate >= 0.0 && s.loss_rate <= 1.0);
    let hist_sum: f64 = r.queue_histogram.iter().sum();
    if !r.queue_histogram.is_empty() {
        assert!(
            (hist_sum - 1.0).abs() < 1e-9,
            "queue histogram sums to {hist_sum}"
        );
    }
}

/// Paper 001, appendix eq. (17): utilization of one Reno flow, under-buffered path
/// (bt < ct, both in packets).
pub fn eq17_utilization(ct: f64, bt: f64) -> f64 {
    let s = bt + ct;
    0.75 * s * s / (s * s - bt * ct)
}

/// Paper 001 eq. (14): loss rate p = (8/3) / (CT + Bt)^2.
pub fn eq14_loss(ct: f64, bt: f64) -> f64 {
    (8.0 / 3.0) / ((ct + bt) * (ct + bt))
}

/// Paper 001 appendix: duration of one loss cycle (seconds), C in packets/s.
/// Over-buffered (bt >= ct): eq. (16) T_V = 3 (CT + Bt)^2 / (8C).
/// Under-buffered: T_V = [(CT)^2 + CT(Bt+2) + Bt(Bt+2)] / (2C).
pub fn cycle_seconds(c_pps: f64, ct: f64, bt: f64) -> f64 {
    if bt >= ct {
        3.0 * (ct + bt) * (ct + bt) / (8.0 * c_pps)
    } else {
        (ct * ct + ct * (bt + 2.0) + bt * (bt + 2.0)) / (2.0 * c_pps)
    }
}
