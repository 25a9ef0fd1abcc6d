//! TCP: the sender and receiver machinery, and the congestion controls behind one trait.
pub mod bbr;
pub mod bic;
pub mod cc;
pub mod ctcp;
pub mod cubic;
pub mod dctcp;
pub mod paced;
pub mod params;
pub mod rate;
pub mod receiver;
pub mod reno;
pub mod sender;
