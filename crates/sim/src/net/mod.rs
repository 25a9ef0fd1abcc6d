//! The network: packets, links (serialization + propagation) and their drop-tail queues.
pub(crate) mod jitter;
pub mod link;
pub mod packet;
pub mod queue;
pub mod route;
