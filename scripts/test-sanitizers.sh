#!/usr/bin/env bash
# The sanitizer lane of the README's test command: the PMIx shim's tests
# (ctest -L pmix_shim) and the stdin path's tests (ctest -L stdin: the
# stdin cases, the kinds of stdin and dartrun's exit status, which run
# dartrun + mpiexec + DART programs) under AddressSanitizer+UBSan and under
# ThreadSanitizer, against Open MPI.
#
# Usage: scripts/test-sanitizers.sh [address] [thread]   (default: both)
# Builds into build-asan/ and build-tsan/ at the top of the tree, only the
# targets those tests run. Prints one summary line per sanitizer and exits
# non-zero if a build failed, a test failed, or any test's output holds a
# sanitizer report (a report in a process whose exit status a test does
# not check must still fail the lane).
set -uo pipefail
top="$(cd "$(dirname "$0")/.." && pwd)"
sanitizers=("$@")
[ ${#sanitizers[@]} -gt 0 ] || sanitizers=(address thread)

# What `ctest -L pmix_shim` and `ctest -L stdin` run (tests/pmix_shim and
# tests/stdin CMakeLists.txt, mpi_examples/stdin.cmake). The last three of
# the first line exist only when libpmix-dev / pybind11 were found.
targets=(pmix_shim pmix_push dartrun test_pmix_server test_pmix_tools test_pmix_fuzz test_pmix_lifetime
         test_pmix_compat test_pmix_coexist pmix_python
         stdin_gen stdin_reader unit_exit test_stdin_fanout test_dartrun stdin_wordcount)
# The tests labelled pmix_shim or stdin, but not the ones labelled perf
# (speed smoke tests: meaningless under a sanitizer, and they need the
# benchmarks built) or install (installs and rebuilds the whole tree).
labels='^(pmix_shim|stdin)$'
not_labels='^(perf|install)$'
# stdin_pause bounds every process's peak RSS against an empty-input run
# within 4 MiB; the sanitizers' shadow memory and ASan's quarantine grow
# with the bytes that pass, so the bound says nothing under them.
# stdin_unreach holds dartrun's connect with strace, and LeakSanitizer
# cannot run in a traced process (it ends dartrun with a fatal error).
not_tests='^(stdin_pause|stdin_unreach)\.'
# Any of these in a test's output fails the lane.
report_re='ERROR: AddressSanitizer|ERROR: LeakSanitizer|WARNING: ThreadSanitizer|ThreadSanitizer: reported|FATAL: ThreadSanitizer|Sanitizer: CHECK failed|runtime error:'

status=0
summary=""
for san in "${sanitizers[@]}"; do
  case "$san" in
    address) build="$top/build-asan" ;;
    thread) build="$top/build-tsan" ;;
    *) echo "test-sanitizers.sh: unknown sanitizer '$san' (address or thread)"; exit 2 ;;
  esac
  t0=$(date +%s)
  echo "=== sanitizer $san: build ==="
  # -O1, the level the sanitizers' documentation recommends: measured
  # here, the ASan lane's targets built in 193 s with Ninja at -O1 against
  # 332 s with make at -O2.
  # shellcheck disable=SC2207
  gen=($("$top/scripts/generator.sh" "$build"))
  if ! cmake -S "$top" -B "$build" "${gen[@]}" -DDART_MPI=openmpi -DDART_WERROR=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
         -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g -DNDEBUG" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g -DNDEBUG" \
         -DDART_SANITIZE="$san" -DDART_DOCS=OFF >/dev/null; then
    summary+="sanitizer $san: CONFIGURE FAILED"$'\n'; status=1; continue
  fi
  have=$(cmake --build "$build" --target help 2>/dev/null)
  build_targets=()
  for t in "${targets[@]}"; do
    # make lists "... <target>", Ninja "<target>: <kind>".
    grep -qE "^(\.\.\. $t( |$)|$t: )" <<<"$have" && build_targets+=("$t")
  done
  if ! cmake --build "$build" -j "$(nproc)" --target "${build_targets[@]}"; then
    summary+="sanitizer $san: BUILD FAILED"$'\n'; status=1; continue
  fi
  t1=$(date +%s)

  echo "=== sanitizer $san: ctest ==="
  run=()
  if [ "$san" = thread ]; then
    # TSan's shadow layout needs the address space unrandomized on kernels
    # with more mmap entropy than it expects ("unexpected memory mapping").
    # The personality is inherited by mpiexec and every unit. Some
    # containers' seccomp profiles refuse it; then run as is.
    if setarch "$(uname -m)" -R true 2>/dev/null; then
      run=(setarch "$(uname -m)" -R)
    fi
  fi
  log="$build/ctest.log"
  "${run[@]}" ctest --test-dir "$build" -L "$labels" -LE "$not_labels" -E "$not_tests" -j "$(nproc)" --output-on-failure 2>&1 | tee "$log"
  rc=${PIPESTATUS[0]}
  t2=$(date +%s)
  line=$(grep -E "tests passed|tests failed" "$log" | tail -n 1)

  # Tests whose output holds a report, passed or not (a test that matches
  # its PASS regex ignores exit codes).
  reported=$(awk -v re="$report_re" '
      /^[0-9]+\/[0-9]+ Test: / { name = $3 }
      $0 ~ re && name != "" && !(name in seen) { seen[name] = 1; printf "%s ", name }' \
    "$build/Testing/Temporary/LastTest.log" 2>/dev/null)
  extra=""
  if [ -n "$reported" ]; then
    extra="; sanitizer reports in: $reported"
    rc=1
  fi
  summary+="sanitizer $san: ${line:-no ctest summary} (ctest exit $rc; build $((t1 - t0)) s, tests $((t2 - t1)) s)$extra"$'\n'
  [ "$rc" -eq 0 ] || status=1
done
echo
echo "=== sanitizer summary ==="
printf '%s' "$summary"
exit $status
