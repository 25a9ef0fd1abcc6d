//! Unit tests of the sender's answer to ECE (RFC 3168 §6.1.2).
use super::*;
use crate::tcp::reno::Reno;

fn ecn_sender(ecn: bool) -> Sender {
    let cfg = TcpParams {
        initial_window: 10,
        ecn,
        ..TcpParams::default()
    };
    Sender::new(&cfg, Recovery::NewReno, u32::MAX)
}

/// ACK `ack` (new data, no SACK) and, if `ece`, the ECE answer, as the engine does.
fn ack(s: &mut Sender, cc: &mut Reno, now: Ns, ack: u32, ece: bool) -> bool {
    ack_sent(s, cc, now, ack, ece).0
}

/// `ack`, also returning the new segments the ACK released.
fn ack_sent(s: &mut Sender, cc: &mut Reno, now: Ns, ack: u32, ece: bool) -> (bool, u32) {
    let (una, hi) = (s.snd_una, s.snd_max);
    s.on_ack(now, ack, u32::MAX, cc, |_| {});
    let reduced = ece && s.on_ece(now, cc, s.snd_una - una, s.snd_max - hi);
    (reduced, s.snd_max - hi)
}

#[test]
fn repeated_ece_reduces_once_per_window_of_data() {
    let mut s = ecn_sender(true);
    let mut cc = Reno::default();
    s.fill(0, |_| {});
    assert!(ack(&mut s, &mut cc, 1, 1, true), "the first ECE reduces");
    assert!(s.cwr_pending);
    let (cwnd, until) = (s.w.cwnd, s.snd_max);
    // Flight after the ACK was 9 (+ what it released, capped by the window of 10): half.
    assert!((4.5..=5.5).contains(&cwnd), "cwnd {cwnd}");
    assert_eq!(s.w.ssthresh, cwnd);
    // Every ACK up to the data outstanding at the reduction carries ECE: no further cut.
    for a in 2..until {
        assert!(!ack(&mut s, &mut cc, 1 + a as Ns, a, true), "ack {a}");
        s.fill(1 + a as Ns, |_| {});
    }
    // The ACK of exactly that data still answers segments sent before the reduction (the
    // receiver has not yet seen the CWR segment, the first one sent after it): no cut either.
    assert!(
        s.snd_max > until,
        "the segment after the reduction was sent"
    );
    assert!(!ack(&mut s, &mut cc, 100, until, true));
    assert_eq!(s.ecn_reductions, 1);
    // An ACK above it covers the CWR segment: ECE there is new congestion, a second reduction.
    assert!(ack(&mut s, &mut cc, 101, until + 1, true));
    assert_eq!(s.ecn_reductions, 2);
    assert_eq!((s.retransmits, s.fast_retransmits, s.timeouts), (0, 0, 0));
}

#[test]
fn the_window_holds_from_an_ece_reduction_until_the_segment_after_it_is_acknowledged() {
    let mut s = ecn_sender(true);
    let mut cc = Reno::default();
    s.fill(0, |_| {});
    // Congestion avoidance from the start (ssthresh at the window), so that growth shows.
    s.w.ssthresh = s.w.cwnd;
    assert!(ack(&mut s, &mut cc, 1, 1, true));
    let (cut, until) = (s.w.cwnd, s.snd_max);
    // ACKs without ECE up to the data outstanding at the reduction: the window stays at the cut
    // (RFC 3168 §6.1.2 treats ECE as a loss, whose recovery does not grow the window; Linux and
    // ns-3 make no increase while in CA_CWR).
    for a in 2..=until {
        ack(&mut s, &mut cc, 1 + a as Ns, a, false);
        assert_eq!(s.w.cwnd, cut, "ack {a}");
        s.fill(1 + a as Ns, |_| {});
    }
    // The first ACK above it ends the episode: congestion avoidance resumes.
    ack(&mut s, &mut cc, 100, until + 1, false);
    assert!(s.w.cwnd > cut, "cwnd {} after the episode", s.w.cwnd);
    assert_eq!(s.ecn_reductions, 1);
}

#[test]
fn ece_is_ignored_without_ecn_and_in_loss_recovery() {
    let mut cc = Reno::default();
    let mut s = ecn_sender(false);
    s.fill(0, |_| {});
    assert!(!ack(&mut s, &mut cc, 1, 1, true));
    assert_eq!((s.w.cwnd, s.cwr_pending), (11.0, false));
    // In fast recovery (three duplicate ACKs) the loss's own reduction stands.
    let mut s = ecn_sender(true);
    s.fill(0, |_| {});
    for _ in 0..3 {
        ack(&mut s, &mut cc, 1, 0, false);
    }
    assert!(s.in_recovery);
    let w = s.w;
    assert!(!ack(&mut s, &mut cc, 2, 0, true));
    assert_eq!((s.w.ssthresh, s.ecn_reductions), (w.ssthresh, 0));
}

