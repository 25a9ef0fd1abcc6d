//! bufsize-delay: the userspace delay element of the bufsize kernel testbed.
//!
//! The kernels on the testbed machines have no `netem`, so propagation delay is added in user
//! space: the router namespace routes the packets that need a delay into a TUN device, this
//! element reads each packet, holds it until `arrival + delay(address)` and writes it back into the
//! TUN, from where the kernel forwards it on. The delay is chosen per IPv4 address (destination
//! first, then source), so every sender (or every flow, with one source address per flow) can have
//! its own round-trip time.
//!
//! The crate is split into a pure part that is tested without root ([`DelayTable`],
//! [`Scheduler`], [`LatenessHistogram`]) and the system part ([`run`]) that opens the TUN, raises
//! the thread to real-time priority, locks memory and runs the event loop.
//!
//! Data path: no allocation per packet. All packet slots are allocated (and, with `mlockall`,
//! locked) before the loop starts; a full pool drops the packet and counts it.

mod element;
mod hist;
mod sched;

pub use element::{request_stop, run, Config, RunStats};
pub use hist::LatenessHistogram;
pub use sched::{DelayTable, Scheduler, SLOT_BYTES};
