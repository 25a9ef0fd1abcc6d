// ns-3 dumbbell with a queue disc at the bottleneck, to validate bufsize's queue disciplines
// (issue 34 part 4): RedQueueDisc, CoDelQueueDisc, PieQueueDisc, FqCoDelQueueDisc, ECN off.
//
// Topology as dumbbell.cc: S_i --access(10 C, rtt_i/2)--> R1 ==bottleneck (C)==> R2 (sinks);
// ACKs return R2 -> R1 (rate C, unlimited FIFO) -> S_i.
//
// The bottleneck device R1->R2 has flow control on, a device queue of 1 packet and the queue
// disc under test as its root: packets back up into the disc (the disc holds the queue; at most
// 1 more waits in the device queue and 1 is on the wire). Every other device is built with flow
// control off (no queue disc; NOTES.md), except R2->R1, which gets an explicit 10^6-packet
// FifoQueueDisc so that no default FqCoDel is installed on it.
//
// Every parameter of the disc under test is set explicitly (--limit and the per-discipline
// options), so ns-3 defaults cannot differ silently; the JSON echoes what the disc was built with,
// read back from its attributes.
//
// TCP: NewReno (TcpNewReno) with everything else at ns-3 3.37's defaults (SACK on, timestamps on,
// PRR, IW 10, MinRto 1 s, DelAckCount 2 / 200 ms) = bufsize's profile `ns3` with cc newreno.
// The segment size is chosen so that a data frame is --packetSize bytes on the wire
// (packetSize - 40 - 12 timestamps - 2 PPP).
//
// Measured in [warmup, duration):
// - utilization: bytes of frames starting serialization on the bottleneck / (C x window);
// - arrivals at the disc (Enqueue + DropBeforeEnqueue traces), drops split by cause: aqm (the
//   discipline's decision) and overflow (the hard limit; see Classify());
// - sojourn: the disc's SojournTime trace (enqueue into the disc -> dequeue to the device), and
//   the wait in the 1-packet device queue (Enqueue -> Dequeue of the device queue); their sum
//   is the time from arrival at the port to the start of transmission, what bufsize reports;
// - the senders' window reductions (diagnostics for the ECN rows): entries into CA_CWR (the
//   answer to ECE) and into CA_RECOVERY with the mean ssthresh / cwnd they set, CA_CWR entries on
//   the ACK that ended the previous one, and the means of the sums over the senders of cwnd and
//   of the bytes in flight, in segments, sampled each millisecond (--trace lists each reduction).
//
// Output: one JSON line on stdout.

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <deque>
#include <map>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

struct Stats
{
    bool measuring = false;
    uint64_t enq = 0, dropBefore = 0, dropAfter = 0;
    uint64_t aqmDrops = 0, overflowDrops = 0, marks = 0;
    std::map<std::string, uint64_t> reasons;
    uint64_t txPackets = 0, txBytes = 0;
    double sojournSum = 0;
    uint64_t sojournN = 0;
    std::vector<uint32_t> sojournHist; // 0.1 ms bins, for the p99
    double devWaitSum = 0;
    uint64_t devWaitN = 0;
    std::deque<Time> devEnq;
};
Stats g;
Ptr<QueueDisc> g_disc;
uint32_t g_limit = 0;

// Overflow: the reason names the hard limit (CoDel's and FqCoDel's "Overlimit drop", PIE's
// FORCED_DROP "Drop due to queue limit reached", the internal queue refusing the packet), or
// (RED, whose FORCED_DROP means avg >= 2 max_th with gentle) the disc is at its limit.
bool
Classify(const char* reason)
{
    std::string r(reason);
    if (r.find("Overlimit drop") != std::string::npos ||
        r == PieQueueDisc::FORCED_DROP || r == QueueDisc::INTERNAL_QUEUE_DROP)
        return true;
    return false;
}

