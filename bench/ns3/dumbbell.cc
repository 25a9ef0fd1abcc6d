// ns-3 dumbbell used to cross-validate bufsize's packet simulator.
//
// Topology (all links point-to-point, no queue discs anywhere):
//
//   S_0 --access(Γ·C, d_0)--\
//   S_1 --access(Γ·C, d_1)---+-- R1 ==bottleneck (C, d_b, DropTail B pkt)==> R2 (all sinks)
//   ...                     /
//   S_n-1 -----------------/
//
// Flow i sends from S_i to a PacketSink on R2. Its two-way propagation delay is
// rtt_i = 2 (d_i + d_b). ACKs go back R2 -> R1 -> S_i: the reverse direction of
// the bottleneck (rate C, unlimited queue) and then the flow's access link.
//
// Only one queue in the whole network can build up: the bottleneck device's
// DropTailQueue, limited to B packets. Point-to-point devices are built with
// flow control disabled, so ns-3 installs no queue disc (its default would be
// FqCoDel) and a full device queue drops through the MacTxDrop trace. While a
// packet is being serialized the device queue holds up to B more, so the
// router holds at most B + 1 packets.
//
// Wire size: the point-to-point device adds a 2-byte PPP header to every IP
// packet. The TCP segment size is packet_size - 40 (IP+TCP, no options on data
// segments because timestamps are off) - 2 (PPP), so each data frame on the
// bottleneck is exactly packet_size bytes and takes packet_size*8/C seconds.
//
// Congestion control (default NewReno for every flow): --cc or --ccs give one control for all
// flows or one per flow, among newreno, cubic (ns3::TcpCubic) and bbr (ns3::TcpBbr). A BBR
// flow's socket is paced (TcpSocketBase::SetPacingStatus(true), as ns3::TcpSocketState::EnablePacing
// would for all): BBR without a paced sender is not BBR. Other flows are not paced (as Linux
// reno/cubic without fq). --printFlows adds each flow's control and goodput to the JSON.
//
// TCP stack: --stack=explicit (the default, what the OC3 grids ran) sets every stack detail
// that an option does not give to this program's own defaults: NewReno, classic recovery,
// SACK off, timestamps off, IW 2, MinRto 200 ms, an ACK for every segment (delAckCount 1,
// delAckTimeout 200 ms). --stack=defaults sets none of them: whatever option is not on the
// command line stays at ns-3 3.37's own default (TcpCubic, TcpPrrRecovery, SACK on,
// timestamps on, IW 10, MinRto 1 s, delAckCount 2, delAckTimeout 200 ms; ns3_defaults.md).
// Options given explicitly win in both modes. The segment size is always chosen so that a
// data frame is exactly --packetSize bytes on the wire: packetSize - 40 - 2 (PPP), less 12
// more when timestamps are on (the 10-byte TS option padded to 12 rides on every segment).
// The JSON reports the values the sockets were built with, read back from ns-3's attribute
// system after the settings (init_cwnd, min_rto_s, sack, timestamps, del_ack_*, recovery,
// socket_type, ...), so a default cannot be misreported.
//
// Output: one JSON object on one line on stdout.

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/tcp-bbr.h"
#include "ns3/tcp-cubic.h"

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

// Counters on the bottleneck device, split at the start of the measurement window.
struct Bottleneck
{
    bool measuring = false;
    uint64_t arrivals = 0;  // packets handed to the device (MacTx), including dropped ones
    uint64_t drops = 0;     // packets refused by the full DropTail queue (MacTxDrop)
    uint64_t txPackets = 0; // frames that started serialization (PhyTxBegin)
    uint64_t txBytes = 0;   // their size on the wire, PPP header included
    uint64_t txAll = 0;     // frames serialized over the whole run (for the speed figure)
    // time-weighted queue occupancy (device queue, waiting packets only)
    uint32_t qNow = 0;
    uint32_t qMax = 0;
    double qArea = 0; // packet-seconds inside the window
    double qArea2 = 0; // packet²-seconds inside the window (for the queue's std)
    Time qLast;
};

Bottleneck g_b;
bool g_traceQueue = false; // set with --traceFlow: bottleneck queue length on stderr too
// Entries into CA_LOSS inside the window: RTO expiries, except that further expiries
// (backoff) while already in CA_LOSS do not count, since the state does not change.
uint64_t g_timeouts = 0;
uint64_t g_recoveries = 0; // transitions into CA_RECOVERY (fast retransmits) inside the window

void
OnMacTx(Ptr<const Packet>)
{
    if (g_b.measuring)
        g_b.arrivals++;
}

void
OnMacTxDrop(Ptr<const Packet>)
{
    if (g_b.measuring)
        g_b.drops++;
}

