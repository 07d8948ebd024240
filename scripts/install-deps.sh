#!/usr/bin/env bash
# Installs everything the runtime needs to build and test, from Debian's
# packages. Non-interactive and idempotent: packages already present are left
# alone, and apt is not touched at all when nothing is missing.
# Usage: scripts/install-deps.sh        (as root, or with sudo available)
set -euo pipefail

packages=(
  build-essential cmake pkg-config coreutils binutils
  ninja-build                         # faster builds (scripts/build.sh)
  openmpi-bin libopenmpi-dev          # Open MPI (default MPI)
  mpich libmpich-dev                  # MPICH (second CI configuration)
  hwloc libhwloc-dev                  # topology for the locality domains
  libboost-test-dev                   # Boost.Test for the test suites
  zlib1g-dev                          # PNG output of the heat2d example
  libevent-dev                        # event loop of the PMIx shim
  python3 python3-dev pybind11-dev    # the shim's Python binding
  python3-pytest                      # tests of the Python binding
  strace                              # stdin_unreach: holds dartrun's connect(2)
  python3-sphinx python3-myst-parser  # the manual and man pages (docs/)
  python3-breathe doxygen             # the C API reference from the headers
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then sudo="sudo"; else
    echo "install-deps: missing ${missing[*]}; run as root (or install sudo)" >&2
    exit 1
  fi
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q
$sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
