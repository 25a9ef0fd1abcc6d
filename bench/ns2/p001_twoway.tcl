# Paper 001's §V path (Fig. 4: window-limited TCP cross traffic) in ns-2.35, to compare the reverse-path
# effect with bufsize's engine (bench/ns2/p001_twoway.py).
#
#   ns p001_twoway.tcl key=value ...
#
# Keys: buffer (Bt: the tight link's forward DropTail limit_, packets), rbuffer (the reverse direction's
# limit_; default: buffer), reverse (1: the same cross traffic runs in the reverse direction too, 0: not),
# window (the target's window_, packets: its socket buffer S; 0: no target), cross (persistent Reno cross
# flows per direction), crosswin (their window_), warmup and measured (s: the target starts at the end of
# the warm-up and is measured for `measured` seconds), ackdelay (1: TCPSink/DelAck for every agent),
# access (b/s of every sender's own link; 1e9 as the reproduction has it), spacing (s between the cross
# flows' starts; 0.05 as the reproduction has it).
#
# Path (001's S001 as bufsize's reproduction sets it up): one 50 Mb/s tight link with 25 ms of delay
# between routers r1 and r2; every sender reaches its router over its own 1 Gb/s, 25 ms link, every
# receiver hangs off the far router on a 1 Gb/s, 0 ms link, so every flow's two-way propagation delay is
# 100 ms. Segments are 960 B of payload + 40 B of headers = 1000 B on the wire; ACKs are 40 B.
# Agents: Agent/TCP/Reno at ns-2.35's defaults, Agent/TCPSink (an ACK per segment). Cross flows start
# 50 ms apart from t = 0, the forward and the reverse i-th at the same time.
#
# Prints one JSON line: the target's throughput (acknowledged segments × 1000 B × 8 over the measured
# interval, Mb/s of wire bits, the unit of the reproduction's R(S)), its retransmission timeouts and
# retransmitted segments; the forward tight queue's utilization, drops and arrivals; the reverse tight
# queue's drops and arrivals; the forward cross flows' retransmission timeouts.

array set opt {buffer 313 rbuffer "" reverse 1 window 300 cross 20 crosswin 22 warmup 25 measured 60
               capacity 50e6 segment 960 ackdelay 0 access 1e9 spacing 0.05}
foreach a $argv {
    set kv [split $a =]
    set opt([lindex $kv 0]) [lindex $kv 1]
}
if {$opt(rbuffer) == ""} { set opt(rbuffer) $opt(buffer) }
set sinktype TCPSink
if {$opt(ackdelay)} { set sinktype TCPSink/DelAck }

set ns [new Simulator]
set r1 [$ns node]
set r2 [$ns node]
$ns duplex-link $r1 $r2 $opt(capacity) 25ms DropTail
$ns queue-limit $r1 $r2 $opt(buffer)
$ns queue-limit $r2 $r1 $opt(rbuffer)

# one TCP flow from a new sender behind `near` to a new receiver behind `far`
proc flow {near far window start} {
    global ns opt sinktype
    set s [$ns node]
    set d [$ns node]
    $ns duplex-link $s $near $opt(access) 25ms DropTail
    $ns queue-limit $s $near 100000
    $ns queue-limit $near $s 100000
    $ns duplex-link $far $d 1e9 0ms DropTail
    $ns queue-limit $far $d 100000
    $ns queue-limit $d $far 100000
    set tcp [new Agent/TCP/Reno]
    $tcp set packetSize_ $opt(segment)
    $tcp set window_ $window
    set sink [new Agent/$sinktype]
    $ns attach-agent $s $tcp
    $ns attach-agent $d $sink
    $ns connect $tcp $sink
    set ftp [new Application/FTP]
    $ftp attach-agent $tcp
    $ns at $start "$ftp start"
    return $tcp
}

set fwd {}
for {set i 0} {$i < $opt(cross)} {incr i} {
    set t [expr {$opt(spacing) * $i}]
    lappend fwd [flow $r1 $r2 $opt(crosswin) $t]
    if {$opt(reverse)} { flow $r2 $r1 $opt(crosswin) $t }
}
set target ""
if {$opt(window) > 0} { set target [flow $r1 $r2 $opt(window) $opt(warmup)] }

set qf [$ns monitor-queue $r1 $r2 [open /dev/null w] 0.1]
set qr [$ns monitor-queue $r2 $r1 [open /dev/null w] 0.1]
proc snap {} {
    global qf qr target fwd
    set a 0; set to 0; set rx 0; set cto 0
    foreach f $fwd { incr cto [$f set nrexmit_] }
    if {$target != ""} {
        set a [$target set ack_]; set to [$target set nrexmit_]; set rx [$target set nrexmitpack_]
    }
    # bytes: ACKs of the reverse flows cross the forward queue too (32-bit counters: fine below 2 GiB)
    return [list [$qf set bdepartures_] [$qf set parrivals_] [$qf set pdrops_] \
                 [$qr set parrivals_] [$qr set pdrops_] $a $to $rx $cto]
}
set base {}
proc mark {} { global base; set base [snap] }
proc d {i} { global base now; return [expr {[lindex $now $i] - [lindex $base $i]}] }
proc done {} {
    global base now opt
    set now [snap]
    set T $opt(measured)
    set wire [expr {$opt(segment) + 40.0}]
    set util [expr {[d 0] * 8.0 / ($opt(capacity) * $T)}]
    set thr [expr {[d 5] * $wire * 8.0 / $T / 1e6}]
    puts [format {{"throughput_mbps": %.4f, "target_timeouts": %d, "target_retransmits": %d, "utilization": %.5f, "fwd_arrivals": %d, "fwd_drops": %d, "rev_arrivals": %d, "rev_drops": %d, "cross_timeouts": %d}} \
          $thr [d 6] [d 7] $util [d 1] [d 2] [d 3] [d 4] [d 8]]
    exit 0
}
$ns at $opt(warmup) "mark"
$ns at [expr {$opt(warmup) + $opt(measured)}] "done"
$ns run
