#!/usr/bin/env bash
# Install the Debian build of ns-3 (libns3-dev) and a C++ compiler.
# Idempotent: does nothing when both are already present; runs apt-get update
# at most once per invocation and only when something is missing.
set -euo pipefail

need=()
dpkg-query -W -f='${Status}\n' libns3-dev 2>/dev/null | grep -q 'install ok installed' || need+=(libns3-dev)
command -v g++ >/dev/null 2>&1 || need+=(g++)

if [ ${#need[@]} -eq 0 ]; then
    echo "install.sh: libns3-dev and g++ already installed"
    exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null 2>&1 || { echo "install.sh: need root (or sudo) to install ${need[*]}" >&2; exit 1; }
    SUDO="sudo"
fi

echo "install.sh: installing ${need[*]}"
$SUDO apt-get update
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends "${need[@]}"
dpkg-query -W -f='${Package} ${Version}\n' libns3-dev