void
OnPhyTxBegin(Ptr<const Packet> p)
{
    g_b.txAll++;
    if (g_b.measuring)
    {
        g_b.txPackets++;
        g_b.txBytes += p->GetSize();
    }
}

void
OnQueueLength(uint32_t, uint32_t now)
{
    Time t = Simulator::Now();
    if (g_b.measuring)
    {
        g_b.qArea += g_b.qNow * (t - g_b.qLast).GetSeconds();
        g_b.qArea2 += double(g_b.qNow) * g_b.qNow * (t - g_b.qLast).GetSeconds();
        g_b.qMax = std::max(g_b.qMax, now);
    }
    g_b.qLast = t;
    g_b.qNow = now;
    if (g_traceQueue)
        std::fprintf(stderr, "%.6f queue %u\n", t.GetSeconds(), now);
}

void
OnCongState(TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t next)
{
    if (!g_b.measuring)
        return;
    if (next == TcpSocketState::CA_LOSS)
        g_timeouts++;
    else if (next == TcpSocketState::CA_RECOVERY)
        g_recoveries++;
}

std::vector<uint64_t> g_rxAtWarmup;

// --traceFlow: a time series of one flow's congestion state on stderr (debugging aid).
SequenceNumber32 g_traceHigh;
void
TraceCwnd(uint32_t, uint32_t now)
{
    std::fprintf(stderr, "%.6f cwnd %u\n", Simulator::Now().GetSeconds(), now);
}
void
TraceInFlight(uint32_t, uint32_t now)
{
    std::fprintf(stderr, "%.6f inflight %u\n", Simulator::Now().GetSeconds(), now);
}
void
TraceState(TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t next)
{
    std::fprintf(stderr, "%.6f state %s\n", Simulator::Now().GetSeconds(),
                 TcpSocketState::TcpCongStateName[next]);
}
void
TraceTx(Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase>)
{
    if (p->GetSize() == 0)
        return;
    if (h.GetSequenceNumber() < g_traceHigh)
        std::fprintf(stderr, "%.6f rtx %u\n", Simulator::Now().GetSeconds(), h.GetSequenceNumber().GetValue());
    else
        g_traceHigh = h.GetSequenceNumber();
}
void
HookTrace(Ptr<BulkSendApplication> app)
{
    Ptr<Socket> s = app->GetSocket();
    s->TraceConnectWithoutContext("CongestionWindow", MakeCallback(&TraceCwnd));
    s->TraceConnectWithoutContext("CongState", MakeCallback(&TraceState));
    s->TraceConnectWithoutContext("BytesInFlight", MakeCallback(&TraceInFlight));
    s->TraceConnectWithoutContext("Tx", MakeCallback(&TraceTx));
}

// A BBR flow's socket: pacing on (set right after BulkSendApplication created the socket,
// before the handshake completes and BBR initializes its pacing rate).
void
EnablePacing(Ptr<BulkSendApplication> app)
{
    Ptr<TcpSocketBase> s = DynamicCast<TcpSocketBase>(app->GetSocket());
    if (!s)
    {
        std::fprintf(stderr, "dumbbell: error: no TCP socket to pace\n");
        std::exit(1);
    }
    s->SetPacingStatus(true);
}

// --linuxRto: this flow's minimum RTO raised to minRto + its propagation RTT. Linux computes
// RTO = srtt + max(4 mdev, rto_min) (rto_min 200 ms is a floor on the variance term, not on the
// RTO), i.e. about srtt + 200 ms; ns-3's MinRto floors the whole RTO at 200 ms, which with RTTs of
// 40-100 ms and a timer not restarted at fast retransmit fires spurious timeouts (results.md, gap 1).
void
SetMinRto(Ptr<BulkSendApplication> app, Time minRto)
{
    Ptr<Socket> s = app->GetSocket();
    if (!s)
    {
        std::fprintf(stderr, "dumbbell: error: no TCP socket to set MinRto on\n");
        std::exit(1);
    }
    s->SetAttribute("MinRto", TimeValue(minRto));
}

// --cwndSumInterval: every flow's congestion window, sampled on a fixed grid in the window.
// Per flow the latest CongestionWindow and SlowStartThreshold (bytes) and congestion state;
// a flow in CA_RECOVERY counts min(cwnd, ssthresh) segments, as bufsize counts it.
struct FlowCwnd
{
    double cwnd = 0;     // bytes
    double ssthresh = 1e18;
    bool recovery = false;
    double sum = 0, sumSq = 0; // of the counted cwnd in segments, over the samples
};
std::vector<FlowCwnd> g_fc;
double g_segment = 1;
double g_csInterval = 0;   // seconds; 0 = off
double g_csEnd = 0;        // last sample strictly before this time
uint64_t g_csN = 0;
double g_csSum = 0, g_csSumSq = 0;       // counted Σcwnd (segments)
double g_csRawSum = 0, g_csRawSumSq = 0; // Σ of the raw CongestionWindow trace (segments)

