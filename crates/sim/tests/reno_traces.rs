//! Reno (RFC 5681) and NewReno (RFC 6582) recovery from one to four drops in one window, the
//! cases Fall and Floyd traced in "Simulation-based comparisons of Tahoe, Reno and SACK TCP"
//! (CCR 1996). See docs/reno_reference.md.
//!
//! The engine's public API has no way to drop chosen packets, so the drops come from a scenario
//! whose drops are known: one flow, 0.8 Mb/s bottleneck (F&F's rate), 1000-byte packets, a
//! two-way propagation delay of 100 ms (BDP about 10 packets) and a 10-packet drop-tail buffer.
//! Its window is capped at W = 21 + k packets (a receiver window): slow start hits the cap, the
//! queue overflows once by k packets, and the run ends (2 s) before congestion avoidance can
//! reach the cap again. The test first checks that the run really has k drops in one loss
//! event, then what each variant does with them.
//!
//! Unlike F&F's traces, the receiver window binds during recovery here: fast recovery's window
//! inflation cannot send new data, so after a partial ACK the remaining holes get no duplicate
//! ACKs. RFC 5681 Reno then has to wait for the retransmission timer from the second drop on;
//! NewReno repairs one hole per round trip, and with the engine's "Impatient" timer (restarted
//! only by the first partial ACK, RFC 6582 §3.2 step 3) four holes outlast the 200-ms minimum RTO.
use bufsize_sim::scenario::Scenario;

/// One flow, window capped at `w`, 10-packet buffer at the 0.8 Mb/s bottleneck.
fn capped_flow(cc: &str, w: u64) -> Scenario {
    let json = format!(
        r#"{{"seed": 1, "duration_s": 2.0, "warmup_s": 0,
        "links": [
          {{"name": "acc", "rate_bps": 8e6, "delay_s": 0.0001}},
          {{"name": "bn", "rate_bps": 0.8e6, "delay_s": 0.05, "queue": {{"limit_packets": 10}}}},
          {{"name": "bnr", "rate_bps": 0.8e6, "delay_s": 0.05}},
          {{"name": "racc", "rate_bps": 8e6, "delay_s": 0.0001}}],
        "bottleneck": "bn",
        "flows": [{{"path": ["acc", "bn"], "ack_path": ["bnr", "racc"],
                    "tcp": {{"cc": "{cc}", "sack": false, "max_window_packets": {w},
                             "packet_bytes": 1000, "initial_window": 2, "min_rto_s": 0.2}}}}]}}"#
    );
    Scenario::from_json(&json).unwrap()
}

struct Outcome {
    drops: u64,
    events: u64,
    retransmits: u64,
    timeouts: u64,
    fast_retransmits: u64,
}

fn run(cc: &str, drops_in_window: u64) -> Outcome {
    let r = bufsize_sim::run(&capped_flow(cc, 21 + drops_in_window)).unwrap();
    let f = &r.flows[0];
    eprintln!(
        "{cc}, {drops_in_window} drop(s): drops {} loss events {} retransmits {} timeouts {} fast retransmits {}",
        f.drops, f.congestion_events, f.retransmits, f.timeouts, r.summary.fast_retransmits
    );
    Outcome {
        drops: f.drops,
        events: f.congestion_events,
        retransmits: f.retransmits,
        timeouts: f.timeouts,
        fast_retransmits: r.summary.fast_retransmits,
    }
}

#[test]
fn the_scenario_drops_k_packets_in_one_window() {
    // The precondition of the other tests: if the engine's queue or slow start changes, this fails
    // first and says the scenario no longer has the drops it claims.
    for k in 1..=4 {
        for cc in ["reno", "newreno"] {
            let o = run(cc, k);
            assert_eq!(o.drops, k, "{cc}: expected {k} drops");
            assert_eq!(
                o.events, 1,
                "{cc}: the {k} drops must fall in one window (one loss event)"
            );
            assert!(
                o.fast_retransmits >= 1,
                "{cc}: three duplicate ACKs must arrive for the first hole"
            );
        }
    }
    // With the window one packet smaller nothing is dropped: the drops are the cap's overshoot.
    let r = bufsize_sim::run(&capped_flow("reno", 21)).unwrap();
    assert_eq!(r.flows[0].drops, 0);
}

#[test]
fn one_drop_is_repaired_by_fast_retransmit_in_both_variants() {
    for cc in ["reno", "newreno"] {
        let o = run(cc, 1);
        assert_eq!(o.timeouts, 0, "{cc}");
        assert_eq!(o.fast_retransmits, 1, "{cc}");
        assert_eq!(
            o.retransmits, 1,
            "{cc}: exactly the lost packet is sent again"
        );
    }
}

#[test]
fn reno_waits_for_the_timer_from_the_second_drop_on() {
    // RFC 5681: the first partial ACK ends fast recovery; with the window at the receiver's cap no
    // new segment was sent during recovery, so no duplicate ACKs come for the next hole.
    for k in 2..=4 {
        let o = run("reno", k);
        assert!(
            o.fast_retransmits >= 1,
            "{k} drops: the first hole is fast-retransmitted"
        );
        assert_eq!(
            o.timeouts, 1,
            "{k} drops: the rest waits for one retransmission timeout"
        );
        assert!(
            o.retransmits >= k,
            "{k} drops: every lost packet is sent again"
        );
    }
    // After the timeout Reno goes back N and resends segments the receiver already has (5 resent for
    // 3 drops, 10 for 4 here); RFC 5681 has no `recover` guard, so their duplicate ACKs can set off a
    // second, needless fast retransmit (seen with 4 drops).
    assert!(run("reno", 3).retransmits > 3);
}

#[test]
fn newreno_repairs_up_to_three_holes_without_a_timeout_and_four_outlast_the_impatient_timer() {
    // RFC 6582: a partial ACK retransmits the next hole and stays in fast recovery, one hole per
    // round trip, and only the lost packets are sent again.
    for k in 1..=3 {
        let o = run("newreno", k);
        assert_eq!(o.timeouts, 0, "{k} drops");
        assert_eq!(o.fast_retransmits, 1, "{k} drops: one recovery episode");
        assert_eq!(
            o.retransmits, k,
            "{k} drops: exactly the lost packets are sent again"
        );
    }
    // Four holes take four round trips (each ≈ 0.2 s with the queue): longer than the RTO the
    // first partial ACK restarted, so the timer fires before the last hole is repaired.
    let o = run("newreno", 4);
    assert_eq!(o.timeouts, 1);
    // ... and NewReno still does better than Reno with the same four drops.
    let reno = run("reno", 4);
    assert!(
        o.retransmits < reno.retransmits,
        "NewReno resends fewer packets than Reno's go-back-N"
    );
}
