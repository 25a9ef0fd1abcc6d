//! RACK-TLP loss detection (RFC 8985) against duplicate-ACK detection (RFC 6675) on the same
//! runs: lost retransmissions, tail losses, and many flows at a tiny buffer.
mod common;
use bufsize_sim::scenario::{Dist, QueueSpec, Scenario, TcpConfig};
use bufsize_sim::tcp::cc::Recovery;
use bufsize_sim::tcp::params::{LossDetection, TcpParams};
use bufsize_sim::tcp::receiver::{AckAction, Receiver};
use bufsize_sim::tcp::reno::Reno;
use bufsize_sim::tcp::sender::Sender;
use common::*;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

const MS: u64 = 1_000_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Ev {
    Arrive(u32),
    Ack(u32, u32),
    Timer,
}

/// What one transfer over the small test path did.
#[derive(Debug)]
struct Transfer {
    done_at: Option<u64>,
    timeouts: u64,
    probes: u64,
    /// (time, segment, how many times it had been sent before) of every transmission.
    sends: Vec<(u64, u32, u32)>,
    /// Time of every ACK the sender received.
    acks: Vec<u64>,
    /// RTT samples taken, and the smoothed RTT at the end (ns).
    rtt_samples: u64,
    srtt: Option<f64>,
}

/// One sender of `total` segments over a path of one-way delay `delay` each way and a
/// bottleneck that serializes a data segment in `tx` (FIFO, no queue limit, no ACK loss);
/// `drop(seq, n)` drops the n-th transmission (0 = the first) of segment `seq`.
fn transfer(
    loss_detection: LossDetection,
    total: u32,
    delay: u64,
    tx: u64,
    drop: impl Fn(u32, u32) -> bool,
) -> Transfer {
    let params = TcpParams {
        sack: true,
        initial_window: 10,
        loss_detection,
        ..TcpParams::default()
    };
    let mut s = Sender::new(&params, Recovery::NewReno, total);
    let mut cc = Reno::default();
    let mut rx = Receiver::default();
    let mut q: BinaryHeap<Reverse<(u64, u64, Ev)>> = BinaryHeap::new();
    let mut order = 0u64;
    let mut link_free = 0u64;
    let mut sent_count: HashMap<u32, u32> = HashMap::new();
    let mut out = Transfer {
        done_at: None,
        timeouts: 0,
        probes: 0,
        sends: vec![],
        acks: vec![],
        rtt_samples: 0,
        srtt: None,
    };
    let mut armed = 0u64;
    let mut batch: Vec<u32> = vec![];
    s.started = true;
    s.fill(0, |x| batch.push(x));
    let mut now = 0u64;
    loop {
        for &seq in &batch {
            let n = sent_count.entry(seq).or_insert(0);
            out.sends.push((now, seq, *n));
            let dropped = drop(seq, *n);
            *n += 1;
            let start = now.max(link_free);
            link_free = start + tx;
            if !dropped {
                order += 1;
                q.push(Reverse((link_free + delay, order, Ev::Arrive(seq))));
            }
        }
        batch.clear();
        if s.rto_deadline != 0 && s.rto_deadline != armed {
            armed = s.rto_deadline;
            order += 1;
            q.push(Reverse((armed, order, Ev::Timer)));
        }
        if s.done {
            out.done_at = Some(now);
            break;
        }
        let Some(Reverse((t, _, ev))) = q.pop() else {
            break;
        };
        now = t;
        if now > 60_000 * MS {
            break;
        }
        match ev {
            Ev::Arrive(seq) => {
                let fresh = seq >= rx.rcv_nxt && !rx.ooo.contains(seq);
                let _: AckAction = rx.on_segment(seq, false);
                let sacked = if fresh && seq >= rx.rcv_nxt {
                    seq
                } else {
                    u32::MAX
                };
                order += 1;
                q.push(Reverse((now + delay, order, Ev::Ack(rx.rcv_nxt, sacked))));
            }
            Ev::Ack(ack, sacked) => {
                out.acks.push(now);
                let rep = s.on_ack(now, ack, sacked, &mut cc, |x| batch.push(x));
                out.timeouts += rep.timeout as u64;
            }
            Ev::Timer => {
                if s.rto_deadline != 0 && s.rto_deadline <= now {
                    armed = 0;
                    let rep = s.on_timeout(now, &mut cc, |x| batch.push(x));
                    out.timeouts += rep.timeout as u64;
                }
            }
        }
    }
    out.probes = s.probes();
    out.rtt_samples = s.rtt_samples;
    out.srtt = s.srtt;
    assert_eq!(out.timeouts, s.timeouts);
    out
}