void
OnMark(Ptr<const QueueDiscItem>, const char*)
{
    if (g.measuring)
        g.marks++;
}
// --arrivals: every packet arriving at the disc, "t_ns flow frame_bytes" (flow: the sender's
// index in order of first arrival), for the open-loop replay of fq_replay.py.
FILE* g_arrivals = nullptr;
std::map<uint32_t, uint32_t> g_arrivalFlow;
void
LogArrival(Ptr<const QueueDiscItem> item)
{
    if (!g_arrivals)
        return;
    auto ip = DynamicCast<const Ipv4QueueDiscItem>(item);
    uint32_t src = ip ? ip->GetHeader().GetSource().Get() : 0;
    uint32_t flow = g_arrivalFlow.emplace(src, uint32_t(g_arrivalFlow.size())).first->second;
    // The disc counts the IP packet; the wire frame adds the 2-byte PPP header.
    std::fprintf(g_arrivals, "%lld %u %u\n", (long long)Simulator::Now().GetNanoSeconds(), flow,
                 item->GetSize() + 2);
}
// --pkttrace: in the window, one line per event "K t_ns flow n" with n a segment number
// (segment k carries bytes [1 + k*segment, 1 + (k+1)*segment); for an ACK, the next expected
// segment): A arrival at the disc, D start of transmission on the bottleneck (data), S the sender
// sends, K an ACK reaches the sender, R data reaches the receiver, C the receiver sends an ACK
// (flow: the sender's index, by its port 5000 + i). The same events as the engine's scratch trace
// of fq_tcp.py, to compare the ACK clock of the two stacks.
FILE* g_pkt = nullptr;
uint32_t g_segment = 1;
void
PktLine(char k, uint32_t flow, uint32_t seqBytes)
{
    if (!g_pkt || !g.measuring)
        return;
    long long n = (long long)seqBytes - 1;
    std::fprintf(g_pkt, "%c %lld %u %lld\n", k, (long long)Simulator::Now().GetNanoSeconds(), flow,
                 n < 0 ? -1 : n / g_segment);
}
void
PktFromIp(char k, Ptr<const Packet> ipPacket, const Ipv4Header& ip)
{
    if (!g_pkt || !g.measuring || ip.GetProtocol() != 6)
        return;
    Ptr<Packet> c = ipPacket->Copy();
    TcpHeader th;
    if (c->PeekHeader(th) && c->GetSize() > th.GetSerializedSize())
        PktLine(k, th.GetDestinationPort() - 5000, th.GetSequenceNumber().GetValue());
}
void
OnSocketTx(Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase>)
{
    if (h.GetDestinationPort() >= 5000 && p->GetSize() > 0)
        PktLine('S', h.GetDestinationPort() - 5000, h.GetSequenceNumber().GetValue());
    else if (h.GetSourcePort() >= 5000 && (h.GetFlags() & TcpHeader::ACK))
        PktLine('C', h.GetSourcePort() - 5000, h.GetAckNumber().GetValue());
}
void
OnSocketRx(Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase>)
{
    if (h.GetDestinationPort() >= 5000 && p->GetSize() > 0)
        PktLine('R', h.GetDestinationPort() - 5000, h.GetSequenceNumber().GetValue());
    else if (h.GetSourcePort() >= 5000 && (h.GetFlags() & TcpHeader::ACK))
        PktLine('K', h.GetSourcePort() - 5000, h.GetAckNumber().GetValue());
}
void
PktFromItem(char k, Ptr<const QueueDiscItem> item)
{
    auto ip = DynamicCast<const Ipv4QueueDiscItem>(item);
    if (ip)
        PktFromIp(k, ip->GetPacket(), ip->GetHeader());
}
void
OnPhyTxBeginPkt(Ptr<const Packet> p)
{
    if (!g_pkt || !g.measuring)
        return;
    Ptr<Packet> c = p->Copy();
    PppHeader ppp;
    c->RemoveHeader(ppp);
    Ipv4Header ip;
    c->RemoveHeader(ip);
    PktFromIp('D', c, ip);
}
void
OnEnqueue(Ptr<const QueueDiscItem> item)
{
    LogArrival(item);
    PktFromItem('A', item);
    if (g.measuring)
        g.enq++;
}
void
OnDropBefore(Ptr<const QueueDiscItem> item, const char* reason)
{
    LogArrival(item);
    PktFromItem('A', item);
    if (!g.measuring)
        return;
    g.dropBefore++;
    g.reasons[reason]++;
    // RED: a forced drop while the disc is full is the limit, not the average.
    bool overflow = Classify(reason) || g_disc->GetNPackets() >= g_limit;
    (overflow ? g.overflowDrops : g.aqmDrops)++;
}
void
OnDropAfter(Ptr<const QueueDiscItem>, const char* reason)
{
    if (!g.measuring)
        return;
    g.dropAfter++;
    g.reasons[reason]++;
    (Classify(reason) ? g.overflowDrops : g.aqmDrops)++;
}
void
OnSojourn(Time t)
{
    if (!g.measuring)
        return;
    g.sojournSum += t.GetSeconds();
    g.sojournN++;
    size_t bin = size_t(t.GetSeconds() / 1e-4);
    if (bin >= g.sojournHist.size())
        g.sojournHist.resize(bin + 1, 0);
    g.sojournHist[bin]++;
}
void
OnDevEnqueue(Ptr<const Packet>)
{
    g.devEnq.push_back(Simulator::Now());
}
void
OnDevDequeue(Ptr<const Packet>)
{
    if (g.devEnq.empty())
        return;
    Time t0 = g.devEnq.front();
    g.devEnq.pop_front();
    if (g.measuring)
    {
        g.devWaitSum += (Simulator::Now() - t0).GetSeconds();
        g.devWaitN++;
    }
}
void
OnPhyTxBegin(Ptr<const Packet> p)
{
    if (g.measuring)
    {
        g.txPackets++;
        g.txBytes += p->GetSize();
    }
}
uint64_t g_timeouts = 0, g_recoveries = 0;
std::vector<Ptr<PacketSink>> g_sinks;
std::vector<uint64_t> g_rx0;
// Window reductions, per sender socket (keyed by its trace path): the last cwnd and ssthresh
// seen, so that an entry into CA_CWR (ECE) or CA_RECOVERY (loss) can be told with the cwnd it
// started from and the ssthresh it set (ns-3 sets ssthresh before the state, cwnd after).
struct Sock
{
    double cwnd = 0, ssthresh = 0;
    Time cwrExit = Seconds(-1);
};
std::map<std::string, Sock> g_socks;
uint64_t g_cwr = 0, g_cwrAgain = 0; // CA_CWR entries; those on the ACK that ended the last one
double g_cwrRatio = 0, g_recRatio = 0; // sums of ssthresh / cwnd at the entries
FILE* g_trace = nullptr;                // --trace: one line per reduction
std::string
SockKey(const std::string& ctx)
{
    return ctx.substr(0, ctx.rfind('/'));
}
// Sums over the senders of cwnd and of the bytes in flight (kept up to date by the traces),
// sampled every millisecond of the window: their means, in segments, as the engine reports them.
double g_cwndTotal = 0, g_flightTotal = 0, g_cwndSampled = 0, g_flightSampled = 0;
uint64_t g_samples = 0;
std::map<std::string, double> g_flight;
uint32_t
NodeOf(const std::string& ctx)
{
    return uint32_t(std::stoul(ctx.substr(10, ctx.find('/', 10) - 10))); // "/NodeList/<id>/..."
}
void
OnCwnd(std::string ctx, uint32_t, uint32_t v)
{
    if (g_pkt && g.measuring)
        std::fprintf(g_pkt, "W %lld %u %llu\n", (long long)Simulator::Now().GetNanoSeconds(), NodeOf(ctx),
                     (unsigned long long)(100.0 * v / g_segment));
    Sock& s = g_socks[SockKey(ctx)];
    g_cwndTotal += double(v) - s.cwnd;
    s.cwnd = v;
}
void
OnFlight(std::string ctx, uint32_t, uint32_t v)
{
    if (g_pkt && g.measuring)
        std::fprintf(g_pkt, "F %lld %u %llu\n", (long long)Simulator::Now().GetNanoSeconds(), NodeOf(ctx),
                     (unsigned long long)(100.0 * v / g_segment));
    double& f = g_flight[SockKey(ctx)];
    g_flightTotal += double(v) - f;
    f = v;
}
void
SampleWindows()
{
    if (!g.measuring)
        return;
    g_cwndSampled += g_cwndTotal;
    g_flightSampled += g_flightTotal;
    g_samples++;
    Simulator::Schedule(MilliSeconds(1), &SampleWindows);
}
void
OnSsthresh(std::string ctx, uint32_t, uint32_t v)
{
    if (g_pkt && g.measuring)
        std::fprintf(g_pkt, "T %lld %u %llu\n", (long long)Simulator::Now().GetNanoSeconds(), NodeOf(ctx),
                     (unsigned long long)(100.0 * v / g_segment));
    g_socks[SockKey(ctx)].ssthresh = v;
}
void
OnCongState(std::string ctx, TcpSocketState::TcpCongState_t prev, TcpSocketState::TcpCongState_t next)
{
    if (!g.measuring)
        return;
    if (g_pkt)
        std::fprintf(g_pkt, "G %lld %u %d\n", (long long)Simulator::Now().GetNanoSeconds(), NodeOf(ctx), int(next));
    Sock& s = g_socks[SockKey(ctx)];
    double ratio = s.cwnd > 0 ? s.ssthresh / s.cwnd : 0;
    if (next == TcpSocketState::CA_LOSS)
        g_timeouts++;
    else if (next == TcpSocketState::CA_RECOVERY)
    {
        g_recoveries++;
        g_recRatio += ratio;
    }
    else if (next == TcpSocketState::CA_CWR)
    {
        g_cwr++;
        g_cwrRatio += ratio;
        bool again = s.cwrExit == Simulator::Now();
        g_cwrAgain += again;
        if (g_trace)
            std::fprintf(g_trace, "%.6f %s cwr cwnd=%.0f ssthresh=%.0f again=%d\n",
                         Simulator::Now().GetSeconds(), SockKey(ctx).c_str(), s.cwnd, s.ssthresh, int(again));
    }
    if (prev == TcpSocketState::CA_CWR)
        s.cwrExit = Simulator::Now();
    if (g_trace && next == TcpSocketState::CA_RECOVERY)
        std::fprintf(g_trace, "%.6f %s recovery cwnd=%.0f ssthresh=%.0f\n",
                     Simulator::Now().GetSeconds(), SockKey(ctx).c_str(), s.cwnd, s.ssthresh);
}
void
StartWindow()
{
    g.measuring = true;
    for (auto& s : g_sinks)
        g_rx0.push_back(s->GetTotalRx());
    Config::Connect("/NodeList/*/$ns3::TcpL4Protocol/SocketList/*/CongestionWindow",
                    MakeCallback(&OnCwnd));
    Config::Connect("/NodeList/*/$ns3::TcpL4Protocol/SocketList/*/SlowStartThreshold",
                    MakeCallback(&OnSsthresh));
    Config::Connect("/NodeList/*/$ns3::TcpL4Protocol/SocketList/*/CongState",
                    MakeCallback(&OnCongState));
    Config::Connect("/NodeList/*/$ns3::TcpL4Protocol/SocketList/*/BytesInFlight",
                    MakeCallback(&OnFlight));
    if (g_pkt)
    {
        Config::ConnectWithoutContext("/NodeList/*/$ns3::TcpL4Protocol/SocketList/*/Tx",
                                      MakeCallback(&OnSocketTx));
        Config::ConnectWithoutContext("/NodeList/*/$ns3::TcpL4Protocol/SocketList/*/Rx",
                                      MakeCallback(&OnSocketRx));
    }
    Simulator::Schedule(MilliSeconds(1), &SampleWindows);
}
void
EndWindow()
{
    g.measuring = false;
}

