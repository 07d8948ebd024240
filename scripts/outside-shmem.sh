#!/usr/bin/env bash
# Builds and runs OpenSHMEM programs from outside the project against an
# installed DART OpenSHMEM, with nothing but the installed oshcc/oshc++/oshrun
# and each program's own build instructions, and prints one table row per
# program, configuration and PE count. It downloads nothing: the sources are
# passed in (any of them may be left out) and copied into the work directory,
# so the originals stay untouched and a rerun starts clean.
#
# Usage: scripts/outside-shmem.sh --prefix DIR --work DIR [--label NAME]
#          [--pes "2 4"] [--timeout SECONDS]
#          [--shmemvv SRC] [--osu SRC] [--bale SRC] [--isx SRC] [--prk SRC]
#          [--shmem4py SRC]
#   --prefix   the install prefix (cmake --install ... --prefix DIR)
#   --work     scratch directory for the builds, logs and table (created)
#   --label    configuration name in the table, e.g. the MPI (default: basename of --prefix)
#   --pes      PE counts to run (default "2 4"); OSU runs at 2 PEs only, shmem4py also at 1
#   --timeout  limit for one run in seconds (default 600; SHMEMVV's whole suite 4x)
# Exit status: 0 when every row built and passed, 1 otherwise.
set -uo pipefail

prefix="" work="" label="" pes="2 4" limit=600
declare -A src=()
while [ $# -gt 0 ]; do
  case "$1" in
    --prefix) prefix="$2"; shift 2 ;;
    --work) work="$2"; shift 2 ;;
    --label) label="$2"; shift 2 ;;
    --pes) pes="$2"; shift 2 ;;
    --timeout) limit="$2"; shift 2 ;;
    --shmemvv|--osu|--bale|--isx|--prk|--shmem4py) src[${1#--}]="$(cd "$2" && pwd)"; shift 2 ;;
    *) echo "outside-shmem.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
if [ -z "$prefix" ] || [ -z "$work" ] || [ ! -x "$prefix/bin/oshcc" ]; then
  echo "outside-shmem.sh: --prefix (with bin/oshcc) and --work are required" >&2; exit 2
fi
prefix="$(cd "$prefix" && pwd)"
label="${label:-$(basename "$prefix")}"
mkdir -p "$work" && work="$(cd "$work" && pwd)"
export PATH="$prefix/bin:$PATH"
table="$work/table.txt"
: > "$table"
status=0

# row PROGRAM PES BUILT PASSED [NOTE]
row() {
  printf '| %-34s | %-8s | %3s | %-5s | %-6s | %s\n' "$1" "$label" "$2" "$3" "$4" "${5:-}" | tee -a "$table"
  [ "$3" = yes ] && [ "$4" = yes ] || status=1
}

# fresh NAME: a clean copy of the source NAME in the work directory
fresh() {
  rm -rf "${work:?}/$1" && mkdir -p "$work/$1" && cp -a "${src[$1]}/." "$work/$1/" && rm -rf "$work/$1/.git"
}

# run LOG CMD...: one run under the time limit, output in LOG
run() { local log="$1"; shift; timeout -k 10 "$limit" "$@" > "$log" 2>&1; }

# Passing when the run ends with 0 and prints none of the program's failure words.
clean_run() { # LOG PATTERN CMD...
  local log="$1" pat="$2"; shift 2
  run "$log" "$@" && ! grep -Eq "$pat" "$log"
}

yn() { if "$@"; then echo yes; else echo no; fi; }
# build LOG CMD...: yes or no, the build's output in LOG
build() { local log="$1"; shift; if "$@" > "$log" 2>&1; then echo yes; else echo no; fi; }

if [ -n "${src[shmemvv]:-}" ]; then
  fresh shmemvv
  built=$(build "$work/shmemvv.build.log" bash -c "cd '$work/shmemvv' && mkdir -p build && cd build && cmake -DCMAKE_C_COMPILER='$prefix/bin/oshcc' .. && make -j2")
  for n in $pes; do
    log="$work/shmemvv.np$n.log"
    if [ "$built" = yes ]; then
      # the whole suite is one run: 250 programs, each with its own launch
      (cd "$work/shmemvv" && limit=$((limit * 4)) && run "$log" ./shmemvv.sh --enable_c --enable_c11 --np "$n" --launcher "$prefix/bin/oshrun" --no-color)
      p=$(sed -n 's/.*Passing tests: \([0-9]*\).*/\1/p' "$log" | tail -1)
      f=$(sed -n 's/.*Failing tests: \([0-9]*\).*/\1/p' "$log" | tail -1)
      ok=no; [ -n "$p" ] && [ "${f:-1}" = 0 ] && [ "$p" -gt 0 ] && ok=yes
      row shmemvv "$n" yes $ok "${p:-?} passed, ${f:-?} failed"
    else row shmemvv "$n" no no "see shmemvv.build.log"; fi
  done
fi

if [ -n "${src[osu]:-}" ]; then
  fresh osu
  built=$(build "$work/osu.build.log" bash -c "cd '$work/osu' && autoreconf -fi && ./configure CC=oshcc CXX=oshc++ && make -C c/openshmem -j2")
  bin="$work/osu/c/openshmem"
  for b in put get put_mr put_nb get_nb put_mr_nb get_mr_nb put_overlap atomics barrier broadcast collect fcollect reduce; do
    case $b in barrier|broadcast|collect|fcollect|reduce) kinds=("") ;; *) kinds=(heap global) ;; esac
    for k in "${kinds[@]}"; do
      name="osu_oshm_$b${k:+ $k}"
      if [ "$built" = yes ]; then
        log="$work/osu.$b${k:+.$k}.log"
        ok=$(yn clean_run "$log" "[Ee]rror|Abort|Segmentation|fault" oshrun -n 2 "$bin/osu_oshm_$b" $k)
        row "$name" 2 yes $ok "$(grep -E '^[[:space:]]*(1|8|shmem_int_fadd)[[:space:]]' "$log" | head -1 | tr -s ' \t' ' ')"
      else row "$name" 2 no no "see osu.build.log"; fi
    done
  done
