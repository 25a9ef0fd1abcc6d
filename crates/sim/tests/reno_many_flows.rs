//! Regression: classic Reno with many flows. Reno leaves recovery on the first new ACK while the
//! data sent on inflated windows is still outstanding; halving that FlightSize at the next fast
//! retransmit raised ssthresh above the window that had just lost, and with repeated losses the
//! windows fed on themselves (at 200 Mb/s and 200 flows Σ flight reached 3.3 times the pipe, at
//! 1 Gb/s and 500 flows Σcwnd 80 times). The windows summed over the flows cannot hold more than
//! the pipe plus the buffer (plus the losses not yet detected).
use bufsize_sim::scenario::Scenario;

#[test]
fn reno_windows_stay_within_the_pipe_with_many_flows() {
    let s = Scenario::from_json(
        r#"{"duration_s": 20, "warmup_s": 5,
            "dumbbell": {"capacity_bps": 2e8, "flows": 200, "rtt_s": {"uniform": [0.02, 0.14]},
                         "buffer": {"limit_packets": 140}, "tcp": {"cc": "reno"}}}"#,
    )
    .unwrap();
    let r = bufsize_sim::run(&s).unwrap();
    let pipe = 2e8 * 0.08 / 8000.0 + 140.0; // BDP at the mean RTT + B
    let s = &r.summary;
    assert!(
        s.flight_sum_mean < 1.2 * pipe,
        "Σ flight {} vs pipe {pipe}",
        s.flight_sum_mean
    );
    assert!(
        s.cwnd_sum_mean < 1.2 * pipe,
        "Σ cwnd {} vs pipe {pipe}",
        s.cwnd_sum_mean
    );
    assert!(
        s.utilization > 0.9 && s.loss_rate < 0.05,
        "{} {}",
        s.utilization,
        s.loss_rate
    );
}
