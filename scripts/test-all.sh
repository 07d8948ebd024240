#!/usr/bin/env bash
# The README's test command: installs what is missing, builds, and runs the
# whole CTest suite under Open MPI and then under MPICH (the Open MPI build
# also builds the manual, the man pages and the API reference, warnings as
# errors), then the sanitizer lane (scripts/test-sanitizers.sh: the PMIx
# shim's and the stdin path's tests under ASan+UBSan and under TSan, Open
# MPI). Prints each summary and exits non-zero if anything failed in any of
# them.
# Usage: scripts/test-all.sh
set -uo pipefail
top="$(cd "$(dirname "$0")/.." && pwd)"
start=$(date +%s)
"$top/scripts/install-deps.sh" || exit 1

status=0
summary=""
for mpi in openmpi mpich; do
  echo "=== $mpi: build ==="
  t0=$(date +%s)
  # The cross-host suites (tests/multihost) run under both MPIs, on the rig
  # of simulated hosts; they skip themselves where the rig cannot be built
  # (no root, no namespaces).
  # The manual and man pages do not depend on the MPI: the Open MPI build
  # makes and checks them (warnings are errors; install_man_pages checks
  # the installed pages), the MPICH build leaves them out.
  docs=ON; [ "$mpi" = openmpi ] || docs=OFF
  if ! "$top/scripts/build.sh" "$mpi" -DDART_MULTIHOST_TESTS=ON -DDART_DOCS=$docs; then
    summary+="$mpi: BUILD FAILED"$'\n'
    status=1
    continue
  fi
  t1=$(date +%s)
  echo "=== $mpi: ctest ==="
  log="$top/build-$mpi/ctest.log"
  ctest --test-dir "$top/build-$mpi" -j "$(nproc)" --output-on-failure 2>&1 | tee "$log"
  rc=${PIPESTATUS[0]}
  t2=$(date +%s)
  line=$(grep -E "tests passed|tests failed" "$log" | tail -n 1)
  summary+="$mpi: ${line:-no ctest summary} (ctest exit $rc; build $((t1 - t0)) s, tests $((t2 - t1)) s)"$'\n'
  [ "$rc" -eq 0 ] || status=1
done

echo "=== sanitizer lane ==="
sanlog=$(mktemp "${TMPDIR:-/tmp}/test-sanitizers-XXXXXX.log")
"$top/scripts/test-sanitizers.sh" 2>&1 | tee "$sanlog"
rc=${PIPESTATUS[0]}
lines=$(grep -E "^sanitizer (address|thread): " "$sanlog")
summary+="${lines:-sanitizer lane: no summary (exit $rc)}"$'\n'
rm -f "$sanlog"
[ "$rc" -eq 0 ] || status=1

echo
echo "=== summary ==="
printf '%s' "$summary"
echo "total $(( $(date +%s) - start )) s"
exit $status
