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
/// The message is one line and never quotes the file's bytes.
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

/// The largest packet record a capture can hold (libpcap's and Wireshark's MAXIMUM_SNAPLEN): a
/// record declaring more is corrupt, not a packet.
pub const MAX_RECORD: u32 = 262_144;
/// Frames dated more than this after the first frame (or this long before it) cannot be placed in
/// the load series (one bin per `bin_s`): they are counted in `time_outliers` and not used. 1e7 s
/// is about 116 days, the flow-record reader's limit too.
pub const MAX_SPAN_S: f64 = 1e7;
/// The most load bins the tracker keeps (it never allocates more).
pub const MAX_BINS: f64 = 50_000_000.0;

/// Units per second of a pcapng `if_tsresol` value: 10^n (high bit clear) or 2^n (high bit set).
/// None for a resolution a 64-bit count cannot hold (10^n with n > 19, 2^n with n > 63).
pub fn ts_units(code: u8) -> Option<u64> {
    let n = (code & 0x7f) as u32;
    if code & 0x80 == 0 {
        10u64.checked_pow(n)
    } else {
        1u64.checked_shl(n)
    }
}

/// A parse error in words, without the bytes it carries (pcap-parser's own Display prints the
/// rest of the buffer: megabytes).
fn describe<I>(e: &PcapError<I>) -> String {
    match e {
        PcapError::Eof => "end of file".into(),
        PcapError::UnexpectedEof => "the file ends inside a record".into(),
        PcapError::ReadError => "a read error".into(),
        PcapError::Incomplete(_) => "an incomplete record".into(),
        PcapError::BufferTooSmall => "a record larger than 256 MiB".into(),
        PcapError::HeaderNotRecognized => "a header of neither pcap nor pcapng".into(),
        PcapError::NomError(_, k) | PcapError::OwnedNomError(_, k) => {
            format!("a record that does not parse ({})", k.description())
        }
    }
}

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
    /// Frames dated outside [-1 s, MAX_SPAN_S] of the first frame (or beyond the load bins): not used.
    pub time_outliers: u64,
    /// Frames whose original length is beyond any packet's (MAX_RECORD): not used.
    pub bad_lengths: u64,
    /// Seconds the load bins can reach (MAX_SPAN_S, or fewer when the bins are narrow).
    span_s: f64,
    pub tracker: Tracker,
}

impl State {
    /// Seconds since the first frame of a timestamp `whole` seconds + `frac`/`resol`; None for a
    /// frame dated too far from the first to be used (counted in `time_outliers`).
    #[inline]
    fn time(&mut self, whole: i128, frac: u64, resol: u64) -> Option<f64> {
        let frac_s = frac as f64 / resol as f64;
        if !self.have_t0 {
            self.have_t0 = true;
            self.t0_whole = whole.clamp(i64::MIN as i128, i64::MAX as i128) as i64;
            self.t0_s = self.t0_whole as f64 + frac_s;
        }
        let t =
            (whole - self.t0_whole as i128) as f64 + frac_s - (self.t0_s - self.t0_whole as f64);
        if !(t >= -1.0 && t <= self.span_s) {
            self.time_outliers += 1;
            return None;
        }
        if t > self.last_t {
            self.last_t = t;
        }
        Some(t)
    }

    #[inline]
    fn frame(&mut self, lt: i32, t: Option<f64>, data: &[u8], caplen: u32, origlen: u32) {
        let Some(t) = t else { return };
        if origlen > MAX_RECORD {
            self.bad_lengths += 1;
            return;
        }
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
            Err(packet::Skip::Fragment) => match packet::later_fragment(lt, data) {
                Some(f) => self.tracker.later_fragment(t, origlen, &f),
                None => self.tracker.stats.malformed += 1,
            },
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
    /// Why reading stopped before a clean end of file, if it did: the record, why, and what was
    /// used (one line).
    pub truncated: Option<String>,
    /// Reading stopped at a record that is corrupt (not one cut short by the end of the file).
    pub corrupt: bool,
    /// Records read (pcap: packet records; pcapng: blocks of every type).
    pub records: u64,
    pub st: State,
    done: bool,
    /// pcap record layout: big-endian, 24-byte (modified) record headers; None before the header
    legacy_layout: Option<(bool, bool)>,
    /// byte order of the current pcapng section
    ng_big_endian: bool,
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
        Self::from_read(file, &p.display().to_string(), file_size, cfg)
    }

