//! The system part: TUN device, real-time priority, locked memory, the event loop.

use std::ffi::CString;
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::hist::LatenessHistogram;
use crate::sched::{DelayTable, Scheduler, SLOT_BYTES};

static STOP: AtomicBool = AtomicBool::new(false);
/// Set by SIGUSR1: the measurement window starts now (lateness statistics restart).
static WINDOW: AtomicBool = AtomicBool::new(false);

/// Ask a running [`run`] to finish (also what SIGTERM/SIGINT/SIGHUP do).
pub fn request_stop() {
    STOP.store(true, Ordering::SeqCst);
}

extern "C" fn on_signal(sig: libc::c_int) {
    if sig == libc::SIGUSR1 {
        WINDOW.store(true, Ordering::SeqCst);
    } else {
        STOP.store(true, Ordering::SeqCst);
    }
}

/// What to run.
#[derive(Clone, Debug)]
pub struct Config {
    /// Name of the TUN device to create (in the caller's network namespace).
    pub tun_name: String,
    pub default_delay_ns: u64,
    /// (IPv4 address in host byte order, delay in ns)
    pub entries: Vec<(u32, u64)>,
    /// Packet slots preallocated (each [`SLOT_BYTES`]).
    pub capacity: usize,
    /// SCHED_FIFO priority (1..=99), or 0 to stay in the normal class.
    pub rt_priority: i32,
    /// Lock all memory (`mlockall`) before the loop.
    pub lock_memory: bool,
    /// Where to write the statistics (JSON, replaced atomically), if anywhere.
    pub stats_path: Option<String>,
    /// How often the statistics file is rewritten while running.
    pub stats_interval_ns: u64,
    /// Stop after this long (0: run until signalled).
    pub max_runtime_ns: u64,
}

/// Counters of one run of the element.
#[derive(Clone, Debug, Default)]
pub struct RunStats {
    pub received: u64,
    pub sent: u64,
    /// Dropped because every slot was in use.
    pub dropped_full: u64,
    /// Dropped because the packet was longer than a slot.
    pub dropped_oversize: u64,
    /// write() to the TUN failed (packet lost).
    pub write_errors: u64,
    pub held_max: u64,
    pub lateness: LatenessHistogram,
    /// Whether SCHED_FIFO and mlockall were obtained.
    pub realtime: bool,
    pub locked: bool,
    pub runtime_ns: u64,
    /// The longest single write() to the TUN. The kernel forwards the packet (and whatever TCP work
    /// it triggers downstream) in softirq context inside that call, so a long write shows
    /// the kernel's work, not the element's scheduling, as the cause of lateness.
    pub write_max_ns: u64,
    /// The latest wake-up from ppoll after its timeout, versus the time asked for.
    pub wake_late_max_ns: u64,
    /// Stall episodes (consecutive packets later than [`STALL_NS`]), at most [`MAX_STALLS`].
    pub stalls: Vec<Stall>,
    /// Stall episodes in all (kept or not).
    pub stall_episodes: u64,
    /// CLOCK_MONOTONIC at the start, ns (stall times are relative to it).
    pub start_ns: u64,
    /// When the measurement window began (SIGUSR1), ns on CLOCK_MONOTONIC; 0 = not signalled,
    /// the lateness statistics then cover the whole run.
    pub window_start_ns: u64,
    /// The worst lateness before the window began (warm-up), ns.
    pub warmup_lateness_max_ns: u64,
}

/// A packet later than this starts or continues a stall episode.
pub const STALL_NS: u64 = 5_000_000;
/// Stall episodes kept per run (later ones are counted, not kept).
pub const MAX_STALLS: usize = 64;

/// One stall episode: packets sent later than [`STALL_NS`] one after another.
#[derive(Clone, Copy, Debug, Default)]
pub struct Stall {
    /// When the first late packet left, ns since the element started.
    pub at_ns: u64,
    pub packets: u64,
    /// The largest lateness in the episode.
    pub max_late_ns: u64,
    /// The longest write() in the episode.
    pub write_max_ns: u64,
}