fi

if [ -n "${src[bale]:-}" ]; then
  fresh bale
  bc="$work/bale/src/bale_classic"
  built=$(build "$work/bale.build.log" bash -c "cd '$bc' && ./bootstrap.sh && CC=oshcc ./make_bale -s -j 2")
  bin=$(ls -d "$bc"/build_*/bin 2>/dev/null | head -1)
  # every application with its own default problem and bale's default model
  # mask: each model it has runs in turn (AGP, exstack, exstack2, conveyor,
  # alternate) and each result after the first is checked against the first.
  for app in histo ig randperm permute_matrix transpose_matrix triangles topo sssp sparse_matrix_io; do
    for n in $pes; do
      if [ "$built" = yes ] && [ -x "$bin/$app" ]; then
        log="$work/bale.$app.np$n.log"
        ok=no
        # permute_matrix holds its input, the first model's result (kept to
        # check the others) and the next one's at once: 2*10^7 nonzeros
        # each by default, over our default heap of 256 MiB at 2 PEs.
        (cd "$work" && clean_run "$log" "[Ee]rror|ERROR|Abort" env SHMEM_SYMMETRIC_SIZE=1G oshrun -n "$n" "$bin/$app") && ok=yes
        row "bale $app" "$n" yes $ok "$(grep -c 'compares' "$log") models compared"
      else row "bale $app" "$n" no no "see bale.build.log"; fi
    done
  done
fi

if [ -n "${src[isx]:-}" ]; then
  fresh isx
  # ISx's timer.h defines _GNU_SOURCE after isx.c has included <shmem.h>,
  # <stdlib.h> and <stdio.h>, too late for glibc: under its -std=c99,
  # <time.h> then declares no struct timespec. Defined from the start, as
  # timer.h means it.
  built=$(build "$work/isx.build.log" make -C "$work/isx/SHMEM" CC="oshcc -D_GNU_SOURCE")
  for exe in isx.strong isx.weak isx.weak_iso; do
    for n in $pes; do
      if [ "$built" = yes ]; then
        log="$work/isx.$exe.np$n.log"
        # ISx takes a fixed receive buffer of 2^28 keys (1 GiB) from
        # shmem_malloc, unchecked: above our default heap of 256 MiB.
        ok=$(yn clean_run "$log" "[Ff]ailed|Abort" env SHMEM_SYMMETRIC_SIZE=1100M oshrun -n "$n" "$work/isx/SHMEM/bin/$exe" 1048576 "$work/isx.$exe.np$n.times")
        row "ISx $exe" "$n" yes $ok
      else row "ISx $exe" "$n" no no "see isx.build.log"; fi
    done
  done
fi

if [ -n "${src[prk]:-}" ]; then
  fresh prk
  # the kernels' own instructions: name the OpenSHMEM compiler in common/make.defs
  printf 'SHMEMTOP=%s\nSHMEMCC=%s\n' "$prefix" "$prefix/bin/oshcc" > "$work/prk/common/make.defs"
  built=$(build "$work/prk.build.log" make -C "$work/prk" allshmem)
  for k in "Synch_p2p/p2p 10 1024 1024" "Stencil/stencil 10 1000" "Transpose/transpose 10 1024 32"; do
    set -- $k
    for n in $pes; do
      if [ "$built" = yes ]; then
        log="$work/prk.$(basename "$1").np$n.log"
        ok=no
        run "$log" oshrun -n "$n" "$work/prk/SHMEM/$1" "${@:2}" && grep -q "Solution validates" "$log" && ok=yes
        row "PRK $(basename "$1")" "$n" yes $ok
      else row "PRK $(basename "$1")" "$n" no no "see prk.build.log"; fi
    done
  done
fi

if [ -n "${src[shmem4py]:-}" ]; then
  fresh shmem4py
  # shmem4py takes the compiler from OSHCC; our feature list tells it which
  # OpenSHMEM 1.5 routines exist so that it declares no fallbacks of its own.
  flags="$(cat "$prefix/share/dart/shmem4py.flags")"
  # A fresh target (pip leaves an old one in place), and a build that made
  # the compiled module: without Python's cffi pip still installs the
  # package, whose every test then fails to import shmem4py.api.
  rm -rf "${work:?}/shmem4py-site"
  built=$(build "$work/shmem4py.build.log" bash -c "cd '$work/shmem4py' && OSHCC='$prefix/bin/oshcc $flags' /usr/bin/python3 -m pip install --no-build-isolation --no-deps --target '$work/shmem4py-site' . && ls '$work'/shmem4py-site/shmem4py/api*.so")
  # 1 PE always, then the PE counts asked for (once each).
  for n in $(printf '%s\n' 1 $pes | sort -nu); do
    log="$work/shmem4py.np$n.log"
    if [ "$built" = yes ]; then
      ok=no
      (cd "$work/shmem4py" && PYTHONPATH="$work/shmem4py-site" run "$log" oshrun -n "$n" /usr/bin/python3 -m unittest discover -s test) && ok=yes
      row shmem4py "$n" yes $ok "$(grep -E '^Ran [0-9]+ tests' "$log" | head -1)"
    else row shmem4py "$n" no no "see shmem4py.build.log"; fi
  done
fi

echo "table: $table"
exit $status
