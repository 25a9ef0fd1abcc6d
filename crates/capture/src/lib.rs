//! Streaming reader of packet captures (pcap and pcapng) feeding a per-flow tracker.
//!
//! ```no_run
//! let mut r = bufsize_capture::CaptureReader::open("trace.pcap", Default::default()).unwrap();
//! while r.step(64 << 20).unwrap() {}
//! for rec in r.st.tracker.take_records() { println!("{:?}", rec.rtt_min_s); }
//! ```
//!
//! The file is read through a fixed buffer and each frame is decoded in place; the tracker keeps
//! only live flows. [`CaptureReader::step`] processes a bounded amount of input so a caller can
//! report progress and collect finished flow records between steps.
pub mod flow;
pub mod packet;

use std::fs::File;
use std::io::Read;
use std::path::Path;

use pcap_parser::pcapng::Block;
use pcap_parser::traits::PcapReaderIterator;
use pcap_parser::{PcapBlockOwned, PcapError};

pub use flow::{Config, EndReason, FlowRecord, Limit, Stats, Tracker};

/// A capture that cannot be read at all (not a truncation: those are reported in `truncated`).
#[derive(Debug, Clone)]
pub struct CaptureError(pub String);

impl std::fmt::Display for CaptureError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}
impl std::error::Error for CaptureError {}

const BUF: usize = 4 << 20;
const BUF_MAX: usize = 256 << 20;

struct Iface {
    linktype: i32,
    /// timestamp units per second
    resol: u64,
    offset: i64,
}

/// Counts `Read` bytes so progress can be reported.
struct Counting<R> {
    inner: R,
    n: std::sync::Arc<std::sync::atomic::AtomicU64>,
}
impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let k = self.inner.read(buf)?;
        self.n
            .fetch_add(k as u64, std::sync::atomic::Ordering::Relaxed);
        Ok(k)
    }
}

/// Everything but the file reader (so a frame borrowed from the reader's buffer can be decoded
/// while the state is updated).
pub struct State {
    /// Link types seen (pcap: one; pcapng: one per interface).
    pub linktypes: Vec<i32>,
    ifaces: Vec<Iface>,
    legacy: Option<Iface>,
    /// Absolute time of the first frame (seconds since the epoch).
    pub t0_s: f64,
    t0_whole: i64,
    have_t0: bool,
    last_t: f64,
    /// Frames of link types we do not decode.
    pub unsupported_frames: u64,
    pub tracker: Tracker,
}

impl State {
    #[inline]
    fn time(&mut self, whole: i64, frac: u64, resol: u64) -> f64 {
        if !self.have_t0 {
            self.have_t0 = true;
            self.t0_whole = whole;
            self.t0_s = whole as f64 + frac as f64 / resol as f64;
        }
        let t = (whole - self.t0_whole) as f64 + frac as f64 / resol as f64
            - (self.t0_s - self.t0_whole as f64);
        if t > self.last_t {
            self.last_t = t;
        }
        t
    }

    #[inline]
    fn frame(&mut self, lt: i32, t: f64, data: &[u8], caplen: u32, origlen: u32) {
        let st = &mut self.tracker.stats;
        st.frames += 1;
        st.frame_bytes += origlen as u64;
        if caplen < origlen {
            st.snapped += 1;
        }
        if !packet::link_supported(lt) {
            self.unsupported_frames += 1;
            return;
        }
        match packet::decode(lt, data) {
            Ok(p) => self.tracker.packet(t, origlen, &p),
            Err(packet::Skip::NotIp) => self.tracker.stats.not_ip += 1,
            Err(packet::Skip::Malformed) => self.tracker.stats.malformed += 1,
            Err(packet::Skip::Fragment) => self.tracker.stats.fragments += 1,
        }
    }
}

pub struct CaptureReader {
    reader: Box<dyn PcapReaderIterator + Send>,
    read_bytes: std::sync::Arc<std::sync::atomic::AtomicU64>,
    consumed: u64,
    /// File size in bytes (0 if unknown: a pipe).
    pub file_size: u64,
    /// "pcap" or "pcapng".
    pub format: &'static str,
    /// Why reading stopped before a clean end of file, if it did.
    pub truncated: Option<String>,
    pub st: State,
    done: bool,
}