impl RunStats {
    /// The measurement window starts at `now`: the lateness statistics (histogram, longest write,
    /// latest wake-up, stall episodes) restart so that they describe the window only; the packet
    /// and drop counters keep counting the whole run. The warm-up's worst lateness is kept.
    pub fn begin_window(&mut self, now: u64) {
        self.warmup_lateness_max_ns = self.warmup_lateness_max_ns.max(self.lateness.max_ns());
        self.lateness = LatenessHistogram::new();
        self.write_max_ns = 0;
        self.wake_late_max_ns = 0;
        self.stalls.clear();
        self.stall_episodes = 0;
        self.window_start_ns = now;
    }

    /// Account one sent packet: its lateness and how long its write() took. `cur` is the index
    /// of the stall episode in progress (None between episodes or when it was not kept).
    fn record_send(
        &mut self,
        at_ns: u64,
        late_ns: u64,
        write_ns: u64,
        in_stall: &mut bool,
        cur: &mut Option<usize>,
    ) {
        self.lateness.record(late_ns);
        self.write_max_ns = self.write_max_ns.max(write_ns);
        if late_ns <= STALL_NS {
            *in_stall = false;
            *cur = None;
            return;
        }
        if !*in_stall {
            *in_stall = true;
            self.stall_episodes += 1;
            *cur = if self.stalls.len() < MAX_STALLS {
                self.stalls.push(Stall {
                    at_ns,
                    ..Stall::default()
                });
                Some(self.stalls.len() - 1)
            } else {
                None
            };
        }
        if let Some(st) = cur.and_then(|i| self.stalls.get_mut(i)) {
            st.packets += 1;
            st.max_late_ns = st.max_late_ns.max(late_ns);
            st.write_max_ns = st.write_max_ns.max(write_ns);
        }
    }

    fn stalls_json(&self) -> String {
        let items: Vec<String> = self
            .stalls
            .iter()
            .map(|s| {
                format!(
                    "[{:.6},{},{:.3},{:.3}]",
                    s.at_ns as f64 * 1e-9,
                    s.packets,
                    s.max_late_ns as f64 * 1e-6,
                    s.write_max_ns as f64 * 1e-6
                )
            })
            .collect();
        format!("[{}]", items.join(","))
    }
}

impl RunStats {
    /// The statistics as one JSON object (no external crate: the fields are plain numbers).
    pub fn to_json(&self, state: &str) -> String {
        let h = &self.lateness;
        format!(
            concat!(
                "{{\"state\":\"{}\",\"pid\":{},\"received\":{},\"sent\":{},\"dropped_full\":{},",
                "\"dropped_oversize\":{},\"write_errors\":{},\"held_max\":{},\"realtime\":{},",
                "\"locked\":{},\"runtime_s\":{:.6},\"lateness_count\":{},\"lateness_mean_us\":{:.3},",
                "\"lateness_p50_us\":{:.3},\"lateness_p99_us\":{:.3},\"lateness_p999_us\":{:.3},",
                "\"lateness_max_us\":{:.3},\"late_over_1ms\":{},\"late_over_10ms\":{},",
                "\"write_max_us\":{:.3},\"wake_late_max_us\":{:.3},\"stall_episodes\":{},\"start_monotonic_s\":{:.6},",
                "\"window_start_monotonic_s\":{:.6},\"warmup_lateness_max_us\":{:.3},",
                "\"stalls_fields\":[\"at_s\",\"packets\",\"max_late_ms\",\"write_max_ms\"],\"stalls\":{}}}"
            ),
            state,
            std::process::id(),
            self.received,
            self.sent,
            self.dropped_full,
            self.dropped_oversize,
            self.write_errors,
            self.held_max,
            self.realtime,
            self.locked,
            self.runtime_ns as f64 * 1e-9,
            h.count(),
            h.mean_ns() / 1e3,
            h.quantile_ns(0.5) as f64 / 1e3,
            h.quantile_ns(0.99) as f64 / 1e3,
            h.quantile_ns(0.999) as f64 / 1e3,
            h.max_ns() as f64 / 1e3,
            h.count_above_ns(1_000_000),
            h.count_above_ns(10_000_000),
            self.write_max_ns as f64 / 1e3,
            self.wake_late_max_ns as f64 / 1e3,
            self.stall_episodes,
            self.start_ns as f64 * 1e-9,
            self.window_start_ns as f64 * 1e-9,
            self.warmup_lateness_max_ns as f64 / 1e3,
            self.stalls_json(),
        )
    }
}

