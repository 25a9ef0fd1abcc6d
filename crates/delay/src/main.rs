//! `bufsize-delay`: the testbed delay element as a standalone program (the testbed starts it in
//! the router namespace; the Python extension offers the same loop as `_engine.delay_run`).
//!
//! Usage: bufsize-delay --tun NAME [--default-delay-us N] [--entry A.B.C.D=US ...]
//!        [--capacity SLOTS] [--rt-priority P] [--no-mlock] [--stats PATH] [--max-runtime-s S]
//!
//! SIGTERM/SIGINT/SIGHUP stop it; SIGUSR1 marks the start of the measurement window (the lateness
//! statistics restart there, the packet and drop counters do not).
use std::process::ExitCode;

fn parse_ip(s: &str) -> Option<u32> {
    let parts: Vec<u8> = s
        .split('.')
        .map(|p| p.parse().ok())
        .collect::<Option<_>>()?;
    (parts.len() == 4).then(|| u32::from_be_bytes([parts[0], parts[1], parts[2], parts[3]]))
}

fn parse_args(args: &[String]) -> Result<bufsize_delay::Config, String> {
    let mut cfg = bufsize_delay::Config {
        tun_name: String::new(),
        default_delay_ns: 0,
        entries: vec![],
        capacity: 16_384,
        rt_priority: 50,
        lock_memory: true,
        stats_path: None,
        stats_interval_ns: 500_000_000,
        max_runtime_ns: 0,
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut val = |name: &str| it.next().cloned().ok_or(format!("{name} needs a value"));
        match a.as_str() {
            "--tun" => cfg.tun_name = val("--tun")?,
            "--default-delay-us" => {
                let v = val(a)?;
                cfg.default_delay_ns = v
                    .parse::<u64>()
                    .map_err(|_| format!("--default-delay-us: bad number {v:?}"))?
                    * 1000
            }
            "--entry" => {
                let v = val(a)?;
                let (ip, us) = v
                    .split_once('=')
                    .ok_or(format!("--entry: expected A.B.C.D=MICROSECONDS, got {v:?}"))?;
                let ip = parse_ip(ip).ok_or(format!("--entry: bad IPv4 address {ip:?}"))?;
                let us: u64 = us
                    .parse()
                    .map_err(|_| format!("--entry: bad delay {us:?}"))?;
                cfg.entries.push((ip, us * 1000));
            }
            "--capacity" => {
                let v = val(a)?;
                cfg.capacity = v
                    .parse()
                    .map_err(|_| format!("--capacity: bad number {v:?}"))?
            }
            "--rt-priority" => {
                let v = val(a)?;
                cfg.rt_priority = v
                    .parse()
                    .ok()
                    .filter(|p| (0..=99).contains(p))
                    .ok_or(format!("--rt-priority: expected 0..99, got {v:?}"))?
            }
            "--no-mlock" => cfg.lock_memory = false,
            "--stats" => cfg.stats_path = Some(val(a)?),
            "--max-runtime-s" => {
                let v = val(a)?;
                let s: f64 = v
                    .parse()
                    .ok()
                    .filter(|s: &f64| *s >= 0.0)
                    .ok_or(format!("--max-runtime-s: bad value {v:?}"))?;
                cfg.max_runtime_ns = (s * 1e9) as u64;
            }
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    if cfg.tun_name.is_empty() {
        return Err("--tun is required".into());
    }
    Ok(cfg)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let cfg = match parse_args(&args) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("bufsize-delay: error: {e}");
            return ExitCode::from(2);
        }
    };
    match bufsize_delay::run(&cfg) {
        Ok(stats) => {
            println!("{}", stats.to_json("stopped"));
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("bufsize-delay: error: {e}");
            ExitCode::from(1)
        }
    }
}
