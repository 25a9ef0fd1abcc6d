//! bufsize-sim: the packet-level engine of bufsize (pure Rust, no Python inside).

/// Version of the engine crate, reported in results so runs can be traced to code.
pub const ENGINE_VERSION: &str = env!("CARGO_PKG_VERSION");