#[test]
fn rack_repairs_a_lost_retransmission_without_a_timeout() {
    // Segment 60 is lost twice: the original and its fast retransmission. RFC 6675 never
    // learns that a retransmission was lost and waits for the RTO; RACK sees segments sent
    // after the retransmission SACKed and sends it a third time.
    let drop = |seq: u32, n: u32| seq == 60 && n <= 1;
    let d = transfer(LossDetection::DupAck, 400, 20 * MS, MS / 10, drop);
    let r = transfer(LossDetection::Rack, 400, 20 * MS, MS / 10, drop);
    eprintln!(
        "dupack: done {:?} ms, timeouts {}; rack: done {:?} ms, timeouts {}",
        d.done_at.map(|t| t / MS),
        d.timeouts,
        r.done_at.map(|t| t / MS),
        r.timeouts
    );
    assert!(
        d.done_at.is_some() && r.done_at.is_some(),
        "both transfers finish"
    );
    assert!(d.timeouts >= 1, "dupack detection needs the RTO here");
    assert_eq!(r.timeouts, 0, "RACK needs no RTO");
    let third = r.sends.iter().filter(|&&(_, s, _)| s == 60).count();
    assert_eq!(third, 3, "segment 60 sent three times under RACK");
    assert!(r.done_at < d.done_at);
}

#[test]
fn tail_loss_is_repaired_by_a_probe_after_two_srtt() {
    // The last segments of a transfer are lost: nothing SACKs them, so duplicate-ACK detection
    // waits for the RTO (min 200 ms); RACK-TLP probes after PTO = 2·SRTT (RTT 40 ms here).
    for tail in [1u32, 3] {
        let total = 100;
        let drop = move |seq: u32, n: u32| seq >= total - tail && n == 0;
        let d = transfer(LossDetection::DupAck, total, 20 * MS, MS / 10, drop);
        let r = transfer(LossDetection::Rack, total, 20 * MS, MS / 10, drop);
        let (dd, rd) = (d.done_at.unwrap(), r.done_at.unwrap());
        eprintln!(
            "tail {tail}: dupack done {} ms (timeouts {}), rack done {} ms (timeouts {}, probes {})",
            dd / MS,
            d.timeouts,
            rd / MS,
            r.timeouts,
            r.probes
        );
        assert!(d.timeouts >= 1);
        assert_eq!(r.timeouts, 0);
        assert_eq!(r.probes, 1);
        // The probe: the first second transmission of a tail segment. With several segments
        // out it leaves 2·SRTT (~2 x 40 ms) after the last ACK; with one, PTO adds the
        // worst-case delayed ACK (200 ms) and is cut to the RTO's time (RFC 8985 §7.2).
        let &(t_probe, _, _) = r
            .sends
            .iter()
            .find(|&&(_, s, n)| s >= total - tail && n == 1)
            .unwrap();
        let last_ack = *r.acks.iter().filter(|&&a| a < t_probe).max().unwrap();
        let gap = (t_probe - last_ack) as f64 / MS as f64;
        if tail > 1 {
            assert!(
                (75.0..=95.0).contains(&gap),
                "probe {gap:.1} ms after the last ACK, expected about 2 x 40 ms"
            );
            // and the transfer ends well before the RTO would have fired.
            assert!(
                rd + 80 * MS < dd,
                "rack {} ms vs dupack {} ms",
                rd / MS,
                dd / MS
            );
        } else {
            assert!(
                (195.0..=205.0).contains(&gap),
                "probe {gap:.1} ms after the last ACK"
            );
            assert!(rd <= dd);
        }
    }
}

