//! SACK loss recovery (RFC 6675) against NewReno on the same runs.
mod common;
use common::*;

#[test]
fn sack_repairs_a_burst_of_losses_without_timeout() {
    // Slow start overshoots a 30-packet buffer (BDP 100 packets): dozens of losses in one
    // window. NewReno repairs one hole per RTT and falls back to a timeout and go-back-N;
    // SACK retransmits exactly the lost segments.
    let mut s = single_flow(10e6, 0.08, 30, 30.0, 0.0);
    let newreno = bufsize_sim::run(&s).unwrap();
    s.flows[0].tcp.sack = true;
    let sack = bufsize_sim::run(&s).unwrap();
    check_invariants(&newreno, &[None, Some(30), None, None]);
    check_invariants(&sack, &[None, Some(30), None, None]);
    let (n, k) = (&newreno.summary, &sack.summary);
    eprintln!(
        "newreno: util {:.4} drops {} retx {} timeouts {}; sack: util {:.4} drops {} retx {} timeouts {}",
        n.utilization, n.drops, newreno.flows[0].retransmits, n.timeouts,
        k.utilization, k.drops, sack.flows[0].retransmits, k.timeouts
    );
    assert!(n.timeouts >= 1, "NewReno was expected to time out here");
    assert_eq!(k.timeouts, 0);
    // Every SACK retransmission repairs a real loss (no ACK is ever lost in this topology).
    assert_eq!(sack.flows[0].retransmits, k.dropped);
    assert!(k.utilization > n.utilization);
}

#[test]
fn sack_sawtooth_matches_eq17() {
    for frac in [0.25, 0.5] {
        let b = (100.0 * frac) as u64;
        let mut s = single_flow(10e6, 0.08, b, 300.0, 40.0);
        s.flows[0].tcp.sack = true;
        let r = bufsize_sim::run(&s).unwrap();
        check_invariants(&r, &[None, Some(b), None, None]);
        let u = eq17_utilization(100.0, b as f64);
        let p = eq14_loss(100.0, b as f64);
        let sm = &r.summary;
        eprintln!(
            "SACK, B = {b}: utilization {:.4} (eq. 17 {u:.4}), loss {:.3e} (eq. 14 {p:.3e})",
            sm.utilization, sm.loss_rate
        );
        assert!((sm.utilization - u).abs() <= 0.02);
        assert!((sm.loss_rate - p).abs() <= 0.15 * p);
        assert_eq!(sm.timeouts, 0);
    }
}

#[test]
fn sack_many_flows_invariants_and_fewer_timeouts() {
    let mk = |sack: bool| {
        let mut s = bufsize_sim::Scenario::dumbbell(
            155e6,
            100,
            bufsize_sim::scenario::Dist::Uniform([0.02, 0.14]),
            bufsize_sim::scenario::QueueSpec {
                limit_packets: Some(155),
                limit_bytes: None,
                discipline: None,
            },
        );
        s.duration_s = 40.0;
        s.dumbbell.as_mut().unwrap().tcp.sack = sack;
        s
    };
    let a = bufsize_sim::run(&mk(false)).unwrap();
    let b = bufsize_sim::run(&mk(true)).unwrap();
    let mut lim = vec![Some(155), None];
    lim.extend(std::iter::repeat_n(None, 200));
    check_invariants(&a, &lim);
    check_invariants(&b, &lim);
    eprintln!(
        "n = 100: timeouts newreno {} sack {}",
        a.summary.timeouts, b.summary.timeouts
    );
    assert!(b.summary.timeouts * 2 < a.summary.timeouts);
    assert!(b.summary.utilization >= 0.97);
}

