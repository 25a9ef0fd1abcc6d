#!/usr/bin/env bash
# Build a throw-away variant of dumbbell.cc for cubic_gap.md (never used by compare.py):
#  - --traceFlow=<any> traces EVERY flow on stderr: "<flow> <t> c <cwnd B>", "t <ssthresh B>",
#    "s <state>", "r <seq>" (retransmission) (and "f <bytes in flight>" with DBT_FLIGHT=1, and
#    "a <ack number> <SACK blocks> <highest SACK edge>" for every ACK the sender receives with
#    DBT_ACKS=1; cubic_gap_jumps.py reads these);
#  - DBT_SS_CAP=L in the environment runs --cc=cubic as ns3::TcpCubicCapped, a subclass of the
#    library's TcpCubic whose only change is that one ACK counts at most L segments while
#    cwnd < ssthresh (RFC 3465's limit); unset, --cc=cubic is the library's TcpCubic.
# Output: $OUT (default /tmp/cubic_gap_dbt/dbt). Analyse a trace with cubic_gap_trace.py.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${OUT:-/tmp/cubic_gap_dbt/dbt}"
mkdir -p "$(dirname "$out")"
src="$(dirname "$out")/dbt.cc"
python3 - "$here/dumbbell.cc" "$src" <<'PY'
import sys
s = open(sys.argv[1]).read()
a, b = s.index('SequenceNumber32 g_traceHigh;'), s.index('// A BBR flow')
s = s[:a] + r'''SequenceNumber32 g_traceHigh;
std::vector<SequenceNumber32> g_hi;
void TraceCwnd(uint32_t i, uint32_t, uint32_t v) { std::fprintf(stderr, "%u %.6f c %u\n", i, Simulator::Now().GetSeconds(), v); }
void TraceSst(uint32_t i, uint32_t, uint32_t v) { std::fprintf(stderr, "%u %.6f t %u\n", i, Simulator::Now().GetSeconds(), v); }
void TraceInFlight(uint32_t i, uint32_t, uint32_t v) { std::fprintf(stderr, "%u %.6f f %u\n", i, Simulator::Now().GetSeconds(), v); }
void TraceState(uint32_t i, TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t n)
{ std::fprintf(stderr, "%u %.6f s %s\n", i, Simulator::Now().GetSeconds(), TcpSocketState::TcpCongStateName[n]); }
void TraceTx(uint32_t i, Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase>)
{
    if (p->GetSize() == 0) return;
    if (h.GetSequenceNumber() < g_hi[i])
        std::fprintf(stderr, "%u %.6f r %u\n", i, Simulator::Now().GetSeconds(), h.GetSequenceNumber().GetValue());
    else g_hi[i] = h.GetSequenceNumber();
}
void TraceRx(uint32_t i, Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase>)
{
    if (p->GetSize() != 0 || !(h.GetFlags() & TcpHeader::ACK)) return;
    uint32_t hi = 0, nb = 0;
    if (h.HasOption(TcpOption::SACK))
        for (auto& b : DynamicCast<const TcpOptionSack>(h.GetOption(TcpOption::SACK))->GetSackList())
        { nb++; if (b.second.GetValue() > hi) hi = b.second.GetValue(); }
    std::fprintf(stderr, "%u %.6f a %u %u %u\n", i, Simulator::Now().GetSeconds(), h.GetAckNumber().GetValue(), nb, hi);
}
void HookTrace(uint32_t i, Ptr<BulkSendApplication> app)
{
    if (g_hi.size() <= i) g_hi.resize(i + 1);
    Ptr<Socket> s = app->GetSocket();
    s->TraceConnectWithoutContext("CongestionWindow", MakeBoundCallback(&TraceCwnd, i));
    s->TraceConnectWithoutContext("SlowStartThreshold", MakeBoundCallback(&TraceSst, i));
    s->TraceConnectWithoutContext("CongState", MakeBoundCallback(&TraceState, i));
    if (getenv("DBT_FLIGHT")) s->TraceConnectWithoutContext("BytesInFlight", MakeBoundCallback(&TraceInFlight, i));
    s->TraceConnectWithoutContext("Tx", MakeBoundCallback(&TraceTx, i));
    if (getenv("DBT_ACKS")) s->TraceConnectWithoutContext("Rx", MakeBoundCallback(&TraceRx, i));
}

''' + s[b:]
old = '''        if (int(i) == traceFlow)
            Simulator::Schedule(Seconds(starts[i]) + NanoSeconds(1), &HookTrace,
                                DynamicCast<BulkSendApplication>(ba.Get(0)));'''
assert old in s
s = s.replace(old, '''        if (traceFlow >= 0)
            Simulator::Schedule(Seconds(starts[i]) + NanoSeconds(1), &HookTrace, i,
                                DynamicCast<BulkSendApplication>(ba.Get(0)));''')
s = s.replace('g_traceQueue = traceFlow >= 0;', 'g_traceQueue = false;')
s = s.replace('using namespace ns3;\n', r'''using namespace ns3;

// ns-3 3.37's TcpCubic with at most DBT_SS_CAP segments counted per ACK below ssthresh.
class TcpCubicCapped : public TcpCubic
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::TcpCubicCapped")
                                .SetParent<TcpCubic>()
                                .SetGroupName("Internet")
                                .AddConstructor<TcpCubicCapped>();
        return tid;
    }
    TcpCubicCapped() : TcpCubic() {}
    TcpCubicCapped(const TcpCubicCapped& s) : TcpCubic(s) {}
    void IncreaseWindow(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked) override
    {
        static const uint32_t cap = std::atoi(getenv("DBT_SS_CAP") ? getenv("DBT_SS_CAP") : "2");
        if (tcb->m_cWnd < tcb->m_ssThresh && segmentsAcked > cap)
            segmentsAcked = cap;
        TcpCubic::IncreaseWindow(tcb, segmentsAcked);
    }
    Ptr<TcpCongestionOps> Fork() override { return CopyObject<TcpCubicCapped>(this); }
};
NS_OBJECT_ENSURE_REGISTERED(TcpCubicCapped);
''', 1)
old = ': ccs[i] == "cubic" ? TcpCubic::GetTypeId()'
assert old in s
s = s.replace(old, ': ccs[i] == "cubic" ? (getenv("DBT_SS_CAP") ? TcpCubicCapped::GetTypeId() : TcpCubic::GetTypeId())')
open(sys.argv[2], 'w').write(s)
PY
libs=""
for m in core network internet point-to-point applications stats traffic-control bridge; do libs="$libs -lns3-$m"; done
nice g++ -std=c++17 -O2 -o "$out" "$src" -I/usr/include $libs
echo "cubic_gap_trace.sh: built $out"