fn now_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: valid pointer to a timespec
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

fn errno_str(what: &str) -> String {
    format!("{what}: {}", std::io::Error::last_os_error())
}

/// Create the TUN device (IFF_TUN | IFF_NO_PI) and return its non-blocking fd.
fn open_tun(name: &str) -> Result<i32, String> {
    if name.is_empty() || name.len() >= libc::IFNAMSIZ {
        return Err(format!(
            "tun name {name:?} must have 1..{} characters",
            libc::IFNAMSIZ - 1
        ));
    }
    let path = CString::new("/dev/net/tun").unwrap();
    // SAFETY: plain syscalls with valid arguments; the ifreq is zeroed and sized by libc.
    unsafe {
        let fd = libc::open(
            path.as_ptr(),
            libc::O_RDWR | libc::O_NONBLOCK | libc::O_CLOEXEC,
        );
        if fd < 0 {
            return Err(errno_str("open /dev/net/tun"));
        }
        let mut ifr: libc::ifreq = std::mem::zeroed();
        for (i, b) in name.bytes().enumerate() {
            ifr.ifr_name[i] = b as libc::c_char;
        }
        ifr.ifr_ifru.ifru_flags = (libc::IFF_TUN | libc::IFF_NO_PI) as libc::c_short;
        // TUNSETIFF = _IOW('T', 202, int)
        const TUNSETIFF: libc::c_ulong = 0x4004_54ca;
        if libc::ioctl(fd, TUNSETIFF as _, &mut ifr as *mut libc::ifreq) < 0 {
            let e = errno_str(&format!("TUNSETIFF {name}"));
            libc::close(fd);
            return Err(e);
        }
        Ok(fd)
    }
}

fn install_signal_handlers() {
    // SAFETY: the handler only stores to an atomic (async-signal-safe).
    unsafe {
        let mut sa: libc::sigaction = std::mem::zeroed();
        sa.sa_sigaction = on_signal as *const () as usize;
        libc::sigemptyset(&mut sa.sa_mask);
        sa.sa_flags = 0; // no SA_RESTART: ppoll returns EINTR
        for sig in [libc::SIGTERM, libc::SIGINT, libc::SIGHUP, libc::SIGUSR1] {
            libc::sigaction(sig, &sa, std::ptr::null_mut());
        }
    }
}

/// Real-time scheduling with a safety net: a timer slack of 1 ns, and RLIMIT_RTTIME so that the
/// kernel sends SIGXCPU (then SIGKILL) if the loop ever ran 2 s without blocking. The loop blocks
/// in ppoll whenever nothing is due, so a healthy element never comes near it; the kernel's own
/// RT throttling (sched_rt_runtime_us) also leaves 5 % of every second to other tasks.
fn go_realtime(prio: i32) -> bool {
    // SAFETY: plain syscalls on the calling thread/process.
    unsafe {
        libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong, 0, 0, 0);
        let lim = libc::rlimit {
            rlim_cur: 2_000_000,
            rlim_max: 3_000_000,
        }; // µs
        libc::setrlimit(libc::RLIMIT_RTTIME, &lim);
        let param = libc::sched_param {
            sched_priority: prio,
        };
        libc::sched_setscheduler(0, libc::SCHED_FIFO, &param) == 0
    }
}

