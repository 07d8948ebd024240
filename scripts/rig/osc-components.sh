#!/usr/bin/env bash
# Open MPI's one-sided components and transports across the rig's hosts,
# measured with plain MPI (osc-latency.c), to choose DART's default for
# windows that span hosts (dart/src/core/mpi_defaults.cpp; docs/mpi-workarounds.md "Working
# around the MPI"). Each configuration runs REPEAT times (default 3) at
# RIG_HOSTS x RIG_PPN (default 2 x 1); a row prints the best of each
# operation, or why the configuration cannot run (the launcher's last
# error line). Needs root (the rig).
#
#   scripts/rig/osc-components.sh [iterations]
set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
iterations=${1:-2000}
repeat=${REPEAT:-3}
exe=$(mktemp /tmp/osc-latency-XXXXXX)
mpicc.openmpi -O2 -o "$exe" "$HERE/osc-latency.c" || exit 1
export RIG_NAME=${RIG_NAME:-osccmp} RIG_PPN=${RIG_PPN:-1} RIG_HOSTS=${RIG_HOSTS:-2} RIG_TIMEOUT=${RIG_TIMEOUT:-90}
export DART_MPI_DEFAULTS=0  # plain MPI: only the flags below choose
# One rig for every run (run-multihost.sh leaves a rig it did not make up).
"$HERE/rig.sh" up --name "$RIG_NAME" --hosts "$RIG_HOSTS" >/dev/null || exit 1
trap 'rm -f "$exe"; "$HERE/rig.sh" down --name "$RIG_NAME" >/dev/null' EXIT

# name | thread level | transport flags (replace the rig's choice)
configs=(
  "ucx (rig default)|multiple|--mca pml ucx --mca osc sm,ucx --mca pml_ucx_tls any --mca pml_ucx_devices any --mca osc_ucx_tls any --mca osc_ucx_devices any -x UCX_NET_DEVICES=eth0"
  "ucx, UCX_TLS=tcp,self|multiple|--mca pml ucx --mca osc sm,ucx --mca pml_ucx_tls any --mca pml_ucx_devices any --mca osc_ucx_tls any --mca osc_ucx_devices any -x UCX_NET_DEVICES=eth0 -x UCX_TLS=tcp,self"
  "ob1 + osc ucx|multiple|--mca pml ob1 --mca btl tcp,vader,self --mca btl_tcp_if_include eth0 --mca osc sm,ucx --mca osc_ucx_tls any --mca osc_ucx_devices any -x UCX_NET_DEVICES=eth0"
  "ob1 + osc rdma over tcp|multiple|--mca pml ob1 --mca btl tcp,vader,self --mca btl_tcp_if_include eth0 --mca osc rdma"
  "ob1 + osc pt2pt|single|--mca pml ob1 --mca btl tcp,vader,self --mca btl_tcp_if_include eth0 --mca osc pt2pt"
  "ob1 + osc pt2pt|multiple|--mca pml ob1 --mca btl tcp,vader,self --mca btl_tcp_if_include eth0 --mca osc pt2pt"
  "Debian defaults (no flags)|multiple|"
)
printf '%-30s %-8s %9s %9s %9s %9s %9s  %s\n' configuration threads put8 get8 put64k fadd cas result
for c in "${configs[@]}"; do
  IFS='|' read -r name level flags <<<"$c"
  declare -A best=()
  result=ok
  for ((r = 0; r < repeat; ++r)); do
    out=$(RIG_OMPI_TRANSPORT="$flags" "$HERE/run-multihost.sh" openmpi "$exe" "$level" "$iterations" 2>&1)
    rc=$?
    if ((rc != 0)) || ! grep -q "checks passed" <<<"$out"; then
      result="fails (exit $rc): $(grep -v '^run-multihost\|^rig:' <<<"$out" | grep -m1 -i -E 'error|fail|abort|refus|not' | cut -c1-100)"
      break
    fi
    while read -r _ op us _; do
      if [[ -z ${best[$op]:-} ]] || awk -v a="$us" -v b="${best[$op]}" 'BEGIN{exit !(a<b)}'; then best[$op]=$us; fi
    done < <(grep '^row ' <<<"$out")
  done
  printf '%-30s %-8s %9s %9s %9s %9s %9s  %s\n' "$name" "$level" "${best[put8]:--}" "${best[get8]:--}" \
    "${best[put64k]:--}" "${best[fadd]:--}" "${best[cas]:--}" "$result"
  unset best
done