impl CaptureReader {
    pub fn open<P: AsRef<Path>>(path: P, cfg: Config) -> Result<Self, CaptureError> {
        let p = path.as_ref();
        let file =
            File::open(p).map_err(|e| CaptureError(format!("cannot open {}: {e}", p.display())))?;
        // a pipe (standard input, a decompressor's output) has no size: it is read to its end
        let regular = file.metadata().map(|m| m.is_file()).unwrap_or(false);
        let file_size = if regular {
            file.metadata().map(|m| m.len()).unwrap_or(0)
        } else {
            0
        };
        if regular && file_size == 0 {
            return Err(CaptureError(format!(
                "{} is empty, not a capture",
                p.display()
            )));
        }
        let read_bytes = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
        let counting = Counting {
            inner: file,
            n: read_bytes.clone(),
        };
        let reader = match pcap_parser::create_reader(BUF, counting) {
            Ok(r) => r,
            Err(PcapError::Eof) if read_bytes.load(std::sync::atomic::Ordering::Relaxed) == 0 => {
                return Err(CaptureError(format!(
                    "{} is empty, not a capture",
                    p.display()
                )))
            }
            Err(PcapError::HeaderNotRecognized) | Err(PcapError::Eof) => {
                return Err(CaptureError(format!(
                    "{} is not a pcap or pcapng capture (its first bytes match neither format)",
                    p.display()
                )))
            }
            Err(PcapError::Incomplete(_)) | Err(PcapError::UnexpectedEof) => {
                return Err(CaptureError(format!(
                    "{} ends inside its file header: not a usable capture",
                    p.display()
                )))
            }
            Err(e) => {
                return Err(CaptureError(format!(
                    "{}: cannot read capture: {e}",
                    p.display()
                )))
            }
        };
        Ok(CaptureReader {
            reader,
            read_bytes,
            consumed: 0,
            file_size,
            format: "pcap",
            truncated: None,
            st: State {
                linktypes: Vec::new(),
                ifaces: Vec::new(),
                legacy: None,
                t0_s: f64::NAN,
                t0_whole: 0,
                have_t0: false,
                last_t: 0.0,
                unsupported_frames: 0,
                tracker: Tracker::new(cfg),
            },
            done: false,
        })
    }

    /// Bytes of the file consumed so far.
    pub fn position(&self) -> u64 {
        self.consumed
    }

