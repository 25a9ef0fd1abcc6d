//! Links whose waiting packets a queue discipline holds (`net::aqm`): the glue between the
//! discipline and the engine.
//!
//! A drop-tail link computes each packet's transmission start when it arrives and needs no event
//! when the packet leaves its queue (`net/link.rs`). A link with a discipline instead hands each
//! arriving packet to the discipline (`port_arrive`), and while it transmits it holds one
//! pending `Ev::Dequeue` for the end of the transmission, at which it asks the discipline for the
//! next packet (`on_dequeue`). The port records what the discipline dropped, told apart by cause
//! (AQM decision or hard-limit overflow), and the sojourn time of every packet it sent (enqueue to
//! start of transmission). Such a link is never traversed inline as a private link.
use crate::engine::{Ev, Simulation};
use crate::metrics::DelayHist;
use crate::net::aqm::{Cause, Discipline, Drops, Queued};
use crate::net::packet::Packet;
use crate::time::Ns;

/// One link's discipline and its records.
pub(crate) struct Port {
    pub(crate) disc: Box<dyn Discipline>,
    pub(crate) name: &'static str,
    /// A `Dequeue` event is pending: the link is transmitting and will ask for the next packet.
    busy: bool,
    /// Drops in the measurement window, by cause.
    pub(crate) aqm_drops: u64,
    pub(crate) overflow_drops: u64,
    /// Packets the discipline marked CE instead of dropping, in the measurement window.
    pub(crate) marks: u64,
    /// Sojourn times of the packets sent in the window.
    pub(crate) sojourn: DelayHist,
    /// Largest number of waiting packets / bytes over the whole run.
    pub(crate) max_packets: u64,
    pub(crate) max_bytes: u64,
    /// Scratch list for the discipline's drops (kept, so nothing allocates per packet).
    drops: Drops,
}

impl Port {
    /// `max_wait`: the longest wait the sojourn histogram resolves (longer ones fall in its last
    /// bin and still count exactly in the mean).
    pub(crate) fn new(disc: Box<dyn Discipline>, name: &'static str, max_wait: Ns) -> Port {
        Port {
            disc,
            name,
            busy: false,
            aqm_drops: 0,
            overflow_drops: 0,
            marks: 0,
            sojourn: DelayHist::new(max_wait.max(1000), 2000),
            max_packets: 0,
            max_bytes: 0,
            drops: Vec::new(),
        }
    }
}

impl Simulation {
    /// Packet `p` arrives at time `t` (= now) at link `li`, whose queue is a discipline.
    #[cold]
    #[inline(never)]
    pub(crate) fn port_arrive(&mut self, li: usize, p: Packet, t: Ns) {
        let window = (self.warm, self.end);
        let link = &mut self.links[li];
        if t >= window.0 && t < window.1 {
            link.arrivals += 1;
        }
        let pi = link.port as usize;
        let port = &mut self.ports[pi];
        if li == self.bn {
            self.meter.qstats.integrate(port.disc.packets(), t);
        }
        let mut drops = std::mem::take(&mut port.drops);
        let marks = port.disc.marks();
        port.disc.enqueue(Queued { pkt: p, enq: t }, t, &mut drops);
        if t >= window.0 && t < window.1 {
            port.marks += port.disc.marks() - marks;
        }
        port.max_packets = port.max_packets.max(port.disc.packets());
        port.max_bytes = port.max_bytes.max(port.disc.bytes());
        self.port_drops(li, &mut drops, t);
        self.ports[pi].drops = drops;
        // (Read after the drops: telling an owner may have sent, and started the link.)
        if !self.ports[pi].busy {
            self.port_send(li, t);
        }
    }

    /// Link `li` (with a discipline) finished a transmission: send the next packet, if any.
    pub(crate) fn on_dequeue(&mut self, li: usize) {
        let pi = self.links[li].port as usize;
        self.ports[pi].busy = false;
        self.port_send(li, self.now);
    }

    /// The link is free at `now`: ask the discipline for a packet and start transmitting it.
    fn port_send(&mut self, li: usize, now: Ns) {
        let window = (self.warm, self.end);
        let pi = self.links[li].port as usize;
        let port = &mut self.ports[pi];
        if li == self.bn {
            self.meter.qstats.integrate(port.disc.packets(), now);
        }
        let mut drops = std::mem::take(&mut port.drops);
        let marks = port.disc.marks();
        let next = port.disc.dequeue(now, &mut drops);
        let in_window = now >= window.0 && now < window.1;
        if in_window {
            port.marks += port.disc.marks() - marks;
        }
        if let Some(q) = next {
            let sojourn = now - q.enq;
            if in_window {
                port.sojourn.record(sojourn);
                if li == self.bn {
                    self.meter.delay.record(sojourn);
                }
            }
            port.busy = true;
        }
        self.port_drops(li, &mut drops, now);
        self.ports[pi].drops = drops;
        if let Some(q) = next {
            let (depart, arrive) = self.links[li].transmit(now, q.pkt.bytes as u32, window);
            self.cal.push(depart, Ev::Dequeue(li as u32));
            let mut p = q.pkt;
            p.hop += 1;
            self.forward(p, arrive);
        }
    }

    /// Account the packets the discipline of link `li` dropped at `t`, and tell their owners.
    fn port_drops(&mut self, li: usize, drops: &mut Drops, t: Ns) {
        if drops.is_empty() {
            return;
        }
        let window = (self.warm, self.end);
        let in_window = t >= window.0 && t < window.1;
        let pi = self.links[li].port as usize;
        for (pkt, cause) in drops.drain(..) {
            self.links[li].count_drop(t, window);
            if in_window {
                match cause {
                    Cause::Aqm => self.ports[pi].aqm_drops += 1,
                    Cause::Overflow => self.ports[pi].overflow_drops += 1,
                }
            }
            self.dropped += 1;
            self.on_drop(pkt, t);
        }
    }

    /// Packets waiting in every discipline (in flight, for the conservation account).
    pub(crate) fn packets_in_ports(&self) -> u64 {
        self.ports.iter().map(|p| p.disc.packets()).sum()
    }
}
