#!/usr/bin/env bash
# The on-node hot path (tests/perf/bench_hotpath.cpp), ours against the
# hardware limit and raw MPI, and, when a build of DASH's DART-MPI is named,
# against it in the same session: the same source is compiled against DASH's
# DART headers and static libraries, and the two programs run alternately
# (ours, DASH, ours, DASH, ...) so both see the same machine; every column
# keeps its best run. Prints the table, writes it as TSV and, with
# python3-matplotlib installed, plots latency against size.
#
# Usage: scripts/bench-hotpath.sh <openmpi|mpich> [--dash-src DIR --dash-build DIR] [--runs N] [--out DIR]
#   --dash-src    a DASH source tree (its dart-if/include holds DART's headers)
#   --dash-build  its build tree for the same MPI (lib/libdart-mpi.a, lib/libdart-base.a)
#   --runs        runs of each program (default 3)
#   --out         where the raw outputs, the TSV and the plots go (default build-<mpi>/hotpath)
set -euo pipefail
top="$(cd "$(dirname "$0")/.." && pwd)"
mpi=${1:?usage: bench-hotpath.sh <openmpi|mpich> [--dash-src DIR --dash-build DIR] [--runs N] [--out DIR]}
shift
dash_src= dash_build= runs=3 out=
while [ $# -gt 0 ]; do
  case $1 in
    --dash-src) dash_src=$2; shift 2 ;;
    --dash-build) dash_build=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "bench-hotpath: unknown option $1" >&2; exit 2 ;;
  esac
done
b="$top/build-$mpi"
out=${out:-$b/hotpath}
mkdir -p "$out"
[ -x "$b/tests/perf/bench_hotpath" ] || "$top/scripts/build.sh" "$mpi"

case $mpi in
  openmpi)
    cxx=mpicxx.openmpi
    # Both runtimes get the same RMA components: osc/sm for shared windows.
    launch=(mpiexec.openmpi -np 2 --bind-to core --mca osc sm,rdma --mca osc_rdma_priority 50)
    [ "$(id -u)" -eq 0 ] && launch+=(--allow-run-as-root)
    ;;
  mpich)
    cxx=mpicxx.mpich
    launch=(mpiexec.mpich -np 2 -bind-to core)
    ;;
  *) echo "bench-hotpath: unknown MPI $mpi" >&2; exit 2 ;;
esac

dash_bin=
if [ -n "$dash_src" ]; then
  [ -n "$dash_build" ] || { echo "bench-hotpath: --dash-src needs --dash-build" >&2; exit 2; }
  dash_bin="$out/bench_hotpath_dash"
  "$cxx" -O2 -std=c++17 -I"$dash_src/dart-if/include" -I"$top/tests/perf" "$top/tests/perf/bench_hotpath.cpp" \
    -o "$dash_bin" "$dash_build/lib/libdart-mpi.a" "$dash_build/lib/libdart-base.a" -lhwloc -lnuma -lpthread
fi

ours_out=() dash_out=()
for i in $(seq "$runs"); do
  f="$out/ours-$i.txt"
  timeout 600 "${launch[@]}" "$b/tests/perf/bench_hotpath" > "$f"
  ours_out+=("$f")
  if [ -n "$dash_bin" ]; then
    f="$out/dash-$i.txt"
    timeout 600 "${launch[@]}" "$dash_bin" > "$f"
    dash_out+=("$f")
  fi
done
py=python3
# Debian's python3 has python3-matplotlib; another python3 first in PATH may not.
[ -x /usr/bin/python3 ] && py=/usr/bin/python3
"$py" "$top/scripts/hotpath-report.py" --title "$mpi, 2 ranks on one node" --ours "${ours_out[@]}" \
  ${dash_bin:+--dash "${dash_out[@]}"} --tsv "$out/hotpath-$mpi.tsv" --plot "$out"
