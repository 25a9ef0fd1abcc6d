# A dumbbell in ns-2.35 for comparing bufsize's `ns2` profile with ns-2 itself.
#
#   ns dumbbell.tcl key=value ...
#
# Keys: flows, capacity (b/s), buffer (packets, the bottleneck's DropTail limit_), duration, warmup (s),
# segment (packetSize_, bytes of payload; 40 B of headers are added on the wire), agent (Reno, Newreno,
# Sack1, or plain TCP for Tahoe), sink (TCPSink, TCPSink/DelAck, TCPSink/Sack1), window (window_,
# packets), access (b/s of each sender's access link), rtts (comma list, ms, one per flow), starts
# (comma list, s), seed, tick (tcpTick_, s: the RTT clock; ns-2's default 0.01 when not given),
# drops (a file: every bottleneck-queue drop as "time flow seq"), cwnd (a file: every agent's cwnd_
# as "time flow cwnd" each cwnd_every seconds, default 0.01).
# Each sender has its own access link carrying all of its flow's propagation delay (RTT/2 each way);
# the bottleneck and the receiver's link have none. Prints one JSON line: utilization and loss of the
# bottleneck over [warmup, duration) (every packet crossing it is a data packet of segment + 40 bytes),
# and the agents' retransmission timeouts (nrexmit_, each backed-off expiry counted).

array set opt {flows 10 capacity 155e6 buffer 100 duration 60 warmup 20 segment 1460 agent Reno
               sink TCPSink window 100000 access 1e9 rtts "" starts "" seed 1 tick "" drops "" cwnd ""
               cwnd_every 0.01}
foreach a $argv {
    set kv [split $a =]
    set opt([lindex $kv 0]) [lindex $kv 1]
}
set n $opt(flows)
set rtts [split $opt(rtts) ,]
set starts [split $opt(starts) ,]
if {[llength $rtts] != $n || [llength $starts] != $n} {
    puts stderr "rtts and starts need $n values each"
    exit 2
}

if {$opt(tick) != ""} { Agent/TCP set tcpTick_ $opt(tick) }
set ns [new Simulator]
ns-random $opt(seed)
set r1 [$ns node]
set r2 [$ns node]
set dst [$ns node]
$ns duplex-link $r1 $r2 $opt(capacity) 0ms DropTail
$ns queue-limit $r1 $r2 $opt(buffer)
$ns queue-limit $r2 $r1 100000
$ns duplex-link $r2 $dst $opt(access) 0ms DropTail
$ns queue-limit $r2 $dst 100000
$ns queue-limit $dst $r2 100000

set tcps {}
for {set i 0} {$i < $n} {incr i} {
    set s [$ns node]
    set half [expr {[lindex $rtts $i] / 2.0}]
    $ns duplex-link $s $r1 $opt(access) ${half}ms DropTail
    $ns queue-limit $s $r1 100000
    $ns queue-limit $r1 $s 100000
    set tcp [new Agent/TCP/$opt(agent)]
    if {$opt(agent) == "TCP"} { set tcp [new Agent/TCP] }
    $tcp set packetSize_ $opt(segment)
    $tcp set window_ $opt(window)
    $tcp set fid_ $i
    set sink [new Agent/$opt(sink)]
    $ns attach-agent $s $tcp
    $ns attach-agent $dst $sink
    $ns connect $tcp $sink
    set ftp [new Application/FTP]
    $ftp attach-agent $tcp
    $ns at [lindex $starts $i] "$ftp start"
    lappend tcps $tcp
}

set qm [$ns monitor-queue $r1 $r2 [open /dev/null w] 0.1]
if {$opt(drops) != ""} {
    # the queue's drop events only: "time flow seq" (the trace's fields 2, 8 and 11)
    set dropfile [open $opt(drops) w]
    set droptrace [open "|awk {\$1 == \"d\" {print \$2, \$8, \$11; fflush()}} >@ $dropfile" w]
    $ns trace-queue $r1 $r2 $droptrace
}
if {$opt(cwnd) != ""} {
    set cwndfile [open $opt(cwnd) w]
    proc sample {} {
        global ns tcps cwndfile opt
        set now [$ns now]
        set i 0
        foreach t $tcps {
            puts $cwndfile "$now $i [$t set cwnd_]"
            incr i
        }
        $ns at [expr {$now + $opt(cwnd_every)}] "sample"
    }
    $ns at 0 "sample"
}
set base {}
proc snap {} {
    global qm tcps
    # packets, not bdepartures_: ns-2 keeps byte counts in 32-bit integers, which wrap after 2 GiB
    return [list [$qm set pdepartures_] [$qm set parrivals_] [$qm set pdrops_]]
}
proc mark {} { global base; set base [snap] }
proc done {} {
    global base opt tcps qm ns
    set now [snap]
    set bytes [expr {([lindex $now 0] - [lindex $base 0]) * ($opt(segment) + 40.0)}]
    set arr [expr {[lindex $now 1] - [lindex $base 1]}]
    set drops [expr {[lindex $now 2] - [lindex $base 2]}]
    set win [expr {$opt(duration) - $opt(warmup)}]
    set util [expr {$bytes * 8.0 / ($opt(capacity) * $win)}]
    set loss [expr {$arr > 0 ? double($drops) / $arr : 0.0}]
    set to 0
    foreach t $tcps { incr to [$t set nrexmit_] }
    global droptrace cwndfile
    if {[info exists droptrace]} { $ns flush-trace; close $droptrace }
    if {[info exists cwndfile]} { close $cwndfile }
    puts [format {{"utilization": %.6f, "loss": %.6f, "arrivals": %d, "drops": %d, "timeouts_total": %d}} $util $loss $arr $drops $to]
    exit 0
}
$ns at $opt(warmup) "mark"
$ns at $opt(duration) "done"
$ns run
