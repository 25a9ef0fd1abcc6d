//! TCP: the sender and receiver machinery, and the congestion controls behind one trait.
pub mod cc;
pub mod reno;
pub mod receiver;
pub mod sender;
