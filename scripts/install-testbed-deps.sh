#!/bin/sh
# Install the system tools the kernel testbed needs (idempotent; Debian/Ubuntu, as root).
# ip and tc come from iproute2, ethtool switches offloads off, ping measures base RTTs; iperf3 is the
# independent client that `bufsize transfer` is compared with (bench/transfer, tests/transfer).
set -eu
missing=""
for tool in ip tc ethtool ping iperf3; do
    command -v "$tool" >/dev/null 2>&1 || missing="$missing $tool"
done
if [ -z "$missing" ]; then
    echo "testbed tools present: ip tc ethtool ping iperf3"
    exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
    echo "missing:$missing; run this script as root to install them" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q iproute2 ethtool iputils-ping iperf3
