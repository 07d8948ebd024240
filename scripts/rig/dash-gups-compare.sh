#!/usr/bin/env bash
# DASH's GUPS example (bench.03.gups) on this runtime's libdart against the
# same example on DASH's own DART-MPI, across the rig's hosts: the two
# programs run alternately, RUNS times each, so both see the same machine,
# and the medians of the update phase (the example's time.s column) and
# their ratio are printed. Builds and downloads nothing: both executables
# are built beforehand from one DASH source tree, one build configured with
# <prefix>/share/dart/dash/libdart-for-dash.cmake (docs/dash.md) and one
# with DASH's defaults; docs/performance.md shows how.
#
#   scripts/rig/dash-gups-compare.sh <openmpi|mpich> <units per host> <runs> <ours> <dash> [args...]
#
# args go to both programs. The rig is $RIG_NAME (default dashgups) with
# $RIG_HOSTS hosts (default 2); it is made if missing and then removed.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
(($# >= 5)) || { sed -n '2,/^set -euo/p' "$0" | sed 's/^# \{0,1\}//;$d'; exit 2; }
mpi=$1 ppn=$2 runs=$3 ours=$4 dash=$5
shift 5
export RIG_NAME=${RIG_NAME:-dashgups} RIG_HOSTS=${RIG_HOSTS:-2} RIG_PPN=$ppn RIG_TIMEOUT=${RIG_TIMEOUT:-600}
made=0
if [[ ! -f ${RIG_ROOT:-/run/dart-rig}/$RIG_NAME/env ]]; then
  "$HERE/rig.sh" up --name "$RIG_NAME" --hosts "$RIG_HOSTS" >/dev/null
  made=1
fi
trap '((made)) && "$HERE/rig.sh" down --name "$RIG_NAME" >/dev/null' EXIT

# The update phase in seconds: field 8 of the example's result line (the
# last line of numbers: UCX may print warnings after it at exit).
one() {
  local out
  out=$("$HERE/run-multihost.sh" "$mpi" "$@" 2>&1) || { echo "dash-gups-compare: $1 failed:" >&2; tail -5 <<<"$out" >&2; return 1; }
  grep -E '^ *[0-9]+,' <<<"$out" | tail -1 | awk -F, '{gsub(/ /, "", $8); print $8}'
}
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

# The two programs of a pair take turns going first, so neither always
# meets the machine as the other left it.
o=() d=()
for ((i = 0; i < runs; ++i)); do
  if ((i % 2 == 0)); then
    o+=("$(one "$ours" "$@")")
    d+=("$(one "$dash" "$@")")
  else
    d+=("$(one "$dash" "$@")")
    o+=("$(one "$ours" "$@")")
  fi
done
mo=$(median "${o[@]}") md=$(median "${d[@]}")
echo "runs (s), libdart:      ${o[*]}"
echo "runs (s), DASH DART-MPI: ${d[*]}"
printf '%s %d hosts x %d: libdart %s s, DASH DART-MPI %s s (medians of %d), ratio %.2f\n' \
  "$mpi" "$RIG_HOSTS" "$ppn" "$mo" "$md" "$runs" "$(awk -v a="$mo" -v b="$md" 'BEGIN {print a / b}')"
# Single runs have spread by up to +-15% on the rig, more than the gap
# between the programs, so the pairs are compared too: the median of the per-pair
# ratios libdart / DASH and its distribution-free 95% interval (order
# statistics k and n+1-k of the sorted ratios, k the largest with
# P(Binomial(n, 1/2) < k) <= 0.025; none below 6 pairs).
r=()
for ((i = 0; i < runs; ++i)); do r+=("$(awk -v a="${o[i]}" -v b="${d[i]}" 'BEGIN {printf "%.4f", a / b}')"); done
printf '%s\n' "${r[@]}" | sort -g | awk -v m="$(median "${r[@]}")" '{r[NR] = $1}
    END {
      n = NR; k = 0; p = 0; c = 0.5 ^ n  # c = P(Binomial = j), p = P(Binomial < j + 1)
      for (j = 0; j < n; ++j) { p += c; if (p > 0.025) break; k = j + 1; c = c * (n - j) / (j + 1) }
      if (k >= 1) printf "per-pair ratio libdart / DASH: median %.3f, 95%% interval %.3f-%.3f (%d pairs)\n", m, r[k], r[n + 1 - k], n
      else printf "per-pair ratio libdart / DASH: median %.3f (%d pairs: too few for an interval)\n", m, n
    }'
