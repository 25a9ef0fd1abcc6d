#!/usr/bin/env bash
# Report how Debian's ns-3 library was built, from the installed files alone:
#  - optimization: gcc at -O0 (ns-3's debug profile) keeps a frame-pointer
#    prologue (push %rbp; mov %rsp,%rbp) in every function; at -O1 and above
#    x86-64 code omits it. This tells -O0 from optimized, not -O2 from -O3;
#  - asserts: NS_ASSERT leaves the string "assert failed" in the library when
#    compiled in;
#  - logging: with NS_LOG compiled in, the NS_LOG environment variable makes
#    the library print log lines (checked with our own dumbbell binary).
# Needs objdump (binutils) and bench/ns3/build/dumbbell (build.sh).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
lib=$(ls /usr/lib/*/libns3-internet.so.* 2>/dev/null | head -1)
[ -n "$lib" ] || { echo "profile.sh: libns3-internet not found; run install.sh" >&2; exit 1; }
ver=$(dpkg-query -W -f='${Version}' libns3-dev 2>/dev/null || echo unknown)
read -r fp total < <(objdump -d --no-show-raw-insn "$lib" | awk '
    />:$/ {f=1; n=0; next}
    f {n++; if (n==1) first=$0; if (n==2) { if (first ~ /push +%rbp/ && $0 ~ /mov +%rsp,%rbp/) fp++; tot++; f=0 } }
    END {print fp+0, tot+0}')
asserts=0
for l in /usr/lib/*/libns3-{core,network,internet,point-to-point}.so.*[0-9]; do
    c=$(strings "$l" | grep -c 'assert failed' || true); asserts=$((asserts + c))
done
"$here/build.sh" >/dev/null
loglines=$(NS_LOG="PointToPointNetDevice=level_all" "$here/build/dumbbell" --flows=1 --rtts=20 \
    --duration=0.2 --warmup=0.1 --startSpread=0 2>&1 >/dev/null | grep -c '^PointToPointNetDevice:' || true)
opt=$([ "$total" -gt 0 ] && [ $((fp * 10)) -lt "$total" ] && echo "optimized (not -O0)" || echo "NOT optimized (-O0)")
echo "libns3-dev $ver ($lib)"
echo "  code: $opt ($fp of $total functions in libns3-internet keep a frame-pointer prologue)"
echo "  NS_ASSERT: $([ "$asserts" -eq 0 ] && echo 'compiled out' || echo "compiled in ($asserts assert strings)")"
echo "  NS_LOG: $([ "$loglines" -gt 0 ] && echo "compiled in ($loglines log lines from a 0.2 s run with NS_LOG set)" || echo 'compiled out')"