fn write_stats(path: &str, stats: &RunStats, state: &str) {
    let tmp = format!("{path}.tmp");
    let ok = std::fs::File::create(&tmp)
        .and_then(|mut f| f.write_all(stats.to_json(state).as_bytes()))
        .is_ok();
    if ok {
        let _ = std::fs::rename(&tmp, path);
    }
}

/// Run the delay element until stopped (signal, [`request_stop`] or `max_runtime_ns`).
///
/// Errors are setup failures (cannot create the TUN, bad table); once the loop runs it only
/// counts what goes wrong.
pub fn run(cfg: &Config) -> Result<RunStats, String> {
    if cfg.capacity == 0 {
        return Err("capacity must be at least one packet".into());
    }
    let table = DelayTable::new(cfg.default_delay_ns, &cfg.entries)?;
    let mut sched = Scheduler::new(table, cfg.capacity);
    let mut stats = RunStats::default();
    STOP.store(false, Ordering::SeqCst);
    WINDOW.store(false, Ordering::SeqCst);
    install_signal_handlers();
    let fd = open_tun(&cfg.tun_name)?;

    if cfg.lock_memory {
        // SAFETY: plain syscall.
        stats.locked = unsafe { libc::mlockall(libc::MCL_CURRENT | libc::MCL_FUTURE) } == 0;
    }
    if cfg.rt_priority > 0 {
        stats.realtime = go_realtime(cfg.rt_priority);
    }
    sched.prefault();
    let mut scratch = vec![0u8; 65_536];
    stats.stalls.reserve_exact(MAX_STALLS);
    let mut in_stall = false;
    let mut cur_stall = None;
    let mut wake_at = 0u64; // when ppoll was asked to time out (0: it was not)

    let start = now_ns();
    stats.start_ns = start;
    let mut next_stats = start;
    const MAX_READS_PER_ROUND: usize = 64;
    const MAX_SLEEP_NS: u64 = 50_000_000;

    while !STOP.load(Ordering::Relaxed) {
        let mut now = now_ns();
        if wake_at > 0 && now > wake_at {
            stats.wake_late_max_ns = stats.wake_late_max_ns.max(now - wake_at);
        }
        wake_at = 0;
        if WINDOW.swap(false, Ordering::SeqCst) {
            stats.begin_window(now);
            in_stall = false;
            cur_stall = None;
        }
        if cfg.max_runtime_ns > 0 && now - start >= cfg.max_runtime_ns {
            break;
        }
        // 1. send everything that is due
        while let Some((slot, due, pkt)) = sched.peek_due(now) {
            let before = now_ns();
            // SAFETY: pkt is a valid slice; fd is our TUN.
            let n = unsafe { libc::write(fd, pkt.as_ptr() as *const libc::c_void, pkt.len()) };
            if n < 0 {
                stats.write_errors += 1;
            } else {
                stats.sent += 1;
            }
            now = now_ns();
            stats.record_send(
                before - start,
                now.saturating_sub(due),
                now - before,
                &mut in_stall,
                &mut cur_stall,
            );
            sched.release(slot);
        }
        // 2. read what has arrived (bounded, so sending is never starved)
        for _ in 0..MAX_READS_PER_ROUND {
            let arrived;
            match sched.free_slot() {
                Some((slot, buf)) => {
                    // SAFETY: buf is SLOT_BYTES long.
                    let n = unsafe {
                        libc::read(fd, buf.as_mut_ptr() as *mut libc::c_void, SLOT_BYTES)
                    };
                    if n <= 0 {
                        break;
                    }
                    arrived = now_ns();
                    stats.received += 1;
                    if n as usize >= SLOT_BYTES {
                        stats.dropped_oversize += 1; // possibly truncated: never forward it
                        continue;
                    }
                    sched.commit(slot, n as usize, arrived);
                    stats.held_max = stats.held_max.max(sched.held() as u64);
                }
                None => {
                    // SAFETY: scratch is 64 KiB.
                    let n = unsafe {
                        libc::read(fd, scratch.as_mut_ptr() as *mut libc::c_void, scratch.len())
                    };
                    if n <= 0 {
                        break;
                    }
                    stats.received += 1;
                    stats.dropped_full += 1;
                }
            }
        }
        now = now_ns();
        if let Some(path) = &cfg.stats_path {
            if now >= next_stats {
                stats.runtime_ns = now - start;
                write_stats(path, &stats, "running");
                next_stats = now + cfg.stats_interval_ns.max(10_000_000);
            }
        }
        // 3. sleep until the next due time, a packet, a signal, or the stats tick
        let mut wait = MAX_SLEEP_NS;
        if let Some(d) = sched.next_due() {
            wait = wait.min(d.saturating_sub(now));
        }
        if cfg.stats_path.is_some() {
            wait = wait.min(next_stats.saturating_sub(now));
        }
        if wait == 0 {
            continue;
        }
        let ts = libc::timespec {
            tv_sec: (wait / 1_000_000_000) as _,
            tv_nsec: (wait % 1_000_000_000) as _,
        };
        let mut pfd = libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: valid pollfd and timespec; null sigmask keeps the current mask.
        let ready = unsafe { libc::ppoll(&mut pfd, 1, &ts, std::ptr::null()) };
        if ready == 0 {
            wake_at = now + wait; // timed out: how late did we wake?
        }
    }
    stats.runtime_ns = now_ns() - start;
    // SAFETY: our fd; closing removes the (non-persistent) TUN device.
    unsafe {
        libc::close(fd);
        if stats.locked {
            libc::munlockall();
        }
    }
    if let Some(path) = &cfg.stats_path {
        write_stats(path, &stats, "stopped");
    }
    Ok(stats)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stall_episodes_group_consecutive_late_packets() {
        let mut st = RunStats::default();
        let (mut on, mut cur) = (false, None);
        let ms = 1_000_000;
        for (t, late, w) in [
            (1, 0, 0),
            (2, 6 * ms, ms),
            (3, 30 * ms, 20 * ms),
            (4, 7 * ms, 0),
            (5, 0, 0),
            (9, 8 * ms, 0),
        ] {
            st.record_send(t * ms, late, w, &mut on, &mut cur);
        }
        assert_eq!(st.stall_episodes, 2);
        assert_eq!(st.stalls.len(), 2);
        let s0 = st.stalls[0];
        assert_eq!(
            (s0.at_ns, s0.packets, s0.max_late_ns, s0.write_max_ns),
            (2 * ms, 3, 30 * ms, 20 * ms)
        );
        assert_eq!((st.stalls[1].packets, st.write_max_ns), (1, 20 * ms));
        let j = st.to_json("stopped");
        assert!(
            j.contains("\"stalls\":[[0.002000,3,30.000,20.000],[0.009000,1,8.000,0.000]]"),
            "{j}"
        );
        assert!(j.contains("\"stall_episodes\":2"));
        // Only MAX_STALLS episodes are kept; the rest are counted.
        for k in 0..100u64 {
            st.record_send(100 * ms + 2 * k, 6 * ms, 0, &mut on, &mut cur);
            st.record_send(100 * ms + 2 * k + 1, 0, 0, &mut on, &mut cur);
        }
        // (the first late packet of the loop continues the episode begun at 9 ms)
        assert_eq!((st.stalls.len(), st.stall_episodes), (MAX_STALLS, 101));
        assert_eq!(st.stalls[MAX_STALLS - 1].packets, 1);
        // The measurement window restarts the lateness statistics, not the packet counters.
        st.sent = 7;
        st.begin_window(500 * ms);
        assert_eq!(
            (
                st.lateness.count(),
                st.stalls.len(),
                st.stall_episodes,
                st.write_max_ns
            ),
            (0, 0, 0, 0)
        );
        assert_eq!(
            (st.sent, st.warmup_lateness_max_ns, st.window_start_ns),
            (7, 30 * ms, 500 * ms)
        );
        let j = st.to_json("running");
        assert!(
            j.contains(
                "\"window_start_monotonic_s\":0.500000,\"warmup_lateness_max_us\":30000.000"
            ),
            "{j}"
        );
    }
}
