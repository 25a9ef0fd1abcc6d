//! TCP: the sender and receiver machinery, and the congestion controls behind one trait.
pub mod cc;
pub mod cubic;
pub mod receiver;
pub mod reno;
pub mod sender;
