//! The network: packets, links (serialization + propagation), their drop-tail queues and the
//! queue disciplines (`aqm`) a link may run instead.
pub mod aqm;
pub(crate) mod jitter;
pub mod link;
pub mod packet;
pub mod queue;
pub mod route;
