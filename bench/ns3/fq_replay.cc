// Open-loop replay of one packet arrival trace through ns-3 3.37's FqCoDelQueueDisc,
// driven directly (no net device, no device queue): a packet arrives at its trace time and is
// enqueued; a server of rate --rate takes the next packet from the disc whenever it is idle
// (at an arrival that finds it idle, or when the packet in service ends). The same trace goes
// through bufsize's fq_codel (crates/sim/examples/fq_replay.rs); fq_replay.py compares them.
//
// With --devq, a one-packet device queue sits between the disc and the server, as on the
// dumbbell of aqm.cc (a point-to-point device with flow control and a 1-packet queue): the disc
// is asked for the next packet as soon as that slot is free, i.e. when the packet before starts
// service, one packet time before the server could take it.
//
// Input (stdin): one packet per line, "t_ns flow bytes", in time order.
// Output (stdout): one line per event, in event order: "D idx t_ns t_disc_ns" (starts service
// at t_ns; left the disc at t_disc_ns) or "X idx t_ns reason" (dropped by the disc at t_ns).
//
// Each packet is its own QueueDiscItem whose Hash() is its flow id, so flow f lands in
// bucket f % Flows: no hash collisions, and no IP headers to build.
#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/traffic-control-module.h"

#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

class ReplayItem : public QueueDiscItem
{
  public:
    ReplayItem(Ptr<Packet> p, uint32_t flow, uint64_t idx)
        : QueueDiscItem(p, Address(), 0),
          m_flow(flow),
          m_idx(idx)
    {
    }

    void AddHeader() override
    {
    }

    bool Mark() override
    {
        return false;
    }

    uint32_t Hash(uint32_t) const override
    {
        return m_flow;
    }

    uint64_t Idx() const
    {
        return m_idx;
    }

  private:
    uint32_t m_flow;
    uint64_t m_idx;
};

struct Arrival
{
    uint64_t t;
    uint32_t flow;
    uint32_t bytes;
};

std::vector<Arrival> g_trace;
Ptr<QueueDisc> g_disc;
double g_rate = 1e8;
bool g_busy = false;
bool g_devq = false;
Ptr<QueueDiscItem> g_slot; // --devq: the packet waiting in the device queue
int64_t g_slotT = 0;       // when it left the disc

void Serve();

void
EndService()
{
    g_busy = false;
    Serve();
}

void
FillSlot()
{
    if (g_devq && !g_slot)
    {
        g_slot = g_disc->Dequeue();
        g_slotT = Simulator::Now().GetNanoSeconds();
    }
}

void
Serve()
{
    FillSlot();
    if (g_busy)
    {
        return;
    }
    Ptr<QueueDiscItem> item;
    int64_t tDisc = Simulator::Now().GetNanoSeconds();
    if (g_devq)
    {
        item = g_slot;
        tDisc = g_slotT;
        g_slot = nullptr;
    }
    else
    {
        item = g_disc->Dequeue();
    }
    if (!item)
    {
        return;
    }
    auto r = DynamicCast<ReplayItem>(item);
    std::cout << "D " << r->Idx() << " " << Simulator::Now().GetNanoSeconds() << " " << tDisc
              << "\n";
    g_busy = true;
    uint64_t ns = static_cast<uint64_t>(item->GetSize() * 8.0 / g_rate * 1e9 + 0.5);
    Simulator::Schedule(NanoSeconds(ns), &EndService);
    FillSlot();
}

void
Arrive(uint64_t idx)
{
    const Arrival& a = g_trace[idx];
    g_disc->Enqueue(Create<ReplayItem>(Create<Packet>(a.bytes), a.flow, idx));
    Serve();
}

void
Dropped(Ptr<const QueueDiscItem> item, const char* reason)
{
    auto r = DynamicCast<const ReplayItem>(item);
    std::cout << "X " << r->Idx() << " " << Simulator::Now().GetNanoSeconds() << " \""
              << reason << "\"\n";
}

} // namespace

int
main(int argc, char* argv[])
{
    uint32_t quantum = 1500;
    uint32_t flows = 1024;
    uint32_t minBytes = 1500;
    std::string limit = "100000p";
    uint64_t targetNs = 5000000;
    uint64_t intervalNs = 100000000;
    CommandLine cmd;
    cmd.AddValue("rate", "server rate, bit/s", g_rate);
    cmd.AddValue("quantum", "FqCoDel quantum, bytes", quantum);
    cmd.AddValue("flows", "FqCoDel flow queues", flows);
    cmd.AddValue("minBytes", "the child CoDel's MinBytes (ns-3 default 1500)", minBytes);
    cmd.AddValue("limit", "FqCoDel MaxSize", limit);
    cmd.AddValue("target", "CoDel target, ns", targetNs);
    cmd.AddValue("interval", "CoDel interval, ns", intervalNs);
    cmd.AddValue("devq", "a 1-packet device queue between the disc and the server", g_devq);
    cmd.Parse(argc, argv);

    Config::SetDefault("ns3::CoDelQueueDisc::MinBytes", UintegerValue(minBytes));
    ObjectFactory f;
    f.SetTypeId("ns3::FqCoDelQueueDisc");
    f.Set("Target", StringValue(std::to_string(targetNs) + "ns"));
    f.Set("Interval", StringValue(std::to_string(intervalNs) + "ns"));
    f.Set("Flows", UintegerValue(flows));
    f.Set("UseEcn", BooleanValue(false));
    f.Set("MaxSize", QueueSizeValue(QueueSize(limit)));
    g_disc = f.Create<QueueDisc>();
    DynamicCast<FqCoDelQueueDisc>(g_disc)->SetQuantum(quantum);
    g_disc->TraceConnectWithoutContext("DropAfterDequeue", MakeCallback(&Dropped));
    g_disc->TraceConnectWithoutContext("DropBeforeEnqueue", MakeCallback(&Dropped));
    g_disc->Initialize();

    std::ios::sync_with_stdio(false);
    Arrival a;
    while (std::cin >> a.t >> a.flow >> a.bytes)
    {
        g_trace.push_back(a);
    }
    for (uint64_t i = 0; i < g_trace.size(); i++)
    {
        Simulator::Schedule(NanoSeconds(g_trace[i].t), &Arrive, i);
    }
    Simulator::Run();
    Simulator::Destroy();
    std::cout.flush();
    return 0;
}
