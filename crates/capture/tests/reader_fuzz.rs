//! Fuzzing the capture reader: small valid captures (pcap of both byte orders and timestamp
//! precisions, pcapng with decimal and binary timestamp resolutions) built here, then damaged:
//! bytes flipped, 32-bit fields overwritten with hostile values (0, 12, 0x7FFFFFFF, 0xFFFFFFF0,
//! ...), cut short, bytes inserted or deleted. The properties: the reader answers, a one-line
//! `CaptureError` or a result, never a panic or a hang; and a result stays within physical bounds:
//! a finite duration within the reader's span, no more load bins than that span holds, flows that
//! start before they end inside the capture, no more frames than records, and counts that add up.
//!
//! `cargo test -p bufsize-capture --release --test reader_fuzz` runs 256 cases (about a second);
//! `PROPTEST_CASES=100000` (as `make fuzz` does) runs more.
use bufsize_capture::{CaptureReader, Config, MAX_SPAN_S};
use proptest::prelude::*;

/// One Ethernet + IPv4 + TCP/UDP frame (headers only, as a 96-byte snap length keeps them).
fn frame(i: u32, udp: bool, payload: u16) -> (Vec<u8>, u32) {
    let mut f = vec![2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2, 0x08, 0x00];
    let l4 = if udp { 8u16 } else { 20 };
    let total = 20 + l4 + payload;
    let fwd = i % 2 == 0;
    let (a, b) = if fwd {
        ([10, 0, 0, 1], [10, 0, 0, 2])
    } else {
        ([10, 0, 0, 2], [10, 0, 0, 1])
    };
    f.extend_from_slice(&[0x45, 0, (total >> 8) as u8, total as u8, 0, 0, 0x40, 0, 64]);
    f.push(if udp { 17 } else { 6 });
    f.extend_from_slice(&[0, 0]);
    f.extend_from_slice(&a);
    f.extend_from_slice(&b);
    let (sp, dp) = if fwd { (40000u16, 80u16) } else { (80, 40000) };
    f.extend_from_slice(&sp.to_be_bytes());
    f.extend_from_slice(&dp.to_be_bytes());
    if udp {
        f.extend_from_slice(&(8 + payload).to_be_bytes());
        f.extend_from_slice(&[0, 0]);
    } else {
        let flags: u8 = if i == 0 {
            0x02
        } else if i == 1 {
            0x12
        } else {
            0x10
        };
        f.extend_from_slice(&(1000 + i * 1448).to_be_bytes());
        f.extend_from_slice(&(5000 + i).to_be_bytes());
        f.extend_from_slice(&[0x50, flags, 0xff, 0xff, 0, 0, 0, 0]);
    }
    let orig = 14 + total as u32;
    (f, orig)
}

fn packets(n: u32) -> Vec<(f64, Vec<u8>, u32)> {
    (0..n)
        .map(|i| {
            let (d, o) = frame(i, i % 7 == 6, if i > 2 && i % 2 == 0 { 1448 } else { 0 });
            (i as f64 * 0.013, d, o)
        })
        .collect()
}

fn pcap(n: u32, big_endian: bool, nano: bool) -> Vec<u8> {
    let w32 = |v: &mut Vec<u8>, x: u32| {
        v.extend_from_slice(&if big_endian {
            x.to_be_bytes()
        } else {
            x.to_le_bytes()
        })
    };
    let w16 = |v: &mut Vec<u8>, x: u16| {
        v.extend_from_slice(&if big_endian {
            x.to_be_bytes()
        } else {
            x.to_le_bytes()
        })
    };
    let mut v = Vec::new();
    w32(&mut v, if nano { 0xA1B2_3C4D } else { 0xA1B2_C3D4 });
    w16(&mut v, 2);
    w16(&mut v, 4);
    w32(&mut v, 0);
    w32(&mut v, 0);
    w32(&mut v, 96);
    w32(&mut v, 1);
    let scale = if nano { 1e9 } else { 1e6 };
    for (t, d, o) in packets(n) {
        let ticks = ((1.7e9 + t) * scale).round() as u64;
        let s = scale as u64;
        w32(&mut v, (ticks / s) as u32);
        w32(&mut v, (ticks % s) as u32);
        w32(&mut v, d.len() as u32);
        w32(&mut v, o);
        v.extend_from_slice(&d);
    }
    v
}

