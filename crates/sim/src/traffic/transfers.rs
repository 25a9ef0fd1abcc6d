//! Transfers on flows: starting one (a static flow's single transfer, or a new connection on a
//! reused flow: a user's fetch, a short-flow slot), recording it when every segment is
//! acknowledged, and handing the flow back to its source (see [`Owner`]).
use crate::engine::{Ev, Simulation};
use crate::flows::{new_sender, Owner, NONE};
use crate::results::TransferRecord;
use crate::scenario::FlowPlan;
use crate::tcp::receiver::Receiver;
use crate::time::{ns, secs};
use crate::traffic;

impl Simulation {
    /// The first start of every flow of the plan: its start time, or a user's first fetch.
    pub(crate) fn schedule_starts(&mut self, plan: &[FlowPlan]) {
        for (i, f) in plan.iter().enumerate() {
            let start_s = match self.cold[i].owner {
                Owner::Source(kind, k) => self.src.first_start(kind, k as usize),
                Owner::Static => f.start_s,
            };
            self.cold[i].start_s = start_s;
            let start = ns(start_s);
            if start < self.end {
                self.cal.push(start, Ev::Start(i as u32));
            }
        }
    }

    /// A flow's start event: a static flow starts its one transfer; a source's flow asks its
    /// source first (a closed-loop user fetches its next file once its previous connection has
    /// left the network).
    pub(crate) fn on_start(&mut self, f: usize) {
        if let Owner::Source(kind, k) = self.cold[f].owner {
            if !traffic::flow_start(self, kind, k as usize, f) {
                return;
            }
        }
        self.launch(f);
    }

    /// A new connection on flow f (a user's next fetch or a short-flow slot) for `segs`
    /// segments: fresh sender, receiver and congestion control state.
    pub(crate) fn begin_transfer(&mut self, f: usize, segs: u32) {
        let snapped = self.meter.snapped;
        let c = &self.classes[self.flows[f].class as usize];
        let fl = &mut self.flows[f];
        let cold = &mut self.cold[f];
        cold.fold_connection(&fl.sender, snapped);
        fl.sender = new_sender(c, segs);
        fl.receiver = Receiver {
            ecn: c.ecn,
            ..Receiver::default()
        };
        fl.finished = false;
        cold.tr_start = self.now;
        cold.tr_delivered = NONE;
        cold.tr_base = cold.counts(fl);
        // a connection of its own for the control's random stream (poisson-paced)
        self.connections += 1;
        self.ccs[f] = c.build_cc(self.seed, (1 << 48) | self.connections);
    }

    /// The transfer on flow f completed (every segment acknowledged): record it, then let its
    /// source go on (a user thinks, a short-flow slot is freed once drained).
    #[cold]
    #[inline(never)]
    pub(crate) fn on_transfer_done(&mut self, f: usize) {
        let rec = self.transfer_record(f, true);
        self.transfers.push(rec);
        self.flows[f].finished = true;
        let cold = &mut self.cold[f];
        cold.transfers += 1;
        if let Owner::Source(kind, k) = cold.owner {
            traffic::transfer_done(self, kind, k as usize, f);
        }
    }

    /// A finished transfer's last packet left the network: tell its source (a short-flow slot
    /// is freed), or start the waiting fetch.
    #[cold]
    #[inline(never)]
    pub(crate) fn on_drained(&mut self, f: usize) {
        let now = self.now;
        if self.flows[f].draining {
            self.flows[f].draining = false;
            if let Owner::Source(kind, k) = self.cold[f].owner {
                traffic::drained(self, kind, k as usize, f);
            }
        }
        let fl = &mut self.flows[f];
        if fl.pending_start {
            fl.pending_start = false;
            self.cal.push(now, Ev::Start(f as u32));
        }
    }

    /// The record of flow f's current transfer (`completed` false: still running at the end).
    pub(crate) fn transfer_record(&self, f: usize, completed: bool) -> TransferRecord {
        let (fl, cold) = (&self.flows[f], &self.cold[f]);
        let s = &fl.sender;
        let c = cold.counts(fl);
        let start_s = secs(cold.tr_start);
        let end_s = if completed { secs(self.now) } else { f64::NAN };
        let delivered_s = if cold.tr_delivered == NONE { f64::NAN } else { secs(cold.tr_delivered) };
        let segments = s.total;
        let bytes = segments as u64 * fl.mss as u64;
        let fct = end_s - start_s;
        TransferRecord {
            class: fl.class,
            flow: f as u32,
            segments,
            size_bytes: bytes,
            start_s,
            end_s,
            delivered_s,
            fct_s: fct,
            goodput_bps: bytes as f64 * 8.0 / fct,
            acked_segments: s.snd_una,
            rtt_s: cold.rtt_s,
            mean_rtt_s: if s.rtt_samples > 0 {
                s.rtt_sum / s.rtt_samples as f64 / 1e9
            } else {
                f64::NAN
            },
            drops: c[0] - cold.tr_base[0],
            congestion_events: c[1] - cold.tr_base[1],
            ss_packets: c[2] - cold.tr_base[2],
            ca_packets: c[3] - cold.tr_base[3],
            retransmits: s.retransmits,
            timeouts: s.timeouts,
            think_s: cold.tr_think,
            completed,
        }
    }
}