#[test]
fn with_prr_an_ece_reduction_sends_in_proportion_over_the_episode_and_ends_at_ssthresh() {
    let cfg = TcpParams {
        initial_window: 20,
        ecn: true,
        sack: true,
        prr: true,
        ..TcpParams::default()
    };
    let mut s = Sender::new(&cfg, Recovery::NewReno, u32::MAX);
    let mut cc = Reno::default();
    s.fill(0, |_| {});
    s.w.ssthresh = s.w.cwnd;
    let (reduced, first) = ack_sent(&mut s, &mut cc, 1, 1, true);
    assert!(reduced);
    let (ssthresh, until) = (s.w.ssthresh, s.snd_max);
    assert!((9.5..=10.5).contains(&ssthresh), "ssthresh {ssthresh}");
    // The window comes down with the deliveries, not at once: about ssthresh / RecoverFS (one
    // half) of a segment per segment delivered. A cut to ssthresh at once would send nothing
    // until the flight had fallen below it (the next ten ACKs).
    let mut sent = first;
    let mut early = 0;
    for a in 2..=until {
        let (_, n) = ack_sent(&mut s, &mut cc, 1 + a as Ns, a, false);
        sent += n;
        if a <= 7 {
            early += n;
        }
        assert!(s.w.cwnd <= 20.0, "ack {a}: cwnd {}", s.w.cwnd);
    }
    assert!(
        early >= 2,
        "segments sent on the six ACKs after the ECE: {early}"
    );
    // Over the episode (the window outstanding at the ECE) about ssthresh went out.
    assert!(
        (sent as f64 - ssthresh).abs() <= 1.0,
        "sent {sent}, ssthresh {ssthresh}"
    );
    // The first ACK above the episode: the window is ssthresh, then grows as usual.
    ack_sent(&mut s, &mut cc, 100, until + 1, false);
    assert!(
        s.w.cwnd >= ssthresh && s.w.cwnd < ssthresh + 0.2,
        "cwnd {}",
        s.w.cwnd
    );
    assert_eq!(s.ecn_reductions, 1);
}

#[test]
fn an_ece_reduction_halves_the_window_not_the_flight_left_before_the_ack_refills_it() {
    // A full window of 20 in congestion avoidance; a delayed ACK covers two segments and
    // carries ECE. RFC 3168 §6.1.2 halves the congestion window (Linux: tcp_reno_ssthresh,
    // cwnd / 2): ssthresh 10. Halving the bytes in flight after the ACK removed its two
    // segments and before it released new ones (ns-3's EnterCwr) would give 9.
    let mut s = ecn_sender(true);
    let mut cc = Reno::default();
    s.w.cwnd = 20.0;
    s.w.ssthresh = 20.0;
    s.fill(0, |_| {});
    assert_eq!(s.snd_max, 20);
    let (reduced, released) = ack_sent(&mut s, &mut cc, 1, 2, true);
    assert!(reduced);
    assert_eq!(
        released, 2,
        "the ACK refilled the window before the reduction"
    );
    assert_eq!(s.w.ssthresh, 10.0);
}

/// An ECE reduction, then three duplicate ACKs (a loss) inside its episode.
fn loss_in_cwr(keep: bool, sack: bool) -> (Sender, f64, f64, i64) {
    let cfg = TcpParams {
        initial_window: 20,
        ecn: true,
        sack,
        prr: sack,
        loss_in_cwr_keeps_reduction: keep,
        ..TcpParams::default()
    };
    let mut s = Sender::new(&cfg, Recovery::NewReno, u32::MAX);
    let mut cc = Reno::default();
    s.fill(0, |_| {});
    s.w.ssthresh = s.w.cwnd;
    assert!(ack(&mut s, &mut cc, 1, 1, true), "the ECE reduces");
    let (ssthresh, cwnd, until) = (s.w.ssthresh, s.w.cwnd, s.ecn_until);
    // segment 1 is lost: the next ACKs repeat 1 (SACKing 2, 3, 4 with SACK)
    for (i, q) in [2u32, 3, 4].into_iter().enumerate() {
        let sacked = if sack { q } else { u32::MAX };
        s.on_ack(2 + i as Ns, 1, sacked, &mut cc, |_| {});
    }
    assert!(s.in_recovery, "three duplicate ACKs start a recovery");
    assert!(s.in_cwr(), "inside the ECE episode (snd_una 1 <= {until})");
    (s, ssthresh, cwnd, until)
}

#[test]
fn a_loss_inside_an_ece_episode_does_not_reduce_again_when_the_stack_says_so() {
    for sack in [true, false] {
        // Linux (tcp_enter_recovery reduces only outside CA_CWR; RFC 3168 §6.1.2): one
        // reduction for the window, the recovery ending where the episode would.
        let (s, ssthresh, _, until) = loss_in_cwr(true, sack);
        assert_eq!(s.w.ssthresh, ssthresh, "sack {sack}: ssthresh kept");
        assert_eq!(s.recover, until - 1, "sack {sack}: the episode's end point");
        assert!(
            !s.cwr_prr,
            "sack {sack}: the recovery took the episode's PRR over"
        );
        // ns-3's rule (and the engine's default): the loss halves the reduced window again.
        let (s, ssthresh, cwnd, _) = loss_in_cwr(false, sack);
        assert!(
            s.w.ssthresh < ssthresh && s.w.ssthresh <= (cwnd / 2.0).ceil() + 1.0,
            "sack {sack}: ssthresh {} after {ssthresh}",
            s.w.ssthresh
        );
    }
}