#[test]
fn timeout_in_sack_recovery_does_not_raise_ssthresh() {
    // The kernel testbed's twin of one Linux flow: 50 Mb/s, RTT 40 ms, 1514-byte frames,
    // IW 10, delayed ACKs, B = 83 (0.5 BDP). Slow start overshoots by ~220 packets, a lost
    // retransmission ends SACK recovery in a timeout while recovery has kept sending new data,
    // so snd_nxt - snd_una is several windows. Halving that made ssthresh larger than the window
    // that overflowed: each slow start overshot again and the flow cycled through timeouts
    // (utilization 0.58, 65 timeouts in 50 s). With FlightSize bounded by the pipe the flow
    // settles into the eq. (17) sawtooth after the first timeout.
    let mut s = single_flow(50e6, 0.04, 83, 60.0, 10.0);
    for l in s.links.iter_mut() {
        if l.name == "acc" || l.name == "racc" {
            l.rate_bps = 500e6;
        }
    }
    let t = &mut s.flows[0].tcp;
    t.sack = true;
    t.packet_bytes = 1514;
    t.header_bytes = 66;
    t.initial_window = 10;
    t.delayed_ack = true;
    let r = bufsize_sim::run(&s).unwrap();
    check_invariants(&r, &[None, Some(83), None, None]);
    let sm = &r.summary;
    let bdp = 50e6 * 0.04 / (1514.0 * 8.0);
    let u = eq17_utilization(bdp, 83.0);
    eprintln!(
        "B = 83 (0.5 BDP): utilization {:.4} (eq. 17 {u:.4}), timeouts {}, recoveries {}, drops {}",
        sm.utilization, sm.timeouts, sm.fast_retransmits, sm.drops
    );
    assert_eq!(sm.timeouts, 0, "timeouts in the window");
    assert!(
        (sm.utilization - u).abs() <= 0.02,
        "utilization {} vs eq. (17) {u}",
        sm.utilization
    );
    assert!(
        sm.drops <= 2 * sm.fast_retransmits,
        "{} drops in {} recoveries",
        sm.drops,
        sm.fast_retransmits
    );
}

#[test]
fn proportional_rate_reduction_keeps_sending_through_recovery() {
    // RFC 6937 against RFC 6675 recovery, set up like the testbed twin of 8 Reno flows, 50 Mb/s, RTTs
    // 40-100 ms, B = 0.1 BDP (29 packets), 1514-byte frames, IW 10, delayed ACKs (40 ms).
    // RFC 6675 sets cwnd = ssthresh at once and sends nothing until the pipe has fallen below
    // it, half an RTT of silence per flow; with several flows halving in the same overflow the
    // 29-packet queue (7 ms) empties. PRR sends one segment per two delivered instead.
    let run = |prr: bool| {
        let mut s = bufsize_sim::Scenario::dumbbell(
            50e6,
            8,
            bufsize_sim::scenario::Dist::List(
                (0..8).map(|i| 0.04 + 0.06 * i as f64 / 7.0).collect(),
            ),
            bufsize_sim::scenario::QueueSpec {
                limit_packets: Some(29),
                limit_bytes: None,
                discipline: None,
            },
        );
        s.duration_s = 40.0;
        s.warmup_s = 10.0;
        let t = &mut s.dumbbell.as_mut().unwrap().tcp;
        t.sack = true;
        t.prr = prr;
        t.packet_bytes = 1514;
        t.header_bytes = 66;
        t.initial_window = 10;
        t.delayed_ack = true;
        t.delayed_ack_timeout_s = 0.04;
        let r = bufsize_sim::run(&s).unwrap();
        assert!(r.summary.conservation_ok);
        r.summary
    };
    let (classic, prr) = (run(false), run(true));
    eprintln!(
        "8 flows, B = 29: RFC 6675 util {:.4} drops {} timeouts {}; PRR util {:.4} drops {} timeouts {}",
        classic.utilization, classic.drops, classic.timeouts, prr.utilization, prr.drops, prr.timeouts
    );
    assert!(prr.utilization >= classic.utilization + 0.05);
    assert!(prr.drops <= classic.drops);
    // and one flow's sawtooth is unchanged by it (one loss per overflow, eq. (17))
    let mut one = single_flow(10e6, 0.08, 25, 300.0, 40.0);
    one.flows[0].tcp.sack = true;
    one.flows[0].tcp.prr = true;
    let r = bufsize_sim::run(&one).unwrap();
    check_invariants(&r, &[None, Some(25), None, None]);
    let u = eq17_utilization(100.0, 25.0);
    assert!(
        (r.summary.utilization - u).abs() <= 0.02,
        "{} vs eq. (17) {u}",
        r.summary.utilization
    );
    assert_eq!(r.summary.timeouts, 0);
}
