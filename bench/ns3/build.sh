#!/usr/bin/env bash
# Build bench/ns3/dumbbell against Debian's libns3-dev (ns-3 3.37).
# pkg-config output of this package is broken, so include and library flags
# are given by hand. Output: bench/ns3/build/dumbbell (rebuilt only when the
# source is newer than the binary).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="$here/build"
mkdir -p "$out"
src="$here/dumbbell.cc"
bin="$out/dumbbell"
if [ -x "$bin" ] && [ "$bin" -nt "$src" ] && [ "$bin" -nt "$0" ]; then
    echo "build.sh: $bin is up to date"
    exit 0
fi
inc=/usr/include/ns3
[ -d "$inc" ] || { echo "build.sh: $inc missing; run bench/ns3/install.sh first" >&2; exit 1; }
libs=""
for m in core network internet point-to-point applications stats traffic-control bridge mpi; do
    if [ -e "/usr/lib/x86_64-linux-gnu/libns3-$m.so" ] || [ -e "/usr/lib/$(gcc -dumpmachine)/libns3-$m.so" ]; then
        libs="$libs -lns3-$m"
    fi
done
# NS3_LOG_ENABLE / NS3_ASSERT_ENABLE are deliberately not defined: our own
# code needs neither; what the library itself has compiled in is fixed by Debian.
nice g++ -std=c++17 -O2 -o "$bin" "$src" -I/usr/include $libs
echo "build.sh: built $bin"
