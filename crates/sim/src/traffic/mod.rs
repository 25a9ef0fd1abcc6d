//! Traffic sources, one per file, each owning its state, its events and its records behind the
//! [`Source`] trait: `short_flows` (open-loop Poisson arrivals of short transfers),
//! `closed_loop` (users that fetch a file, think, and fetch the next), `udp` (CBR, Poisson,
//! Pareto and Pareto on/off UDP). `bulk` and `transfers` are not sources: they hold the
//! transfers every TCP flow runs (a static flow's single transfer, a source's connections).
//!
//! The sources are listed once, in [`register_sources!`] at the bottom of this file; that one
//! line per source generates the engine's table of sources ([`Sources`]), the tag that
//! addresses an event or a flow to its source ([`SourceKind`]) and the `match` that hands each
//! to its owner (static dispatch: no `dyn`, no allocation per event). The engine core never
//! names a source.
use crate::calendar::Calendar;
use crate::engine::{Ev, Simulation};
use crate::flows::Class;
use crate::results::SourceResult;
use crate::scenario::Plan;
use crate::time::Ns;

pub mod bulk;
pub mod closed_loop;
pub mod short_flows;
pub mod transfers;
pub mod udp;

/// What the engine needs to build a source: the plan, the seed, and the route table.
pub(crate) struct Build<'a> {
    pub plan: &'a Plan,
    pub seed: u64,
    /// The engine's route table (see `flows::add_route`).
    pub hops: &'a mut Vec<u32>,
    /// The datagram table: each non-TCP packet stream's route and owner (see [`Datagram`]).
    pub dgrams: &'a mut Vec<Datagram>,
}

/// A stream of packets that no TCP flow carries (UDP): the engine forwards its packets (their
/// `flow` field indexes this table) and tells its owner when one is delivered or dropped.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Datagram {
    pub route: crate::flows::Route,
    pub kind: SourceKind,
    pub k: u32,
}

/// A traffic source. One value per source of the scenario; the engine keeps them in
/// `Simulation::src` (one `Vec` per kind) and calls the associated functions with the
/// source's index `k`. Every method but `build` and `result` has a default that does nothing.
pub(crate) trait Source: Sized {
    /// This kind's sources of the plan (in the plan's order).
    fn build(b: &mut Build) -> Vec<Self>;
    /// The paths (forward, reverse) its packets may use, once per packet that can be on them
    /// at the same time (for the engine's private-link analysis; see `net::route`).
    fn paths<'a>(&'a self, _out: &mut Vec<(&'a [usize], &'a [usize])>) {}
    /// Largest packet it sends that no flow class accounts for (the calendar's geometry).
    fn max_packet_bytes(&self) -> u32 {
        0
    }
    /// Whether it starts several connections on one flow (the engine then counts each flow's
    /// packets in the network, to know when a flow can be reused).
    fn reuses_flows(&self) -> bool {
        false
    }
    /// Its first wake-up (None: never).
    fn first_wake(&mut self) -> Option<Ns> {
        None
    }
    /// Its `Ev::Source` event fires.
    fn wake(_sim: &mut Simulation, _k: usize) {}
    /// Start time (seconds) of the first transfer of the next flow of the plan it owns.
    fn first_start(&mut self) -> f64 {
        f64::NAN
    }
    /// Flow f it owns gets its `Ev::Start`: prepare the transfer; false to not launch it.
    fn flow_start(_sim: &mut Simulation, _k: usize, _f: usize) -> bool {
        true
    }
    /// Flow f it owns completed a transfer.
    fn transfer_done(_sim: &mut Simulation, _k: usize, _f: usize) {}
    /// Flow f it owns had set `draining` and its last packet left the network.
    fn drained(_sim: &mut Simulation, _k: usize, _f: usize) {}
    /// One of its datagrams was delivered (true) or dropped (false).
    fn datagram(&mut self, _delivered: bool) {}
    /// What the results show of it.
    fn result(&self, classes: &[Class], span: f64) -> SourceResult;
}

/// Implemented by [`register_sources!`]: the tag of a registered source type.
pub(crate) trait Registered {
    const KIND: SourceKind;
}