    /// Bytes read from disk so far (ahead of `position` by at most the buffer).
    pub fn bytes_read(&self) -> u64 {
        self.read_bytes.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Seconds between the first and the last frame.
    pub fn duration_s(&self) -> f64 {
        self.st.last_t
    }

    pub fn is_done(&self) -> bool {
        self.done
    }

    /// Process about `budget` more bytes of the file. Returns false once the whole capture has
    /// been read (then every flow has been emitted).
    pub fn step(&mut self, budget: u64) -> Result<bool, CaptureError> {
        if self.done {
            return Ok(false);
        }
        let stop_at = self.consumed.saturating_add(budget);
        let mut buf_size = BUF;
        while self.consumed < stop_at {
            let st = &mut self.st;
            let res = self.reader.next();
            match res {
                Ok((offset, block)) => {
                    match block {
                        PcapBlockOwned::LegacyHeader(h) => {
                            self.format = "pcap";
                            let lt = h.network.0;
                            st.linktypes.push(lt);
                            if !packet::link_supported(lt) {
                                return Err(CaptureError(format!(
                                    "unsupported link type {lt} (supported: Ethernet, Linux cooked SLL/SLL2, raw IP, loopback)"
                                )));
                            }
                            let resol = if h.is_nanosecond_precision() {
                                1_000_000_000
                            } else {
                                1_000_000
                            };
                            st.legacy = Some(Iface {
                                linktype: lt,
                                resol,
                                offset: 0,
                            });
                        }
                        PcapBlockOwned::Legacy(b) => {
                            let (lt, resol) = match &st.legacy {
                                Some(i) => (i.linktype, i.resol),
                                None => (packet::LT_ETHERNET, 1_000_000),
                            };
                            let t = st.time(b.ts_sec as i64, b.ts_usec as u64, resol);
                            st.frame(lt, t, b.data, b.caplen, b.origlen);
                        }
                        PcapBlockOwned::NG(Block::SectionHeader(_)) => {
                            self.format = "pcapng";
                            st.ifaces.clear();
                        }
                        PcapBlockOwned::NG(Block::InterfaceDescription(idb)) => {
                            self.format = "pcapng";
                            let lt = idb.linktype.0;
                            st.linktypes.push(lt);
                            let resol = idb.ts_resolution().unwrap_or(1_000_000).max(1);
                            st.ifaces.push(Iface {
                                linktype: lt,
                                resol,
                                offset: idb.ts_offset(),
                            });
                        }
                        PcapBlockOwned::NG(Block::EnhancedPacket(epb)) => {
                            let (lt, resol, off) = match st.ifaces.get(epb.if_id as usize) {
                                Some(i) => (i.linktype, i.resol, i.offset),
                                None => {
                                    return Err(CaptureError(format!(
                                        "pcapng packet refers to interface {} which was never described",
                                        epb.if_id
                                    )))
                                }
                            };
                            let ticks = ((epb.ts_high as u64) << 32) | epb.ts_low as u64;
                            let whole = (ticks / resol) as i64 + off;
                            let t = st.time(whole, ticks % resol, resol);
                            st.frame(lt, t, epb.data, epb.caplen, epb.origlen);
                        }
                        PcapBlockOwned::NG(Block::SimplePacket(spb)) => {
                            // no timestamp: it shares the previous frame's time
                            let lt = st
                                .ifaces
                                .first()
                                .map(|i| i.linktype)
                                .unwrap_or(packet::LT_ETHERNET);
                            let t = st.last_t;
                            let caplen = spb.data.len() as u32;
                            st.frame(lt, t, spb.data, caplen, spb.origlen);
                        }
                        PcapBlockOwned::NG(_) => {}
                    }
                    self.reader.consume(offset);
                    self.consumed += offset as u64;
                }
                Err(PcapError::Eof) => {
                    self.finish();
                    return Ok(false);
                }
                Err(PcapError::Incomplete(_)) => {
                    let before = self.bytes_read();
                    self.reader
                        .refill()
                        .map_err(|e| CaptureError(format!("read error: {e}")))?;
                    if self.bytes_read() == before && self.reader.reader_exhausted() {
                        // the next call reports UnexpectedEof or Eof
                        continue;
                    }
                }
                Err(PcapError::UnexpectedEof) => {
                    self.truncated = Some(if self.file_size > 0 {
                        let left = self.file_size.saturating_sub(self.consumed);
                        format!("the capture ends inside a record ({left} bytes after the last complete packet were ignored)")
                    } else {
                        "the capture ends inside a record (the last, incomplete packet was ignored)".to_string()
                    });
                    self.finish();
                    return Ok(false);
                }
                Err(PcapError::BufferTooSmall) => {
                    buf_size *= 2;
                    if buf_size > BUF_MAX || !self.reader.grow(buf_size) {
                        return self.corrupt("a record larger than 256 MiB");
                    }
                    self.reader
                        .refill()
                        .map_err(|e| CaptureError(format!("read error: {e}")))?;
                }
                Err(e) => {
                    let msg = format!("{e}");
                    return self.corrupt(&msg);
                }
            }
        }
        Ok(true)
    }

    /// A record that cannot be parsed: keep what came before it if anything did.
    fn corrupt(&mut self, what: &str) -> Result<bool, CaptureError> {
        if self.st.tracker.stats.frames == 0 {
            return Err(CaptureError(format!(
                "not a readable capture: {what} at byte {}",
                self.consumed
            )));
        }
        self.truncated = Some(format!(
            "unreadable record at byte {} of {} ({what}); the rest of the file was ignored",
            self.consumed, self.file_size
        ));
        self.finish();
        Ok(false)
    }

    fn finish(&mut self) {
        if !self.done {
            self.st.tracker.finish();
            self.done = true;
        }
    }
}
