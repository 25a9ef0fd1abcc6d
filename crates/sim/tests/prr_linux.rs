//! `prr_linux`: PRR as Linux's `tcp_cwnd_reduction` against RFC 6937's PRR-SSRB, on one SACK
//! sender driven ACK by ACK. Window 10, segments 0-5 lost, 6-8 SACKed: recovery starts on the
//! third SACK with ssthresh 5 (Reno: FlightSize / 2) and pipe 2 (segment 9 and the fast
//! retransmission of 0), below ssthresh, so PRR is in its slow-start part.
use bufsize_sim::tcp::cc::Recovery;
use bufsize_sim::tcp::params::TcpParams;
use bufsize_sim::tcp::reno::Reno;
use bufsize_sim::tcp::sender::Sender;

const MS: u64 = 1_000_000;

fn sender(prr_linux: bool) -> (Sender, Vec<u32>) {
    let params = TcpParams {
        sack: true,
        prr: true,
        prr_linux,
        initial_window: 10,
        ..TcpParams::default()
    };
    let mut s = Sender::new(&params, Recovery::NewReno, 1_000);
    s.started = true;
    let mut first = vec![];
    s.fill(0, |q| first.push(q));
    (s, first)
}

/// Segments sent in response to each ACK (cumulative ACK, SACKed segment or u32::MAX).
fn drive(s: &mut Sender, acks: &[(u32, u32)]) -> Vec<Vec<u32>> {
    let mut cc = Reno::default();
    acks.iter()
        .enumerate()
        .map(|(i, &(ack, sacked))| {
            let mut out = vec![];
            s.on_ack(100 * MS + i as u64 * MS, ack, sacked, &mut cc, |q| {
                out.push(q)
            });
            out
        })
        .collect()
}

#[test]
fn slow_start_part_sends_one_more_than_delivered_only_when_snd_una_advances() {
    let acks = [(0, 6), (0, 7), (0, 8)];
    let (mut rfc, first) = sender(false);
    assert_eq!(first, (0..10).collect::<Vec<_>>());
    let r = drive(&mut rfc, &acks);
    assert_eq!(rfc.w.ssthresh, 5.0);
    // RFC 6937 SSRB: sndcnt = min(ssthresh − pipe, max(prr_delivered − prr_out, delivered) + 1)
    // = min(3, max(1 − 1, 1) + 1) = 2 besides the fast retransmission.
    assert_eq!(r[2], vec![0, 1, 2]);
    let (mut linux, _) = sender(true);
    let l = drive(&mut linux, &acks);
    // Linux: the + 1 only on an ACK that advances snd_una; this one only SACKs: sndcnt = 1.
    assert_eq!(l[2], vec![0, 1]);
    assert_eq!(linux.w.cwnd, 3.0);
}

#[test]
fn an_ack_that_delivers_nothing_leaves_the_window_alone() {
    // After the recovery starts, a duplicate ACK that carries no new SACK information.
    let acks = [(0, 6), (0, 7), (0, 8), (0, u32::MAX)];
    let (mut rfc, _) = sender(false);
    let r = drive(&mut rfc, &acks);
    // RFC 6937 recomputes the window on every ACK: pipe 4 + min(1, max(1 − 3, 0) + 1) = 5.
    assert_eq!(r[3], vec![3]);
    let (mut linux, _) = sender(true);
    let l = drive(&mut linux, &acks);
    let cwnd = linux.w.cwnd;
    assert!(l[3].is_empty(), "sent {:?}", l[3]);
    assert_eq!(cwnd, 3.0);
    // Once snd_una advances (the retransmitted 0 arrives: cumulative ACK 1), it sends again,
    // one segment more than delivered.
    let more = drive(&mut linux, &[(1, u32::MAX)]);
    assert_eq!(more[0].len(), 2, "{:?}", more[0]);
}