#[test]
fn rack_measures_the_rtt_when_every_flight_has_a_retransmission() {
    // A short transfer loses every third segment once, the first included (a flow crossing a
    // shallow buffer that BBR keeps at 20 % loss). The one-segment RTT timer of duplicate-ACK
    // detection (ns-2's: abandoned whenever anything is retransmitted, so it needs a cumulative
    // ACK to pass the timed segment with no retransmission in between) rarely completes; with
    // RACK every ACK of data sent once is a sample, as in Linux, so the RTO follows the path.
    let drop = |seq: u32, n: u32| seq % 3 == 0 && n == 0;
    let d = transfer(LossDetection::DupAck, 30, 20 * MS, MS / 10, drop);
    let r = transfer(LossDetection::Rack, 30, 20 * MS, MS / 10, drop);
    eprintln!(
        "dupack: {} RTT samples, srtt {:?} ms; rack: {} samples, srtt {:?} ms",
        d.rtt_samples,
        d.srtt.map(|x| x / 1e6),
        r.rtt_samples,
        r.srtt.map(|x| x / 1e6)
    );
    assert!(d.done_at.is_some() && r.done_at.is_some());
    // RACK: one sample for each of the 20 segments delivered at their first transmission (the
    // ACKs of retransmissions give none, Karn); the timer: a few.
    assert_eq!(r.rtt_samples, 20);
    assert!(d.rtt_samples <= 5, "{}", d.rtt_samples);
    // 40 ms of propagation plus at most a window's serialization at 0.1 ms a segment.
    let srtt = r.srtt.unwrap() / 1e6;
    assert!((40.0..=50.0).contains(&srtt), "srtt {srtt:.2} ms");
}

#[test]
fn a_retransmission_lost_after_a_timeout_is_resent_without_another_timeout() {
    // The last ten segments and the tail-loss probe are lost: a timeout. Of the segments resent
    // after it, 91 is lost again while 92 arrives: RACK deems 91 lost from 92's SACK and sends
    // it again at once (Linux's Loss state); go-back-N counts it in the window until the next,
    // doubled, timeout.
    let total = 100u32;
    let drop = move |seq: u32, n: u32| {
        (seq >= total - 10 && n == 0) || (seq == total - 1 && n == 1) || (seq == 91 && n == 1)
    };
    let r = transfer(LossDetection::Rack, total, 20 * MS, MS / 10, drop);
    let d = transfer(LossDetection::DupAck, total, 20 * MS, MS / 10, drop);
    let (rd, dd) = (r.done_at.unwrap(), d.done_at.unwrap());
    eprintln!(
        "rack: done {} ms, timeouts {}, probes {}; dupack: done {} ms, timeouts {}",
        rd / MS,
        r.timeouts,
        r.probes,
        dd / MS,
        d.timeouts
    );
    assert_eq!(r.probes, 1);
    assert_eq!(
        r.timeouts, 1,
        "one timeout: the lost retransmission is repaired by RACK"
    );
    let sends_91 = r.sends.iter().filter(|&&(_, q, _)| q == 91).count();
    assert_eq!(
        sends_91, 3,
        "91: the original, after the timeout, and once more"
    );
    // The third transmission of 91 follows the second by about an RTT (the SACK of 92), not
    // by a backed-off RTO (at least 400 ms).
    let t91: Vec<u64> = r
        .sends
        .iter()
        .filter(|&&(_, q, _)| q == 91)
        .map(|x| x.0)
        .collect();
    assert!(t91[2] - t91[1] < 100 * MS, "{} ms", (t91[2] - t91[1]) / MS);
    assert!(rd < dd);
}

/// 20 flows at 50 Mb/s, RTTs evenly spread over 20-100 ms, 1500-byte packets (BDP 250
/// packets at the 60 ms mean), Linux-like TCP (SACK, PRR, delayed ACKs, IW 10).
fn tiny_buffer(loss_detection: &str, buffer: u64, seed: u64) -> Scenario {
    let rtts: Vec<f64> = (0..20).map(|i| 0.02 + 0.08 * i as f64 / 19.0).collect();
    let mut s = Scenario::dumbbell(
        50e6,
        20,
        Dist::List(rtts),
        QueueSpec {
            limit_packets: Some(buffer),
            limit_bytes: None,
            discipline: None,
        },
    );
    s.seed = seed;
    s.duration_s = 60.0;
    s.warmup_s = 10.0;
    s.dumbbell.as_mut().unwrap().tcp = TcpConfig {
        cc: "newreno".into(),
        sack: true,
        prr: true,
        packet_bytes: 1500,
        initial_window: 10,
        delayed_ack: true,
        delayed_ack_timeout_s: 0.04,
        loss_detection: loss_detection.into(),
        ..TcpConfig::default()
    };
    s
}