    /// A capture held in memory (tests, fuzzing): read as a file of that size.
    pub fn from_bytes(data: Vec<u8>, cfg: Config) -> Result<Self, CaptureError> {
        let n = data.len() as u64;
        if n == 0 {
            return Err(CaptureError("<bytes> is empty, not a capture".into()));
        }
        Self::from_read(std::io::Cursor::new(data), "<bytes>", n, cfg)
    }

    /// Any byte stream; `file_size` 0 when unknown (a pipe). `name` is how errors call it.
    pub fn from_read<R: Read + Send + 'static>(
        inner: R,
        name: &str,
        file_size: u64,
        cfg: Config,
    ) -> Result<Self, CaptureError> {
        let read_bytes = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
        let counting = Counting {
            inner,
            n: read_bytes.clone(),
        };
        let reader = match pcap_parser::create_reader(BUF, counting) {
            Ok(r) => r,
            Err(PcapError::Eof) if read_bytes.load(std::sync::atomic::Ordering::Relaxed) == 0 => {
                return Err(CaptureError(format!("{} is empty, not a capture", name)))
            }
            Err(PcapError::HeaderNotRecognized) | Err(PcapError::Eof) => {
                return Err(CaptureError(format!(
                    "{} is not a pcap or pcapng capture (its first bytes match neither format)",
                    name
                )))
            }
            Err(PcapError::Incomplete(_)) | Err(PcapError::UnexpectedEof) => {
                return Err(CaptureError(format!(
                    "{} ends inside its file header: not a usable capture",
                    name
                )))
            }
            Err(e) => {
                return Err(CaptureError(format!(
                    "{}: cannot read capture: {}",
                    name,
                    describe(&e)
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
            corrupt: false,
            records: 0,
            legacy_layout: None,
            ng_big_endian: false,
            st: State {
                linktypes: Vec::new(),
                ifaces: Vec::new(),
                legacy: None,
                t0_s: f64::NAN,
                t0_whole: 0,
                have_t0: false,
                last_t: 0.0,
                unsupported_frames: 0,
                time_outliers: 0,
                bad_lengths: 0,
                span_s: MAX_SPAN_S.min(MAX_BINS * cfg.bin_s),
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
            if let Some(why) = self.check_next_header() {
                return self.corrupt(&why);
            }
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
                            self.legacy_layout = Some((h.is_bigendian(), h.is_modified_format()));
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
                            self.records += 1;
                            let (lt, resol) = match &st.legacy {
                                Some(i) => (i.linktype, i.resol),
                                None => (packet::LT_ETHERNET, 1_000_000),
                            };
                            let t = st.time(b.ts_sec as i128, b.ts_usec as u64, resol);
                            st.frame(lt, t, b.data, b.caplen, b.origlen);
                        }
                        PcapBlockOwned::NG(Block::SectionHeader(shb)) => {
                            self.format = "pcapng";
                            self.ng_big_endian = shb.big_endian();
                            st.ifaces.clear();
                        }
                        PcapBlockOwned::NG(Block::InterfaceDescription(idb)) => {
                            self.format = "pcapng";
                            let lt = idb.linktype.0;
                            st.linktypes.push(lt);
                            // if_tsresol ourselves: pcap-parser refuses every binary (2^-n) value
                            let Some(resol) = ts_units(idb.if_tsresol) else {
                                let code = idb.if_tsresol;
                                let unit = if code & 0x80 == 0 {
                                    format!("10^-{code} s")
                                } else {
                                    format!("2^-{} s", code & 0x7f)
                                };
                                return Err(CaptureError(format!(
                                    "pcapng interface {} has timestamp resolution {unit} (if_tsresol {code:#04x}), finer than 64-bit timestamps can count: not a usable capture",
                                    st.ifaces.len()
                                )));
                            };
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
                            let whole = (ticks / resol) as i128 + off as i128;
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
                            let t = Some(st.last_t);
                            let caplen = spb.data.len() as u32;
                            st.frame(lt, t, spb.data, caplen, spb.origlen);
                        }
                        PcapBlockOwned::NG(_) => {}
                    }
                    if self.format == "pcapng" {
                        self.records += 1;
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
                    let left = if self.file_size > 0 {
                        format!(
                            " ({} bytes of it)",
                            self.file_size.saturating_sub(self.consumed)
                        )
                    } else {
                        String::new()
                    };
                    self.truncated = Some(format!(
                        "the capture ends inside {} {} at byte {}{left}: it was cut short; {}",
                        self.unit(),
                        self.records + 1,
                        self.consumed,
                        self.used()
                    ));
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
                    let msg = describe(&e);
                    return self.corrupt(&msg);
                }
            }
        }
        Ok(true)
    }

    /// "record" (pcap) or "block" (pcapng).
    fn unit(&self) -> &'static str {
        if self.format == "pcapng" {
            "block"
        } else {
            "record"
        }
    }

    /// What was used before reading stopped, in words.
    fn used(&self) -> String {
        let n = self.st.tracker.stats.frames;
        let share = if self.file_size > 0 {
            format!(
                " ({:.1} % of the file's {} bytes)",
                100.0 * self.consumed as f64 / self.file_size as f64,
                self.file_size
            )
        } else {
            String::new()
        };
        format!(
            "the {n} packet{} before it {} used{share}",
            if n == 1 { "" } else { "s" },
            if n == 1 { "was" } else { "were" }
        )
    }

    /// Checks the length of the next record from its header, before pcap-parser reads it: a
    /// corrupt length would be taken as a capture cut short (asking for gigabytes past the end).
    fn check_next_header(&self) -> Option<String> {
        let d = self.reader.data();
        if let Some((be, modified)) = self.legacy_layout {
            let need = if modified { 24 } else { 16 };
            if d.len() < need {
                return None;
            }
            let w = [d[8], d[9], d[10], d[11]];
            let caplen = if be {
                u32::from_be_bytes(w)
            } else {
                u32::from_le_bytes(w)
            };
            if caplen > MAX_RECORD {
                return Some(format!(
                    "its captured length is {caplen} bytes, more than any packet's {MAX_RECORD}"
                ));
            }
        } else if self.format == "pcapng" && d.len() >= 8 {
            let ty = [d[0], d[1], d[2], d[3]];
            if ty == [0x0a, 0x0d, 0x0d, 0x0a] {
                return None; // a new section: its own byte order, checked by pcap-parser
            }
            let w = [d[4], d[5], d[6], d[7]];
            let len = if self.ng_big_endian {
                u32::from_be_bytes(w)
            } else {
                u32::from_le_bytes(w)
            };
            if len < 12 || len % 4 != 0 || len as usize > BUF_MAX {
                return Some(format!(
                    "its total length is {len} bytes (a block has at least 12, a multiple of 4, at most 256 MiB)"
                ));
            }
        }
        None
    }

    /// A record that cannot be parsed: keep what came before it if anything did, and say so.
    fn corrupt(&mut self, what: &str) -> Result<bool, CaptureError> {
        let at = format!(
            "{} {} at byte {}",
            self.unit(),
            self.records + 1,
            self.consumed
        );
        if self.st.tracker.stats.frames == 0 {
            return Err(CaptureError(format!(
                "not a readable capture: {at} is corrupt ({what}) and no packet precedes it"
            )));
        }
        self.truncated = Some(format!(
            "{at} is corrupt ({what}); the rest of the file was not read: {}",
            self.used()
        ));
        self.corrupt = true;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pcapng_timestamp_units_decimal_and_binary() {
        assert_eq!(ts_units(6), Some(1_000_000));
        assert_eq!(ts_units(9), Some(1_000_000_000));
        assert_eq!(ts_units(19), Some(10_000_000_000_000_000_000));
        assert_eq!(ts_units(0x80 | 10), Some(1024));
        assert_eq!(ts_units(0x80 | 63), Some(1 << 63));
        // what no 64-bit count holds (pcap-parser refused every binary value instead)
        assert_eq!(ts_units(20), None);
        assert_eq!(ts_units(0x7f), None);
        assert_eq!(ts_units(0x80 | 64), None);
        assert_eq!(ts_units(0xff), None);
    }

    #[test]
    fn errors_never_quote_the_file() {
        let junk = vec![0xABu8; 1 << 20];
        let e: PcapError<&[u8]> =
            PcapError::NomError(&junk, pcap_parser::nom::error::ErrorKind::Verify);
        let d = describe(&e);
        assert!(d.len() < 80 && !d.contains("171"), "{d}");
    }
}
