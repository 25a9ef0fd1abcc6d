#!/usr/bin/env bash
# Build and run bench/ns3/ns3_defaults.cc against Debian's libns3-dev (flags as in build.sh):
# prints ns-3's own default TCP attribute values (the table in ns3_defaults.md).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
mkdir -p "$here/build"
bin="$here/build/ns3_defaults"
if ! [ -x "$bin" ] || [ "$here/ns3_defaults.cc" -nt "$bin" ]; then
    libs=""
    for m in core network internet point-to-point; do libs="$libs -lns3-$m"; done
    nice g++ -std=c++17 -O1 -o "$bin" "$here/ns3_defaults.cc" -I/usr/include $libs
fi
exec "$bin"
