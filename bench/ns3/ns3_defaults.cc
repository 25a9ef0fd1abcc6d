// Print ns-3's own default values of the TCP attributes that matter for a bulk-transfer
// dumbbell, read from the TypeId attribute system of the installed libraries (no
// Config::SetDefault anywhere here), and measure the initial RTO of a real socket.
//
// Build and run: bench/ns3/ns3_defaults.sh (output: one "name = value" line each, then
// "initial RTO (first value of the RTO trace, set when the SYN is sent) = ...").

#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/tcp-cubic.h"

#include <cstdio>
#include <string>

using namespace ns3;

namespace
{

void
Print(const std::string& tid, const std::string& name)
{
    TypeId t = TypeId::LookupByName(tid);
    TypeId::AttributeInformation info;
    if (!t.LookupAttributeByName(name, &info))
    {
        std::printf("%s::%s = (no such attribute)\n", tid.c_str(), name.c_str());
        return;
    }
    std::printf("%s::%s = %s\n", tid.c_str(), name.c_str(),
                info.initialValue->SerializeToString(info.checker).c_str());
}

bool g_seen = false;
void
OnRto(Time oldValue, Time newValue)
{
    if (g_seen)
        return;
    g_seen = true;
    std::printf("initial RTO (first value of the RTO trace, set when the SYN is sent) = %s "
                "(from %s, at t = %s)\n",
                std::to_string(newValue.GetSeconds()).c_str(),
                std::to_string(oldValue.GetSeconds()).c_str(),
                std::to_string(Simulator::Now().GetSeconds()).c_str());
}

} // namespace

int
main(int argc, char* argv[])
{
    // Make sure the types are registered (the libraries are linked with --as-needed).
    TcpSocketBase::GetTypeId();
    TcpL4Protocol::GetTypeId();
    TcpCubic::GetTypeId();
    TcpPrrRecovery::GetTypeId();
    TcpClassicRecovery::GetTypeId();
    TcpNewReno::GetTypeId();
    RttMeanDeviation::GetTypeId();

    for (const char* a : {"InitialCwnd", "SegmentSize", "DelAckCount", "DelAckTimeout",
                          "InitialSlowStartThreshold", "ConnTimeout", "ConnCount", "DataRetries",
                          "SndBufSize", "RcvBufSize", "TcpNoDelay"})
        Print("ns3::TcpSocket", a);
    for (const char* a : {"MinRto", "ClockGranularity", "Sack", "Timestamp", "LimitedTransmit",
                          "ReTxThreshold", "WindowScaling", "MaxWindowSize", "UseEcn"})
        Print("ns3::TcpSocketBase", a);
    for (const char* a : {"RecoveryType", "SocketType", "RttEstimatorType"})
        Print("ns3::TcpL4Protocol", a);
    Print("ns3::RttEstimator", "InitialEstimation");
    Print("ns3::RttMeanDeviation", "Alpha");
    Print("ns3::RttMeanDeviation", "Beta");
    for (const char* a : {"Beta", "C", "FastConvergence", "HyStart"})
        Print("ns3::TcpCubic", a);
    Print("ns3::TcpSocketState", "EnablePacing");

    // Every attribute of the classes involved, for completeness ("all <class>: ..." lines).
    for (const char* tid : {"ns3::TcpSocket", "ns3::TcpSocketBase", "ns3::TcpL4Protocol",
                            "ns3::TcpSocketState", "ns3::TcpNewReno", "ns3::TcpCubic",
                            "ns3::TcpClassicRecovery", "ns3::TcpPrrRecovery",
                            "ns3::RttEstimator", "ns3::RttMeanDeviation"})
    {
        TypeId t = TypeId::LookupByName(tid);
        std::printf("all %s (%u own attributes):", tid, (unsigned)t.GetAttributeN());
        for (uint32_t i = 0; i < t.GetAttributeN(); i++)
        {
            TypeId::AttributeInformation info = t.GetAttribute(i);
            std::printf(" %s=%s", info.name.c_str(),
                        info.initialValue->SerializeToString(info.checker).c_str());
        }
        std::printf("\n");
    }

    // A real socket on two nodes, all defaults: the RTO it arms for its SYN.
    NodeContainer nodes;
    nodes.Create(2);
    PointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", StringValue("10Mbps"));
    p2p.SetChannelAttribute("Delay", StringValue("10ms"));
    NetDeviceContainer devs = p2p.Install(nodes);
    InternetStackHelper stack;
    stack.Install(nodes);
    Ipv4AddressHelper addr;
    addr.SetBase("10.1.1.0", "255.255.255.0");
    Ipv4InterfaceContainer ifs = addr.Assign(devs);
    Ptr<Socket> server = Socket::CreateSocket(nodes.Get(1), TcpSocketFactory::GetTypeId());
    server->Bind(InetSocketAddress(Ipv4Address::GetAny(), 9));
    server->Listen();
    Ptr<Socket> client = Socket::CreateSocket(nodes.Get(0), TcpSocketFactory::GetTypeId());
    client->TraceConnectWithoutContext("RTO", MakeCallback(&OnRto));
    Simulator::Schedule(Seconds(1), [client, ifs]() {
        client->Connect(InetSocketAddress(ifs.GetAddress(1), 9));
    });
    Simulator::Stop(Seconds(2));
    Simulator::Run();
    Simulator::Destroy();
    if (!g_seen)
        std::printf("initial RTO = (not traced)\n");
    return 0;
}