fn pcapng(n: u32, tsresol: u8) -> Vec<u8> {
    let mut v = Vec::new();
    let block = |v: &mut Vec<u8>, ty: u32, body: &[u8]| {
        let len = 12 + body.len() as u32;
        v.extend_from_slice(&ty.to_le_bytes());
        v.extend_from_slice(&len.to_le_bytes());
        v.extend_from_slice(body);
        v.extend_from_slice(&len.to_le_bytes());
    };
    let mut shb = Vec::new();
    shb.extend_from_slice(&0x1A2B_3C4Du32.to_le_bytes());
    shb.extend_from_slice(&[1, 0, 0, 0]);
    shb.extend_from_slice(&(-1i64).to_le_bytes());
    block(&mut v, 0x0A0D_0D0A, &shb);
    let mut idb = vec![1, 0, 0, 0, 96, 0, 0, 0];
    idb.extend_from_slice(&[9, 0, 1, 0, tsresol, 0, 0, 0, 0, 0, 0, 0]);
    block(&mut v, 1, &idb);
    let n_ = (tsresol & 0x7f) as i32;
    let scale = if tsresol & 0x80 == 0 {
        10f64.powi(n_)
    } else {
        2f64.powi(n_)
    };
    for (t, d, o) in packets(n) {
        let ticks = ((1.7e9 + t) * scale).round() as u64;
        let mut b = Vec::new();
        b.extend_from_slice(&0u32.to_le_bytes());
        b.extend_from_slice(&((ticks >> 32) as u32).to_le_bytes());
        b.extend_from_slice(&(ticks as u32).to_le_bytes());
        b.extend_from_slice(&(d.len() as u32).to_le_bytes());
        b.extend_from_slice(&o.to_le_bytes());
        b.extend_from_slice(&d);
        while b.len() % 4 != 0 {
            b.push(0);
        }
        block(&mut v, 6, &b);
    }
    v
}

#[derive(Clone, Debug)]
enum Damage {
    Flip(usize, u8),
    Word(usize, u32),
    Cut(usize),
    Insert(usize, Vec<u8>),
    Delete(usize, usize),
}

fn damage() -> impl Strategy<Value = Damage> {
    let word = prop_oneof![
        Just(0u32),
        Just(1),
        Just(12),
        Just(13),
        Just(0x7FFF_FFFF),
        Just(0x8000_0000),
        Just(0xFFFF_FFF0),
        Just(u32::MAX),
        Just(262_145),
        any::<u32>(),
    ];
    prop_oneof![
        (any::<usize>(), 1u8..=255).prop_map(|(i, x)| Damage::Flip(i, x)),
        (any::<usize>(), word).prop_map(|(i, x)| Damage::Word(i, x)),
        any::<usize>().prop_map(Damage::Cut),
        (
            any::<usize>(),
            proptest::collection::vec(any::<u8>(), 1..40)
        )
            .prop_map(|(i, b)| Damage::Insert(i, b)),
        (any::<usize>(), 1usize..64).prop_map(|(i, k)| Damage::Delete(i, k)),
    ]
}

fn apply(mut v: Vec<u8>, d: &Damage) -> Vec<u8> {
    if v.is_empty() {
        return v;
    }
    let n = v.len();
    match d {
        Damage::Flip(i, x) => v[i % n] ^= x,
        Damage::Word(i, x) => {
            let at = (i % n) & !3; // fields sit at 4-byte offsets in both formats
            for (k, b) in x.to_le_bytes().iter().enumerate() {
                if at + k < n {
                    v[at + k] = *b;
                }
            }
        }
        Damage::Cut(i) => v.truncate(i % n),
        Damage::Insert(i, b) => {
            let at = i % n;
            v.splice(at..at, b.iter().copied());
        }
        Damage::Delete(i, k) => {
            let at = i % n;
            let end = (at + k).min(n);
            v.drain(at..end);
        }
    }
    v
}