#define FAIL(msg)                                                                                  \
    do                                                                                             \
    {                                                                                              \
        std::ostringstream os_;                                                                    \
        os_ << msg;                                                                                \
        std::fprintf(stderr, "aqm: error: %s\n", os_.str().c_str());                               \
        std::exit(2);                                                                              \
    } while (false)

std::vector<double>
ParseList(const std::string& s)
{
    std::vector<double> out;
    std::stringstream ss(s);
    std::string item;
    while (std::getline(ss, item, ','))
        if (!item.empty())
            out.push_back(std::stod(item));
    return out;
}

std::string
Attr(Ptr<Object> o, const std::string& name)
{
    TypeId tid = o->GetInstanceTypeId();
    TypeId::AttributeInformation info;
    if (!tid.LookupAttributeByName(name, &info))
        return "?";
    Ptr<AttributeValue> v = info.checker->Create();
    o->GetAttribute(name, *v);
    return v->SerializeToString(info.checker);
}

} // namespace

int
main(int argc, char* argv[])
{
    uint32_t nFlows = 4;
    std::string capacity = "100Mbps";
    double duration = 60, warmup = 20;
    uint32_t seed = 1;
    std::string rttList, startList;
    uint32_t packetSize = 1500;
    std::string qdisc = "codel";
    uint32_t limit = 1000;
    // RED
    double minTh = 30, maxTh = 90, maxP = 0.1, qw = 0.002;
    bool gentle = true;
    // CoDel / FqCoDel
    double targetMs = 5, intervalMs = 100;
    uint32_t fqFlows = 1024, quantum = 1500;
    // PIE
    double pieRefMs = 15, tUpdateMs = 15, alpha = 0.125, beta = 1.25, maxBurstMs = 150;
    // ECN: TcpSocketBase::UseEcn On at every socket and the disc's UseEcn (RED keeps
    // UseHardDrop true, ns-3's default)
    bool ecn = false;
    // DCTCP (TcpDctcp, which turns ECN on for itself) instead of NewReno, and RED's UseHardDrop
    // (false for ns-3's DCTCP step marker: MinTh = MaxTh = K, QW = 1, Gentle off)
    bool dctcp = false, hardDrop = true;
    // Diagnostics: a file to list every window reduction in the window in (time, socket, kind,
    // cwnd before, ssthresh set)
    std::string tracePath;

    CommandLine cmd(__FILE__);
    cmd.AddValue("flows", "number of flows", nFlows);
    cmd.AddValue("capacity", "bottleneck rate", capacity);
    cmd.AddValue("duration", "simulated seconds", duration);
    cmd.AddValue("warmup", "seconds before the window", warmup);
    cmd.AddValue("seed", "ns-3 RNG run number", seed);
    cmd.AddValue("rtts", "comma-separated RTTs, ms (length n)", rttList);
    cmd.AddValue("starts", "comma-separated start times, s (length n)", startList);
    cmd.AddValue("packetSize", "data frame size on the wire", packetSize);
    cmd.AddValue("qdisc", "red, codel, pie or fq_codel", qdisc);
    cmd.AddValue("limit", "hard limit of the disc, packets", limit);
    cmd.AddValue("minTh", "RED MinTh, packets", minTh);
    cmd.AddValue("maxTh", "RED MaxTh, packets", maxTh);
    cmd.AddValue("maxP", "RED max_p (LInterm = 1/maxP)", maxP);
    cmd.AddValue("qw", "RED queue weight", qw);
    cmd.AddValue("gentle", "RED gentle", gentle);
    cmd.AddValue("target", "CoDel/FqCoDel target, ms", targetMs);
    cmd.AddValue("interval", "CoDel/FqCoDel interval, ms", intervalMs);
    cmd.AddValue("fqFlows", "FqCoDel flow queues", fqFlows);
    cmd.AddValue("quantum", "FqCoDel quantum, bytes", quantum);
    cmd.AddValue("pieRef", "PIE QueueDelayReference, ms", pieRefMs);
    cmd.AddValue("tUpdate", "PIE Tupdate, ms", tUpdateMs);
    cmd.AddValue("alpha", "PIE A", alpha);
    cmd.AddValue("beta", "PIE B", beta);
    cmd.AddValue("maxBurst", "PIE MaxBurstAllowance, ms", maxBurstMs);
    cmd.AddValue("ecn", "ECN on the senders and at the disc", ecn);
    cmd.AddValue("dctcp", "TcpDctcp senders instead of TcpNewReno", dctcp);
    cmd.AddValue("hardDrop", "RED UseHardDrop", hardDrop);
    cmd.AddValue("trace", "file listing each window reduction (diagnostics)", tracePath);
    std::string arrivalsPath;
    cmd.AddValue("arrivals", "file listing each arrival at the disc (open-loop replay)", arrivalsPath);
    std::string pktPath;
    cmd.AddValue("pkttrace", "file listing data/ACK events per flow in the window (diagnostics)", pktPath);
    cmd.Parse(argc, argv);
    if (!tracePath.empty() && !(g_trace = std::fopen(tracePath.c_str(), "w")))
        FAIL("cannot write --trace " << tracePath);
    if (!arrivalsPath.empty() && !(g_arrivals = std::fopen(arrivalsPath.c_str(), "w")))
        FAIL("cannot write --arrivals " << arrivalsPath);
    if (!pktPath.empty() && !(g_pkt = std::fopen(pktPath.c_str(), "w")))
        FAIL("cannot write --pkttrace " << pktPath);

    std::vector<double> rtts = ParseList(rttList), starts = ParseList(startList);
    if (rtts.size() != nFlows || starts.size() != nFlows)
        FAIL("--rtts and --starts need one value per flow");
    DataRate c(capacity);
    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(seed);
    g_limit = limit;

    const uint32_t segment = packetSize - 40 - 12 - 2;
    g_segment = segment;
    Config::SetDefault("ns3::TcpL4Protocol::SocketType",
                       TypeIdValue(dctcp ? TcpDctcp::GetTypeId() : TcpNewReno::GetTypeId()));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(segment));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(32u << 20));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(32u << 20));
    Config::SetDefault("ns3::Ipv4::WeakEsModel", BooleanValue(false));
    if (ecn)
        Config::SetDefault("ns3::TcpSocketBase::UseEcn", EnumValue(TcpSocketState::On));

    NodeContainer senders;
    senders.Create(nFlows);
    Ptr<Node> r1 = CreateObject<Node>(), r2 = CreateObject<Node>();
    InternetStackHelper stack;
    stack.Install(senders);
    stack.Install(r1);
    stack.Install(r2);

    Ipv4AddressHelper addr;
    addr.SetBase("10.0.0.0", "255.255.255.252");

    PointToPointHelper bn; // flow control on: the disc feeds the device
    bn.SetDeviceAttribute("DataRate", DataRateValue(c));
    bn.SetChannelAttribute("Delay", TimeValue(Seconds(0)));
    bn.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", QueueSizeValue(QueueSize("1p")));
    NetDeviceContainer bnDevs = bn.Install(r1, r2);

    TrafficControlHelper tch;
    const std::string lim = std::to_string(limit) + "p";
    if (qdisc == "red")
        tch.SetRootQueueDisc("ns3::RedQueueDisc", "MaxSize", QueueSizeValue(QueueSize(lim)),
                             "MinTh", DoubleValue(minTh), "MaxTh", DoubleValue(maxTh),
                             "LInterm", DoubleValue(1.0 / maxP), "QW", DoubleValue(qw),
                             "Gentle", BooleanValue(gentle), "Wait", BooleanValue(false),
                             "ARED", BooleanValue(false), "AdaptMaxP", BooleanValue(false),
                             "MeanPktSize", UintegerValue(packetSize - 2),
                             "IdlePktSize", UintegerValue(0),
                             "LinkBandwidth", DataRateValue(c), "UseEcn", BooleanValue(ecn),
                             "UseHardDrop", BooleanValue(hardDrop), "NLRED", BooleanValue(false),
                             "FengAdaptive", BooleanValue(false), "Ns1Compat", BooleanValue(false));
    else if (qdisc == "codel")
        tch.SetRootQueueDisc("ns3::CoDelQueueDisc", "MaxSize", QueueSizeValue(QueueSize(lim)),
                             "Target", StringValue(std::to_string(targetMs) + "ms"),
                             "Interval", StringValue(std::to_string(intervalMs) + "ms"),
                             "MinBytes", UintegerValue(packetSize - 2), "UseEcn", BooleanValue(ecn));
    else if (qdisc == "pie")
        tch.SetRootQueueDisc("ns3::PieQueueDisc", "MaxSize", QueueSizeValue(QueueSize(lim)),
                             "QueueDelayReference", TimeValue(MicroSeconds(std::llround(pieRefMs * 1000))),
                             "Tupdate", TimeValue(MicroSeconds(std::llround(tUpdateMs * 1000))),
                             "A", DoubleValue(alpha), "B", DoubleValue(beta),
                             "MaxBurstAllowance", TimeValue(MicroSeconds(std::llround(maxBurstMs * 1000))),
                             "UseDequeueRateEstimator", BooleanValue(false),
                             "UseCapDropAdjustment", BooleanValue(true),
                             "UseDerandomization", BooleanValue(false), "UseEcn", BooleanValue(ecn),
                             "MeanPktSize", UintegerValue(packetSize - 2));
    else if (qdisc == "fq_codel")
        tch.SetRootQueueDisc("ns3::FqCoDelQueueDisc", "MaxSize", QueueSizeValue(QueueSize(lim)),
                             "Target", StringValue(std::to_string(targetMs) + "ms"),
                             "Interval", StringValue(std::to_string(intervalMs) + "ms"),
                             "Flows", UintegerValue(fqFlows), "UseEcn", BooleanValue(ecn),
                             "DropBatchSize", UintegerValue(64),
                             "Perturbation", UintegerValue(seed));
    else
        FAIL("--qdisc must be red, codel, pie or fq_codel");
    QueueDiscContainer qdc = tch.Install(bnDevs.Get(0));
    g_disc = qdc.Get(0);
    if (qdisc == "fq_codel")
        DynamicCast<FqCoDelQueueDisc>(g_disc)->SetQuantum(quantum);
    TrafficControlHelper rev;
    rev.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize", QueueSizeValue(QueueSize("1000000p")));
    rev.Install(bnDevs.Get(1));
    DynamicCast<PointToPointNetDevice>(bnDevs.Get(1))
        ->GetQueue()
        ->SetMaxSize(QueueSize(QueueSizeUnit::PACKETS, 1000000));
    Ipv4InterfaceContainer bnIf = addr.Assign(bnDevs);
    addr.NewNetwork();
    Ipv4Address sinkAddr = bnIf.GetAddress(1);

    PointToPointHelper acc;
    acc.DisableFlowControl();
    acc.SetDeviceAttribute("DataRate", DataRateValue(DataRate(c.GetBitRate() * 10)));
    acc.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", QueueSizeValue(QueueSize("1000000p")));
    for (uint32_t i = 0; i < nFlows; i++)
    {
        acc.SetChannelAttribute("Delay", TimeValue(NanoSeconds(std::llround(rtts[i] / 2 * 1e6))));
        NetDeviceContainer d = acc.Install(senders.Get(i), r1);
        addr.Assign(d);
        addr.NewNetwork();
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    std::vector<Ptr<PacketSink>> sinks;
    for (uint32_t i = 0; i < nFlows; i++)
    {
        uint16_t port = 5000 + i;
        PacketSinkHelper sh("ns3::TcpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), port));
        ApplicationContainer sa = sh.Install(r2);
        sa.Start(Seconds(0));
        sinks.push_back(DynamicCast<PacketSink>(sa.Get(0)));
        BulkSendHelper bh("ns3::TcpSocketFactory", InetSocketAddress(sinkAddr, port));
        bh.SetAttribute("MaxBytes", UintegerValue(0));
        bh.SetAttribute("SendSize", UintegerValue(segment * 16));
        ApplicationContainer ba = bh.Install(senders.Get(i));
        ba.Start(Seconds(starts[i]));
    }

    Ptr<PointToPointNetDevice> fwd = DynamicCast<PointToPointNetDevice>(bnDevs.Get(0));
    fwd->TraceConnectWithoutContext("PhyTxBegin", MakeCallback(&OnPhyTxBegin));
    fwd->TraceConnectWithoutContext("PhyTxBegin", MakeCallback(&OnPhyTxBeginPkt));
    fwd->GetQueue()->TraceConnectWithoutContext("Enqueue", MakeCallback(&OnDevEnqueue));
    fwd->GetQueue()->TraceConnectWithoutContext("Dequeue", MakeCallback(&OnDevDequeue));
    g_disc->TraceConnectWithoutContext("Enqueue", MakeCallback(&OnEnqueue));
    g_disc->TraceConnectWithoutContext("Mark", MakeCallback(&OnMark));
    g_disc->TraceConnectWithoutContext("DropBeforeEnqueue", MakeCallback(&OnDropBefore));
    g_disc->TraceConnectWithoutContext("DropAfterDequeue", MakeCallback(&OnDropAfter));
    g_disc->TraceConnectWithoutContext("SojournTime", MakeCallback(&OnSojourn));

    g_sinks = sinks;
    Simulator::Schedule(Seconds(warmup), &StartWindow);
    Simulator::Schedule(Seconds(duration), &EndWindow);
    Simulator::Stop(Seconds(duration));
    auto t0 = std::chrono::steady_clock::now();
    Simulator::Run();
    double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

    double window = duration - warmup;
    uint64_t arrivals = g.enq + g.dropBefore;
    uint64_t drops = g.dropBefore + g.dropAfter;
    double p99 = 0;
    {
        uint64_t acc = 0;
        for (size_t b = 0; b < g.sojournHist.size(); b++)
        {
            acc += g.sojournHist[b];
            if (acc >= 0.99 * g.sojournN)
            {
                p99 = (b + 1) * 1e-4;
                break;
            }
        }
    }
    std::ostringstream params;
    for (const char* a : {"MaxSize", "MinTh", "MaxTh", "LInterm", "QW", "Gentle", "Wait", "ARED",
                          "MeanPktSize", "LinkBandwidth", "Target", "Interval", "MinBytes",
                          "QueueDelayReference", "Tupdate", "A", "B", "MaxBurstAllowance",
                          "UseDequeueRateEstimator", "UseCapDropAdjustment", "UseDerandomization",
                          "Flows", "DropBatchSize", "UseEcn"})
    {
        std::string v = Attr(g_disc, a);
        if (v != "?")
            params << (params.tellp() ? "," : "") << "\"" << a << "\":\"" << v << "\"";
    }
    if (qdisc == "fq_codel")
        params << ",\"Quantum\":\"" << DynamicCast<FqCoDelQueueDisc>(g_disc)->GetQuantum() << "\"";
    std::ostringstream reasons;
    for (auto& kv : g.reasons)
        reasons << (reasons.tellp() ? "," : "") << "\"" << kv.first << "\":" << kv.second;
    double gsum = 0, gsq = 0;
    for (size_t i = 0; i < g_sinks.size(); i++)
    {
        double x = double(g_sinks[i]->GetTotalRx() - g_rx0[i]);
        gsum += x;
        gsq += x * x;
    }
    double jain = gsq > 0 ? gsum * gsum / (g_sinks.size() * gsq) : 0.0;
    double soj = g.sojournN ? g.sojournSum / g.sojournN : 0.0;
    double dev = g.devWaitN ? g.devWaitSum / g.devWaitN : 0.0;
    std::printf("{\"tool\":\"ns-3\",\"ns3_version\":\"3.37\",\"qdisc\":\"%s\",\"flows\":%u,"
                "\"seed\":%u,\"segment_size\":%u,\"utilization\":%.6f,\"arrivals\":%llu,"
                "\"marks\":%llu,\"drops\":%llu,\"aqm_drops\":%llu,\"overflow_drops\":%llu,\"drop_rate\":%.6g,"
                "\"aqm_drop_rate\":%.6g,\"overflow_drop_rate\":%.6g,\"sojourn_disc_mean_s\":%.6g,"
                "\"device_wait_mean_s\":%.6g,\"sojourn_mean_s\":%.6g,\"sojourn_disc_p99_s\":%.6g,"
                "\"packets_sent\":%llu,\"timeouts\":%llu,\"fast_retransmits\":%llu,\"cwr_entries\":%llu,\"cwr_again\":%llu,\"cwr_ssthresh_over_cwnd\":%.4f,\"recovery_ssthresh_over_cwnd\":%.4f,\"cwnd_sum_mean\":%.2f,\"flight_sum_mean\":%.2f,\"jain_fairness\":%.6f,\"wall_seconds\":%.2f,\"params\":{%s},\"drop_reasons\":{%s}}\n",
                qdisc.c_str(), nFlows, seed, segment, g.txBytes * 8.0 / (c.GetBitRate() * window),
                (unsigned long long)arrivals, (unsigned long long)g.marks, (unsigned long long)drops,
                (unsigned long long)g.aqmDrops, (unsigned long long)g.overflowDrops,
                arrivals ? double(drops) / arrivals : 0.0,
                arrivals ? double(g.aqmDrops) / arrivals : 0.0,
                arrivals ? double(g.overflowDrops) / arrivals : 0.0, soj, dev, soj + dev, p99,
                (unsigned long long)g.txPackets, (unsigned long long)g_timeouts,
                (unsigned long long)g_recoveries, (unsigned long long)g_cwr, (unsigned long long)g_cwrAgain,
                g_cwr ? g_cwrRatio / g_cwr : 0.0, g_recoveries ? g_recRatio / g_recoveries : 0.0,
                g_samples ? g_cwndSampled / g_samples / segment : 0.0,
                g_samples ? g_flightSampled / g_samples / segment : 0.0, jain, wall, params.str().c_str(), reasons.str().c_str());
    if (g_trace)
        std::fclose(g_trace);
    if (g_arrivals)
        std::fclose(g_arrivals);
    if (g_pkt)
        std::fclose(g_pkt);
    Simulator::Destroy();
    return 0;
}
