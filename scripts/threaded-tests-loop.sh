#!/usr/bin/env bash
# Runs every test that drives DART or the PMIx shim from several threads,
# RUNS times in a row, each run under scripts/hang-loop.sh (so a hang is
# recorded, then ended), and prints per test how the runs ended and how
# long the whole loop took.
#
#   threaded-tests-loop.sh <openmpi|mpich> <build dir> [RUNS]   (default 50)
#
# The tests, at the rank counts CTest registers them with (1-4 units, 1-3
# under MPICH), each with load/store and with DART_SHARED_MEMORY=0: all of
# dart_ctx; dart_onesided's direct-cache stress case (two helper threads
# per unit against the main thread's allocations); and the shim's
# test_pmix_server and test_pmix_lifetime (its progress thread, a finalize
# from another thread). HANG_DEADLINE (default 60 s) bounds each run; the
# records of hung runs go to HANG_DIR (default /tmp/hang-loop). A run that
# outlived the deadline but ended while recorded is counted as slow, and as
# passed or failed by its exit status. Exit 0 only if every run passed.
set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
(($# >= 2)) || { sed -n '2,/^set -uo/p' "$0" | sed 's/^# \{0,1\}//;$d'; exit 2; }
mpi=$1 build=$(cd "$2" && pwd) runs=${3:-50}
export HANG_DEADLINE=${HANG_DEADLINE:-60}
case $mpi in
  openmpi) nps=(1 2 3 4) ;;
  mpich) nps=(1 2 3) ;;
  *) echo "threaded-tests-loop: MPI must be openmpi or mpich" >&2; exit 2 ;;
esac
dart=$build/tests/dart
shim=$build/tests/pmix_shim
for exe in "$dart/dart_ctx" "$dart/dart_onesided" "$shim/test_pmix_server" "$shim/test_pmix_lifetime"; do
  [[ -x $exe ]] || { echo "threaded-tests-loop: $exe not built" >&2; exit 2; }
done

# name|np|environment|executable|Boost.Test filter
cases=()
for np in "${nps[@]}"; do
  cases+=("dart_ctx.np$np|$np||$dart/dart_ctx|")
  cases+=("dart_ctx.rma.np$np|$np|DART_SHARED_MEMORY=0|$dart/dart_ctx|")
done
for np in "${nps[@]:1}"; do
  cases+=("direct_cache.np$np|$np||$dart/dart_onesided|direct_cache_under_concurrent_alloc_free_and_access")
  cases+=("direct_cache.rma.np$np|$np|DART_SHARED_MEMORY=0|$dart/dart_onesided|direct_cache_under_concurrent_alloc_free_and_access")
done

declare -A pass=() fail=() hung=() slow=()
start=$SECONDS
for ((i = 1; i <= runs; ++i)); do
  for c in "${cases[@]}"; do
    IFS='|' read -r name np env exe filter <<<"$c"
    out=$(env ${env:+"$env"} ${filter:+BOOST_TEST_RUN_FILTERS=$filter} DART_TEST_NAME="$name" \
      "$HERE/hang-loop.sh" "$mpi" 1 "$np" "$exe" 2>&1)
    rc=$?
    [[ $out == *" 1 slow"* ]] && { slow[$name]=$((${slow[$name]:-0} + 1)); echo "run $i $name: $out"; }
    if ((rc == 0)); then pass[$name]=$((${pass[$name]:-0} + 1))
    elif [[ $out == *"1 hung"* ]]; then hung[$name]=$((${hung[$name]:-0} + 1)); echo "run $i $name: $out"
    else fail[$name]=$((${fail[$name]:-0} + 1)); echo "run $i $name: $out"; fi
  done
  for name in test_pmix_server test_pmix_lifetime; do
    log=$(mktemp)
    timeout "$HANG_DEADLINE" "$shim/$name" >"$log" 2>&1
    rc=$?
    if ((rc == 0)); then pass[$name]=$((${pass[$name]:-0} + 1)); rm -f "$log"
    elif ((rc == 124)); then hung[$name]=$((${hung[$name]:-0} + 1)); echo "run $i $name: timed out; output in $log"
    else fail[$name]=$((${fail[$name]:-0} + 1)); echo "run $i $name: exit $rc; output in $log"; fi
  done
  echo "pass $i of $runs done at $((SECONDS - start)) s"
done
echo "threaded-tests-loop: $mpi, $runs runs of each, $((SECONDS - start)) s"
bad=0
for c in "${cases[@]}" "test_pmix_server|" "test_pmix_lifetime|"; do
  name=${c%%|*}
  printf '  %-24s passed %3d  failed %3d  hung %3d  (slow %d)\n' "$name" "${pass[$name]:-0}" "${fail[$name]:-0}" \
    "${hung[$name]:-0}" "${slow[$name]:-0}"
  ((${fail[$name]:-0} + ${hung[$name]:-0} == 0)) || bad=1
done
exit $bad