fn base() -> impl Strategy<Value = Vec<u8>> {
    (1u32..40, 0usize..8).prop_map(|(n, kind)| match kind {
        0 => pcap(n, false, false),
        1 => pcap(n, true, false),
        2 => pcap(n, false, true),
        3 => pcapng(n, 6),
        4 => pcapng(n, 9),
        5 => pcapng(n, 0x80 | 20),
        6 => pcapng(n, 0x80 | 10),
        _ => pcapng(n, 3),
    })
}

fn check(data: Vec<u8>) -> Result<(), TestCaseError> {
    let cfg = Config::default();
    let bin_s = cfg.bin_s;
    let mut r = match CaptureReader::from_bytes(data, cfg) {
        Ok(r) => r,
        Err(e) => {
            prop_assert!(!e.0.contains('\n') && e.0.len() < 400, "error: {}", e.0);
            return Ok(());
        }
    };
    let mut steps = 0;
    loop {
        match r.step(1 << 20) {
            Ok(true) => {
                steps += 1;
                prop_assert!(steps < 10_000, "reader does not finish");
            }
            Ok(false) => break,
            Err(e) => {
                prop_assert!(!e.0.contains('\n') && e.0.len() < 400, "error: {}", e.0);
                return Ok(());
            }
        }
    }
    if let Some(t) = &r.truncated {
        prop_assert!(!t.contains('\n') && t.len() < 400, "note: {t}");
    }
    let d = r.duration_s();
    prop_assert!(
        d.is_finite() && (0.0..=MAX_SPAN_S).contains(&d),
        "duration {d}"
    );
    prop_assert!(r.st.tracker.bins.len() as f64 <= MAX_SPAN_S / bin_s + 2.0);
    let s = r.st.tracker.stats.clone();
    prop_assert!(
        s.frames <= r.records,
        "{} frames, {} records",
        s.frames,
        r.records
    );
    prop_assert!(s.frame_bytes <= s.frames * bufsize_capture::MAX_RECORD as u64);
    prop_assert_eq!(s.unbinned_bytes, 0);
    let recs = r.st.tracker.take_records();
    let binned: u64 = r.st.tracker.bins.iter().map(|b| b[0] + b[1]).sum();
    prop_assert!(binned <= s.frame_bytes);
    for f in &recs {
        prop_assert!(f.start_s.is_finite() && f.end_s.is_finite() && f.start_s <= f.end_s);
        prop_assert!(
            f.start_s >= -1.0 && f.end_s <= d + 1e-9,
            "{} .. {} of {d}",
            f.start_s,
            f.end_s
        );
        prop_assert!(f.ip_bytes[0] + f.ip_bytes[1] <= (f.packets[0] + f.packets[1]) * 65_575);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn damaged_captures_are_read_or_refused_never_a_panic(
        data in base(),
        ds in proptest::collection::vec(damage(), 1..4),
    ) {
        let mut v = data;
        for d in &ds {
            v = apply(v, d);
        }
        check(v)?;
    }

    #[test]
    fn random_bytes_after_a_valid_header(kind in 0usize..2, tail in proptest::collection::vec(any::<u8>(), 0..600)) {
        let mut v = if kind == 0 { pcap(1, false, false) } else { pcapng(1, 6) };
        v.extend_from_slice(&tail);
        check(v)?;
    }
}

#[test]
fn undamaged_captures_read_whole() {
    for (name, v) in [
        ("pcap", pcap(30, false, false)),
        ("pcap be", pcap(30, true, false)),
        ("pcap ns", pcap(30, false, true)),
        ("pcapng us", pcapng(30, 6)),
        ("pcapng 2^-20", pcapng(30, 0x80 | 20)),
        ("pcapng ms", pcapng(30, 3)),
    ] {
        let mut r = CaptureReader::from_bytes(v, Config::default()).unwrap();
        while r.step(1 << 20).unwrap() {}
        assert!(r.truncated.is_none(), "{name}: {:?}", r.truncated);
        assert_eq!(r.st.tracker.stats.frames, 30, "{name}");
        // 29 gaps of 13 ms, whatever the resolution (2^-20 s and 1 ms round)
        assert!(
            (r.duration_s() - 29.0 * 0.013).abs() < 1.5e-3,
            "{name}: {}",
            r.duration_s()
        );
    }
}