void
FcCwnd(uint32_t i, uint32_t, uint32_t now)
{
    g_fc[i].cwnd = now;
}
void
FcSsthresh(uint32_t i, uint32_t, uint32_t now)
{
    g_fc[i].ssthresh = now;
}
void
FcState(uint32_t i, TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t next)
{
    g_fc[i].recovery = next == TcpSocketState::CA_RECOVERY;
}
void
HookCwnd(uint32_t i, Ptr<BulkSendApplication> app)
{
    Ptr<Socket> s = app->GetSocket();
    s->TraceConnectWithoutContext("CongestionWindow", MakeBoundCallback(&FcCwnd, i));
    s->TraceConnectWithoutContext("SlowStartThreshold", MakeBoundCallback(&FcSsthresh, i));
    s->TraceConnectWithoutContext("CongState", MakeBoundCallback(&FcState, i));
}
void
SampleCwndSum()
{
    double sum = 0, raw = 0;
    for (auto& f : g_fc)
    {
        double w = (f.recovery ? std::min(f.cwnd, f.ssthresh) : f.cwnd) / g_segment;
        sum += w;
        raw += f.cwnd / g_segment;
        f.sum += w;
        f.sumSq += w * w;
    }
    g_csN++;
    g_csSum += sum;
    g_csSumSq += sum * sum;
    g_csRawSum += raw;
    g_csRawSumSq += raw * raw;
    Time next = Simulator::Now() + Seconds(g_csInterval);
    if (next < Seconds(g_csEnd))
        Simulator::Schedule(Seconds(g_csInterval), &SampleCwndSum);
}

void
StartWindow(std::vector<Ptr<PacketSink>>* sinks)
{
    g_b.measuring = true;
    g_b.qLast = Simulator::Now();
    g_b.qMax = g_b.qNow;
    g_rxAtWarmup.clear();
    for (auto& s : *sinks)
        g_rxAtWarmup.push_back(s->GetTotalRx());
    // All sockets exist by now (every flow started before the warm-up ended).
    Config::ConnectWithoutContext("/NodeList/*/$ns3::TcpL4Protocol/SocketList/*/CongState",
                                  MakeCallback(&OnCongState));
}

void
EndWindow()
{
    g_b.qArea += g_b.qNow * (Simulator::Now() - g_b.qLast).GetSeconds();
    g_b.qArea2 += double(g_b.qNow) * g_b.qNow * (Simulator::Now() - g_b.qLast).GetSeconds();
    g_b.qLast = Simulator::Now();
    g_b.measuring = false;
}

// Bad arguments: one line on stderr, exit status 2 (no abort, no core dump).
#define FAIL(msg)                                                                                  \
    do                                                                                             \
    {                                                                                              \
        std::ostringstream os_;                                                                    \
        os_ << msg;                                                                                \
        std::fprintf(stderr, "dumbbell: error: %s\n", os_.str().c_str());                          \
        std::exit(2);                                                                              \
    } while (false)

// Whether --name was on the command line (as --name or --name=value).
bool
Given(int argc, char* argv[], const std::string& name)
{
    const std::string flag = "--" + name;
    for (int i = 1; i < argc; i++)
    {
        std::string a = argv[i];
        if (a == flag || a.rfind(flag + "=", 0) == 0)
            return true;
    }
    return false;
}

// The initial value of attribute `name` of TypeId `tid`: ns-3's default, or what
// Config::SetDefault made of it.
std::string
AttrInitial(const std::string& tid, const std::string& name)
{
    TypeId t = TypeId::LookupByName(tid);
    TypeId::AttributeInformation info;
    if (!t.LookupAttributeByName(name, &info))
    {
        std::fprintf(stderr, "dumbbell: error: no attribute %s::%s\n", tid.c_str(), name.c_str());
        std::exit(1);
    }
    return info.initialValue->SerializeToString(info.checker);
}

double
AttrSeconds(const std::string& tid, const std::string& name)
{
    return Time(AttrInitial(tid, name)).GetSeconds();
}

std::vector<double>
ParseList(const std::string& s, const char* what)
{
    std::vector<double> out;
    std::stringstream ss(s);
    std::string item;
    while (std::getline(ss, item, ','))
    {
        if (item.empty())
            continue;
        char* end = nullptr;
        double v = std::strtod(item.c_str(), &end);
        if (end == item.c_str() || *end != '\0' || !(v > 0))
            FAIL("--" << what << ": '" << item << "' is not a positive number");
        out.push_back(v);
    }
    return out;
}

} // namespace