#[test]
fn rack_times_out_less_and_fills_a_tiny_buffer_better() {
    let (mut ud, mut ur, mut td, mut tr) = (0.0, 0.0, 0, 0);
    for seed in 1..=3 {
        let d = bufsize_sim::run(&tiny_buffer("dupack", 25, seed)).unwrap();
        let r = bufsize_sim::run(&tiny_buffer("rack", 25, seed)).unwrap();
        let mut lim = vec![Some(25), None];
        lim.extend(std::iter::repeat_n(None, 40));
        check_invariants(&d, &lim);
        check_invariants(&r, &lim);
        eprintln!(
            "seed {seed}, 25 packets: dupack util {:.4} loss {:.4} timeouts {}; rack util {:.4} loss {:.4} timeouts {}",
            d.summary.utilization, d.summary.loss_rate, d.summary.timeouts,
            r.summary.utilization, r.summary.loss_rate, r.summary.timeouts
        );
        ud += d.summary.utilization / 3.0;
        ur += r.summary.utilization / 3.0;
        td += d.summary.timeouts;
        tr += r.summary.timeouts;
    }
    eprintln!("mean utilization dupack {ud:.4} rack {ur:.4}; timeouts {td} vs {tr}");
    assert!(tr < td, "RACK-TLP times out less: {tr} vs {td}");
    assert!(ur > ud, "and keeps the link busier: {ur:.4} vs {ud:.4}");
}

#[test]
fn loss_detection_defaults_to_dupack_and_rejects_unknown_names() {
    assert_eq!(TcpConfig::default().loss_detection, "dupack");
    assert_eq!(TcpParams::default().loss_detection, LossDetection::DupAck);
    let mut s = tiny_buffer("rack", 25, 1);
    assert!(bufsize_sim::validate(&s).is_ok());
    s.dumbbell.as_mut().unwrap().tcp.loss_detection = "fack".into();
    let e = bufsize_sim::validate(&s).unwrap_err().to_string();
    assert!(e.contains("loss_detection"), "{e}");
}

#[test]
fn rack_keeps_the_invariants_under_every_control() {
    // Every registered control with RACK, at a tiny and a deep buffer, long flows plus short
    // transfers: packets conserved, queues within their limits, and every transfer
    // has completed or is still backing off (nothing stalls). BBR at 10 packets is the
    // hard case: 20 BBR flows keep the link full at 20-25 % loss, and a short transfer loses
    // segments in every flight.
    for cc in bufsize_sim::tcp::cc::names() {
        for buffer in [10u64, 200] {
            let mut s = tiny_buffer("rack", buffer, 1);
            s.duration_s = 20.0;
            s.warmup_s = 2.0;
            let tcp = TcpConfig {
                cc: cc.to_string(),
                ..s.dumbbell.as_ref().unwrap().tcp.clone()
            };
            s.dumbbell.as_mut().unwrap().tcp = tcp.clone();
            s.short_flows.push(bufsize_sim::scenario::ShortFlows {
                name: None,
                path: None,
                ack_path: None,
                load: Some(0.2),
                load_link: None,
                rate_bps: None,
                arrivals_per_s: None,
                size_bytes: None,
                size_packets: Some(Dist::IntUniform([1, 60])),
                rtt_s: Dist::Uniform([0.01, 0.1]),
                start_s: 0.0,
                stop_s: None,
                tcp,
            });
            let r = bufsize_sim::run(&s).unwrap();
            check_invariants(&r, &[Some(buffer)]);
            // A transfer still running is either waiting out its retransmission backoff or
            // stalled. At 20-25 % loss (BBR at 10 packets) a few of 600 transfers lose the same
            // segment four or five times in a row and are still backing off at the end; that is
            // not a stall. No RTO here exceeds the initial 1 s before backoff (RTTs ≤ 100 ms, the
            // queue ≤ 50 ms), so after k timeouts the next comes within 2^(k+1) − 1 s of the
            // start at the latest: a transfer older than that has stopped retrying.
            let late = r
                .transfers
                .iter()
                .filter(|t| !t.end_s.is_finite())
                .filter(|t| {
                    let backoff_s = 2f64.powi(t.timeouts.min(20) as i32 + 1) - 1.0;
                    s.duration_s - t.start_s > backoff_s.max(5.0)
                })
                .count();
            eprintln!(
                "{cc}, {buffer} packets: util {:.3} timeouts {} transfers {} unfinished {late}",
                r.summary.utilization,
                r.summary.timeouts,
                r.transfers.len()
            );
            assert!(r.transfers.len() > 100, "{cc}");
            assert_eq!(late, 0, "{cc}: transfers stalled");
            assert!(r.summary.utilization > 0.5, "{cc}");
        }
    }
}