/// Register the source types: `field: Type` per source. Generates [`Sources`], [`SourceKind`]
/// and the dispatch functions. The order is the order of the sources' first events and of
/// `Results::sources`.
macro_rules! register_sources {
    ($($id:ident : $ty:ty),* $(,)?) => {
        /// Every source of the run, one `Vec` per registered kind.
        pub(crate) struct Sources {
            $(pub(crate) $id: Vec<$ty>,)*
        }

        /// Which registered source kind an event or a flow belongs to.
        #[allow(non_camel_case_types)]
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        #[repr(u8)]
        pub(crate) enum SourceKind {
            $($id,)*
        }

        $(impl Registered for $ty {
            const KIND: SourceKind = SourceKind::$id;
        })*

        impl Sources {
            pub(crate) fn build(b: &mut Build) -> Sources {
                Sources { $($id: <$ty as Source>::build(b),)* }
            }
            pub(crate) fn paths<'a>(&'a self, out: &mut Vec<(&'a [usize], &'a [usize])>) {
                $(for s in self.$id.iter() { s.paths(out); })*
            }
            pub(crate) fn max_packet_bytes(&self) -> u32 {
                let mut m = 0;
                $(for s in self.$id.iter() { m = m.max(s.max_packet_bytes()); })*
                m
            }
            pub(crate) fn reuses_flows(&self) -> bool {
                false $(|| self.$id.iter().any(|s| s.reuses_flows()))*
            }
            /// Push every source's first wake-up, kind by kind in registration order.
            pub(crate) fn schedule_first(&mut self, cal: &mut Calendar<Ev>) {
                $(for (k, s) in self.$id.iter_mut().enumerate() {
                    if let Some(t) = s.first_wake() {
                        cal.push(t, Ev::Source(SourceKind::$id, k as u32));
                    }
                })*
            }
            pub(crate) fn first_start(&mut self, kind: SourceKind, k: usize) -> f64 {
                match kind { $(SourceKind::$id => <$ty as Source>::first_start(&mut self.$id[k]),)* }
            }
            pub(crate) fn datagram(&mut self, d: Datagram, delivered: bool) {
                match d.kind { $(SourceKind::$id => self.$id[d.k as usize].datagram(delivered),)* }
            }
            /// What each source recorded, kind by kind in registration order.
            pub(crate) fn results(&self, classes: &[Class], span: f64) -> Vec<SourceResult> {
                let mut out = Vec::new();
                $(out.extend(self.$id.iter().map(|s| s.result(classes, span)));)*
                out
            }
        }

        /// Hand a source's event to it.
        #[inline]
        pub(crate) fn wake(sim: &mut Simulation, kind: SourceKind, k: usize) {
            match kind { $(SourceKind::$id => <$ty as Source>::wake(sim, k),)* }
        }
        pub(crate) fn flow_start(sim: &mut Simulation, kind: SourceKind, k: usize, f: usize) -> bool {
            match kind { $(SourceKind::$id => <$ty as Source>::flow_start(sim, k, f),)* }
        }
        pub(crate) fn transfer_done(sim: &mut Simulation, kind: SourceKind, k: usize, f: usize) {
            match kind { $(SourceKind::$id => <$ty as Source>::transfer_done(sim, k, f),)* }
        }
        pub(crate) fn drained(sim: &mut Simulation, kind: SourceKind, k: usize, f: usize) {
            match kind { $(SourceKind::$id => <$ty as Source>::drained(sim, k, f),)* }
        }
    };
}

// The one registration point: a new source adds its line here (and its file above).
register_sources! {
    short: short_flows::ShortSource,
    users: closed_loop::UsersSource,
    udp: udp::UdpSource,
}

/// Whole segments for a drawn size: `x` in packets (rounded up) or in payload bytes (divided by
/// the MSS, rounded up); at least one segment.
pub fn segments_of(x: f64, in_packets: bool, mss: u32) -> u32 {
    let s = if in_packets { x } else { x / mss as f64 };
    (s.ceil().max(1.0)).min((u32::MAX - 1) as f64) as u32
}

#[cfg(test)]
mod tests {
    #[test]
    fn sizes_round_up_to_whole_segments() {
        assert_eq!(super::segments_of(2.0, true, 960), 2);
        assert_eq!(super::segments_of(2.1, true, 960), 3);
        assert_eq!(super::segments_of(0.0, true, 960), 1);
        assert_eq!(super::segments_of(961.0, false, 960), 2);
        assert_eq!(super::segments_of(960.0, false, 960), 1);
    }
}