int
main(int argc, char* argv[])
{
    uint32_t nFlows = 50;
    std::string capacity = "155Mbps";
    uint32_t buffer = 100;
    double duration = 40;
    double warmup = 10;
    uint32_t seed = 1;
    double rttMinMs = 20;
    double rttMaxMs = 140;
    std::string rttList; // comma-separated milliseconds; overrides rttMin/rttMax
    std::string startList; // comma-separated seconds; overrides startSpread
    double startSpread = 1.0;
    double accessFactor = 10;
    double bottleneckDelayMs = 0;
    uint32_t packetSize = 1000;
    bool sack = false;
    uint32_t initCwnd = 2;
    double minRtoMs = 200;
    bool printRtts = false;
    uint32_t sockBuf = 32u << 20;
    int traceFlow = -1;
    uint32_t maxWindow = 0;
    double cwndSumInterval = 0;
    std::string ccName = "newreno";
    std::string ccList; // comma-separated, one per flow; overrides --cc
    std::string recovery = "classic";
    uint32_t delAckCount = 1;
    double delAckTimeoutMs = 200;
    bool printFlows = false;
    bool linuxRto = false;
    std::string stackMode = "explicit";
    bool timestamps = false;

    CommandLine cmd(__FILE__);
    cmd.AddValue("flows", "number of long-lived TCP flows n", nFlows);
    cmd.AddValue("capacity", "bottleneck rate C (ns-3 DataRate, e.g. 155Mbps)", capacity);
    cmd.AddValue("buffer", "bottleneck DropTail limit B in packets (waiting; +1 serializing)", buffer);
    cmd.AddValue("duration", "simulated seconds", duration);
    cmd.AddValue("warmup", "seconds before the measurement window opens", warmup);
    cmd.AddValue("seed", "seed for RTTs, start times and ns-3's RNG", seed);
    cmd.AddValue("rttMin", "smallest two-way propagation delay, ms", rttMinMs);
    cmd.AddValue("rttMax", "largest two-way propagation delay, ms", rttMaxMs);
    cmd.AddValue("rtts", "explicit comma-separated RTT list in ms (length n)", rttList);
    cmd.AddValue("starts", "explicit comma-separated start times in s (length n)", startList);
    cmd.AddValue("startSpread", "flows start uniformly in [0, startSpread) s", startSpread);
    cmd.AddValue("accessFactor", "access-link rate as a multiple of C (Γ)", accessFactor);
    cmd.AddValue("bottleneckDelay", "one-way propagation delay of the bottleneck, ms", bottleneckDelayMs);
    cmd.AddValue("packetSize", "data frame size on the wire, bytes (PPP header included)", packetSize);
    cmd.AddValue("stack",
                 "explicit: stack options not given take this program's defaults (NewReno, "
                 "classic recovery, no SACK/timestamps, IW 2, MinRto 200 ms, delAckCount 1); "
                 "defaults: options not given stay at ns-3's own defaults",
                 stackMode);
    cmd.AddValue("sack", "enable SACK (RFC 2018) in ns-3's TCP", sack);
    cmd.AddValue("timestamps", "enable TCP timestamps (RFC 7323); adds 12 bytes to every segment", timestamps);
    cmd.AddValue("initCwnd", "initial congestion window, segments", initCwnd);
    cmd.AddValue("minRto", "minimum RTO, ms", minRtoMs);
    cmd.AddValue("sockBuf", "TCP send and receive buffer, bytes (must exceed any window)", sockBuf);
    cmd.AddValue("maxWindow", "receive-window cap Wmax in segments (0 = none)", maxWindow);
    cmd.AddValue("traceFlow", "print this flow's cwnd/state/retransmissions on stderr", traceFlow);
    cmd.AddValue("cwndSumInterval",
                 "sample every flow's cwnd every this many seconds in the window and report "
                 "the mean and std of their sum (0 = off)",
                 cwndSumInterval);
    cmd.AddValue("cc", "congestion control of every flow: newreno, cubic or bbr", ccName);
    cmd.AddValue("ccs", "comma-separated congestion control per flow (length n); overrides --cc", ccList);
    cmd.AddValue("recovery", "loss recovery: classic (TcpClassicRecovery) or prr (TcpPrrRecovery)", recovery);
    cmd.AddValue("delAckCount", "segments per delayed ACK (1 = ACK every segment)", delAckCount);
    cmd.AddValue("delAckTimeout", "delayed-ACK timeout, ms", delAckTimeoutMs);
    cmd.AddValue("linuxRto", "per-flow minimum RTO = minRto + the flow's RTT (Linux's srtt + rto_min)", linuxRto);
    cmd.AddValue("printFlows", "include each flow's congestion control and goodput in the JSON", printFlows);
    cmd.AddValue("printRtts", "include the per-flow RTT list in the JSON", printRtts);
    cmd.Parse(argc, argv);
    if (stackMode != "explicit" && stackMode != "defaults")
        FAIL("--stack must be explicit or defaults, got '" << stackMode << "'");
    // In --stack=defaults an option that is not on the command line is not set at all.
    const bool explicitStack = stackMode == "explicit";
    auto set = [&](const char* name) { return explicitStack || Given(argc, argv, name); };
    const bool ccGiven = set("cc") || set("ccs");

    if (nFlows == 0)
        FAIL("--flows must be at least 1");
    if (!(warmup >= 0 && duration > warmup))
        FAIL("--duration must exceed --warmup (and --warmup must be >= 0)");
    if (startList.empty() && !(startSpread >= 0 && startSpread < warmup))
        FAIL("--startSpread must be in [0, warmup)");
    if (packetSize <= 42 + 100)
        FAIL("--packetSize too small");
    if (!(cwndSumInterval >= 0) || cwndSumInterval > duration - warmup)
        FAIL("--cwndSumInterval must be in [0, duration - warmup]");
    if (!(accessFactor > 0) || bottleneckDelayMs < 0 || !(minRtoMs > 0))
        FAIL("--accessFactor, --minRto must be > 0 and --bottleneckDelay >= 0");

    if (recovery != "classic" && recovery != "prr")
        FAIL("--recovery must be classic or prr, got '" << recovery << "'");
    if (delAckCount == 0 || !(delAckTimeoutMs > 0))
        FAIL("--delAckCount must be >= 1 and --delAckTimeout > 0");
    std::vector<std::string> ccs;
    {
        std::stringstream ss(ccList.empty() ? ccName : ccList);
        std::string item;
        while (std::getline(ss, item, ','))
        {
            if (item != "newreno" && item != "cubic" && item != "bbr")
                FAIL("congestion control '" << item << "' is not newreno, cubic or bbr");
            ccs.push_back(item);
        }
        if (ccList.empty())
            ccs.assign(nFlows, ccs.empty() ? std::string("newreno") : ccs[0]);
        else if (ccs.size() != nFlows)
            FAIL("--ccs has " << ccs.size() << " values but --flows is " << nFlows);
    }

    DataRate c(capacity);
    const uint32_t ppp = 2;
    // Timestamps as the sockets will have them (ns-3's default when not set).
    if (set("timestamps"))
        Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(timestamps));
    timestamps = AttrInitial("ns3::TcpSocketBase", "Timestamp") == "true";
    const uint32_t tsOption = timestamps ? 12 : 0;
    const uint32_t segment = packetSize - 40 - ppp - tsOption;

    // RTTs and start times come from our own generator so the list is
    // reproducible independently of ns-3's stream assignment.
    std::mt19937_64 gen(seed);
    std::vector<double> rtts;
    if (!rttList.empty())
    {
        rtts = ParseList(rttList, "rtts");
        if (rtts.size() != nFlows)
            FAIL("--rtts has " << rtts.size() << " values but --flows is " << nFlows);
    }
    else
    {
        if (!(rttMinMs > 0 && rttMaxMs >= rttMinMs))
            FAIL("--rttMin/--rttMax: need 0 < rttMin <= rttMax");
        std::uniform_real_distribution<double> u(rttMinMs, rttMaxMs);
        for (uint32_t i = 0; i < nFlows; i++)
            rtts.push_back(u(gen));
    }
    for (double r : rtts)
        if (r / 2 < bottleneckDelayMs)
            FAIL("an RTT of " << r << " ms is shorter than twice --bottleneckDelay");
    std::vector<double> starts;
    if (!startList.empty())
    {
        std::stringstream ss(startList);
        std::string item;
        while (std::getline(ss, item, ','))
        {
            char* end = nullptr;
            double v = std::strtod(item.c_str(), &end);
            if (item.empty() || *end != '\0' || !(v >= 0 && v < warmup))
                FAIL("--starts: '" << item << "' is not a time in [0, warmup)");
            starts.push_back(v);
        }
        if (starts.size() != nFlows)
            FAIL("--starts has " << starts.size() << " values but --flows is " << nFlows);
    }
    else
    {
        std::uniform_real_distribution<double> u(0.0, startSpread);
        for (uint32_t i = 0; i < nFlows; i++)
            starts.push_back(startSpread > 0 ? u(gen) : 0.0);
    }
    RngSeedManager::SetSeed(seed);

    // --- TCP and IP defaults -------------------------------------------------
    // Stack details: each set unless --stack=defaults and its option is absent.
    if (ccGiven)
        Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(TcpNewReno::GetTypeId()));
    if (set("recovery"))
        Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                           TypeIdValue(recovery == "prr" ? TcpPrrRecovery::GetTypeId()
                                                         : TcpClassicRecovery::GetTypeId()));
    if (set("sack"))
        Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(sack));
    if (set("minRto"))
        Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(MicroSeconds(std::llround(minRtoMs * 1000))));
    if (set("initCwnd"))
        Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(initCwnd));
    if (set("delAckCount"))
        Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(delAckCount));
    if (set("delAckTimeout"))
        Config::SetDefault("ns3::TcpSocket::DelAckTimeout",
                           TimeValue(MicroSeconds(std::llround(delAckTimeoutMs * 1000))));
    // Not stack behaviour but scenario: the frame size, unbounded windows, scaling on (its default).
    Config::SetDefault("ns3::TcpSocketBase::WindowScaling", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(segment));
    // Socket buffers large enough never to cap the window (no Wmax).
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(sockBuf));
    // --maxWindow caps the receive buffer (the advertised window, i.e. Wmax) to that many segments.
    Config::SetDefault("ns3::TcpSocket::RcvBufSize",
                       UintegerValue(maxWindow > 0 ? maxWindow * segment : sockBuf));
    Config::SetDefault("ns3::Ipv4::WeakEsModel", BooleanValue(false));

    // What the sockets will be built with, read back from the attribute system.
    sack = AttrInitial("ns3::TcpSocketBase", "Sack") == "true";
    minRtoMs = AttrSeconds("ns3::TcpSocketBase", "MinRto") * 1000;
    initCwnd = std::stoul(AttrInitial("ns3::TcpSocket", "InitialCwnd"));
    delAckCount = std::stoul(AttrInitial("ns3::TcpSocket", "DelAckCount"));
    delAckTimeoutMs = AttrSeconds("ns3::TcpSocket", "DelAckTimeout") * 1000;
    const std::string recoveryType = AttrInitial("ns3::TcpL4Protocol", "RecoveryType");
    const std::string defaultSocketType = AttrInitial("ns3::TcpL4Protocol", "SocketType");
    recovery = recoveryType == "ns3::TcpPrrRecovery"       ? "prr"
               : recoveryType == "ns3::TcpClassicRecovery" ? "classic"
                                                           : recoveryType;
    if (!ccGiven)
        for (auto& cc : ccs)
            cc = defaultSocketType == "ns3::TcpCubic"      ? "cubic"
                 : defaultSocketType == "ns3::TcpNewReno" ? "newreno"
                                                           : defaultSocketType;

    // --- nodes and links ------------------------------------------------------
    NodeContainer senders;
    senders.Create(nFlows);
    Ptr<Node> r1 = CreateObject<Node>();
    Ptr<Node> r2 = CreateObject<Node>();
    InternetStackHelper stack;
    stack.Install(senders);
    stack.Install(r1);
    stack.Install(r2);
    std::vector<std::string> socketTypes; // as each sender's TcpL4Protocol holds it
    for (uint32_t i = 0; i < nFlows; i++)
    {
        Ptr<TcpL4Protocol> l4 = senders.Get(i)->GetObject<TcpL4Protocol>();
        if (ccGiven)
        {
            TypeId t = ccs[i] == "bbr"     ? TcpBbr::GetTypeId()
                       : ccs[i] == "cubic" ? TcpCubic::GetTypeId()
                                           : TcpNewReno::GetTypeId();
            l4->SetAttribute("SocketType", TypeIdValue(t));
        }
        TypeIdValue v;
        l4->GetAttribute("SocketType", v);
        socketTypes.push_back(v.Get().GetName());
    }
    std::string socketType = socketTypes[0];
    for (auto& t : socketTypes)
        if (t != socketType)
            socketType = "mixed";

    Ipv4AddressHelper addr;
    addr.SetBase("10.0.0.0", "255.255.255.252");

    DataRate accessRate(static_cast<uint64_t>(std::llround(c.GetBitRate() * accessFactor)));

    PointToPointHelper bn;
    bn.DisableFlowControl();
    bn.SetDeviceAttribute("DataRate", DataRateValue(c));
    bn.SetChannelAttribute("Delay", TimeValue(MicroSeconds(bottleneckDelayMs * 1000)));
    bn.SetQueue("ns3::DropTailQueue<Packet>",
                "MaxSize",
                QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, buffer)));
    NetDeviceContainer bnDevs = bn.Install(r1, r2);
    // Reverse direction (ACKs) runs at C, like bufsize's shared reverse link, with a
    // queue that cannot overflow. ACKs are 42 bytes on the wire (40 + PPP), so it
    // carries about 4 % load and queues only briefly.
    Ptr<PointToPointNetDevice> rev = DynamicCast<PointToPointNetDevice>(bnDevs.Get(1));
    rev->GetQueue()->SetMaxSize(QueueSize(QueueSizeUnit::PACKETS, 1000000));
    Ipv4InterfaceContainer bnIf = addr.Assign(bnDevs);
    addr.NewNetwork();
    Ipv4Address sinkAddr = bnIf.GetAddress(1);

    PointToPointHelper acc;
    acc.DisableFlowControl();
    acc.SetDeviceAttribute("DataRate", DataRateValue(accessRate));
    // Access queues never fill (each sender is alone on its link).
    acc.SetQueue("ns3::DropTailQueue<Packet>",
                 "MaxSize",
                 QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, 1000000)));
    for (uint32_t i = 0; i < nFlows; i++)
    {
        double oneWayMs = rtts[i] / 2 - bottleneckDelayMs;
        acc.SetChannelAttribute("Delay", TimeValue(NanoSeconds(std::llround(oneWayMs * 1e6))));
        NetDeviceContainer d = acc.Install(senders.Get(i), r1);
        addr.Assign(d);
        addr.NewNetwork();
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    // --- applications ---------------------------------------------------------
    std::vector<Ptr<PacketSink>> sinks;
    const uint16_t basePort = 5000;
    g_fc.assign(nFlows, FlowCwnd{});
    for (auto& f : g_fc)
        f.cwnd = double(initCwnd) * segment;
    g_segment = segment;
    g_csInterval = cwndSumInterval;
    g_csEnd = duration;
    for (uint32_t i = 0; i < nFlows; i++)
    {
        uint16_t port = basePort + i;
        PacketSinkHelper sh("ns3::TcpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), port));
        ApplicationContainer sa = sh.Install(r2);
        sa.Start(Seconds(0));
        sinks.push_back(DynamicCast<PacketSink>(sa.Get(0)));

        BulkSendHelper bh("ns3::TcpSocketFactory", InetSocketAddress(sinkAddr, port));
        bh.SetAttribute("MaxBytes", UintegerValue(0));
        bh.SetAttribute("SendSize", UintegerValue(segment * 16));
        ApplicationContainer ba = bh.Install(senders.Get(i));
        ba.Start(Seconds(starts[i]));
        if (linuxRto)
            Simulator::Schedule(Seconds(starts[i]) + NanoSeconds(1), &SetMinRto,
                                DynamicCast<BulkSendApplication>(ba.Get(0)),
                                MicroSeconds(std::llround((minRtoMs + rtts[i]) * 1000)));
        if (ccs[i] == "bbr")
            Simulator::Schedule(Seconds(starts[i]) + NanoSeconds(1), &EnablePacing,
                                DynamicCast<BulkSendApplication>(ba.Get(0)));
        if (cwndSumInterval > 0)
            Simulator::Schedule(Seconds(starts[i]) + NanoSeconds(1), &HookCwnd, i,
                                DynamicCast<BulkSendApplication>(ba.Get(0)));
        if (int(i) == traceFlow)
            Simulator::Schedule(Seconds(starts[i]) + NanoSeconds(1), &HookTrace,
                                DynamicCast<BulkSendApplication>(ba.Get(0)));
    }

    // --- measurement ----------------------------------------------------------
    Ptr<PointToPointNetDevice> fwd = DynamicCast<PointToPointNetDevice>(bnDevs.Get(0));
    fwd->TraceConnectWithoutContext("MacTx", MakeCallback(&OnMacTx));
    fwd->TraceConnectWithoutContext("MacTxDrop", MakeCallback(&OnMacTxDrop));
    fwd->TraceConnectWithoutContext("PhyTxBegin", MakeCallback(&OnPhyTxBegin));
    fwd->GetQueue()->TraceConnectWithoutContext("PacketsInQueue", MakeCallback(&OnQueueLength));

    g_traceQueue = traceFlow >= 0;
    Simulator::Schedule(Seconds(warmup), &StartWindow, &sinks);
    Simulator::Schedule(Seconds(duration), &EndWindow);
    if (cwndSumInterval > 0)
        Simulator::Schedule(Seconds(warmup), &SampleCwndSum);
    Simulator::Stop(Seconds(duration));

    auto t0 = std::chrono::steady_clock::now();
    Simulator::Run();
    double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

    double window = duration - warmup;
    double util = g_b.txBytes * 8.0 / (c.GetBitRate() * window);
    double loss = g_b.arrivals ? double(g_b.drops) / g_b.arrivals : 0.0;
    std::vector<double> goodput;
    double sum = 0, sumSq = 0;
    for (size_t i = 0; i < sinks.size(); i++)
    {
        double g = (sinks[i]->GetTotalRx() - g_rxAtWarmup[i]) * 8.0 / window;
        goodput.push_back(g);
        sum += g;
        sumSq += g * g;
    }
    double jain = sumSq > 0 ? sum * sum / (sinks.size() * sumSq) : 0.0;
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);

    Simulator::Destroy();

    std::printf("{\"tool\":\"ns-3\",\"ns3_version\":\"3.37\",\"flows\":%u,\"capacity_bps\":%.0f,"
                "\"buffer_packets\":%u,\"duration_s\":%g,\"warmup_s\":%g,\"seed\":%u,"
                "\"packet_size\":%u,\"segment_size\":%u,\"sack\":%s,\"init_cwnd\":%u,"
                "\"min_rto_s\":%g,\"access_factor\":%g,\"stack\":\"%s\",\"timestamps\":%s,"
                "\"del_ack_count\":%u,\"del_ack_timeout_s\":%g,\"recovery_type\":\"%s\","
                "\"socket_type\":\"%s\",\"mean_frame_bytes\":%.3f,"
                "\"utilization\":%.6f,\"loss_rate\":%.6g,\"drops\":%llu,\"arrivals\":%llu,"
                "\"bottleneck_packets\":%llu,\"mean_queue_packets\":%.3f,\"max_queue_packets\":%u,"
                "\"goodput_bps_mean\":%.1f,\"jain_fairness\":%.6f,\"timeouts\":%llu,"
                "\"fast_recoveries\":%llu,\"wall_seconds\":%.3f,"
                "\"bottleneck_packets_total\":%llu,\"bottleneck_packets_per_wall_second\":%.1f,\"cpu_seconds\":%.3f,"
                "\"peak_rss_mib\":%.1f",
                nFlows,
                double(c.GetBitRate()),
                buffer,
                duration,
                warmup,
                seed,
                packetSize,
                segment,
                sack ? "true" : "false",
                initCwnd,
                minRtoMs / 1000,
                accessFactor,
                stackMode.c_str(),
                timestamps ? "true" : "false",
                delAckCount,
                delAckTimeoutMs / 1000,
                recoveryType.c_str(),
                socketType.c_str(),
                g_b.txPackets ? double(g_b.txBytes) / g_b.txPackets : 0.0,
                util,
                loss,
                (unsigned long long)g_b.drops,
                (unsigned long long)g_b.arrivals,
                (unsigned long long)g_b.txPackets,
                g_b.qArea / window,
                g_b.qMax,
                sum / sinks.size(),
                jain,
                (unsigned long long)g_timeouts,
                (unsigned long long)g_recoveries,
                wall,
                (unsigned long long)g_b.txAll,
                wall > 0 ? g_b.txAll / wall : 0.0,
                ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6,
                ru.ru_maxrss / 1024.0);
    if (cwndSumInterval > 0)
    {
        auto msd = [](double s1, double s2, double n) {
            double m = n > 0 ? s1 / n : 0.0;
            return std::make_pair(m, std::sqrt(std::max(0.0, n > 0 ? s2 / n - m * m : 0.0)));
        };
        auto cs = msd(g_csSum, g_csSumSq, g_csN);
        auto raw = msd(g_csRawSum, g_csRawSumSq, g_csN);
        auto q = msd(g_b.qArea, g_b.qArea2, window);
        double cvSum = 0, varSum = 0;
        uint32_t cvN = 0;
        for (auto& f : g_fc)
        {
            auto m = msd(f.sum, f.sumSq, g_csN);
            varSum += m.second * m.second;
            if (m.first > 0)
            {
                cvSum += m.second / m.first;
                cvN++;
            }
        }
        std::printf(",\"cwnd_sum_interval_s\":%g,\"cwnd_sum_samples\":%llu,\"cwnd_sum_mean\":%.4f,"
                    "\"cwnd_sum_std\":%.4f,\"cwnd_sum_raw_mean\":%.4f,\"cwnd_sum_raw_std\":%.4f,"
                    "\"flow_cwnd_cv_mean\":%.5f,\"cwnd_sum_std_indep\":%.4f,"
                    "\"queue_std_packets\":%.4f",
                    cwndSumInterval, (unsigned long long)g_csN, cs.first, cs.second, raw.first,
                    raw.second, cvN ? cvSum / cvN : 0.0, std::sqrt(varSum), q.second);
    }
    if (printFlows)
    {
        // (del_ack_count and del_ack_timeout_s are in the main object)
        std::printf(",\"recovery\":\"%s\",\"flow_cc\":[", recovery.c_str());
        for (size_t i = 0; i < ccs.size(); i++)
            std::printf("%s\"%s\"", i ? "," : "", ccs[i].c_str());
        std::printf("],\"linux_rto\":%s,\"flow_goodput_bps\":[", linuxRto ? "true" : "false");
        for (size_t i = 0; i < goodput.size(); i++)
            std::printf("%s%.1f", i ? "," : "", goodput[i]);
        std::printf("]");
    }
    if (printRtts)
    {
        std::printf(",\"rtts_ms\":[");
        for (size_t i = 0; i < rtts.size(); i++)
            std::printf("%s%.6f", i ? "," : "", rtts[i]);
        std::printf("]");
    }
    std::printf("}\n");
    return 0;
}
