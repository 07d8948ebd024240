# Shared by the comparison scripts (bench-shmem-compare.sh,
# bench-shmem16-compare.sh): one benchmark source built once per
# implementation, the programs then run alternately (each implementation
# once per round) so all see the same machine. Sourced, not run.
#
# The caller sets:  tag (its name, for messages), src (the C source),
#                   out (an existing directory), bench_args (an array)
# and then calls:   bin=$(alt_build <name> <compiler> [flags...]) || ...
#                   alt_add <name> <binary> <launcher words...>
#                   alt_run <runs>
# after which files_of[k] lists the outputs of the runs of names[k] that
# printed "data check: passed", space-separated.

names=() binaries=() launchers=() files_of=()

# Prints the binary's path; on failure says where the compiler's output is.
alt_build() {
  local name=$1 cc=$2
  shift 2
  local stem bin
  stem=$(basename "$src" .c)
  bin="$out/$stem-$name"
  echo "$tag: building $name: $cc -O2 -g -std=gnu11 $* $stem.c" >&2
  if "$cc" -O2 -g -std=gnu11 "$@" "$src" -o "$bin" -lpthread > "$out/build-$name.log" 2>&1; then
    echo "$bin"
  else
    echo "$tag: building $name failed (see $out/build-$name.log), skipped" >&2
    return 1
  fi
}

alt_add() {
  names+=("$1")
  binaries+=("$2")
  shift 2
  launchers+=("$*")
}

# A run counts when it printed its results and its data check passed,
# whatever its exit status (Open MPI's oshmem crashes in shmem_finalize
# after a good run).
alt_run() {
  local runs=$1 r k f rc
  files_of=()
  for k in "${!names[@]}"; do files_of+=(""); done
  for r in $(seq "$runs"); do
    for k in "${!names[@]}"; do
      f="$out/${names[$k]}-$r.txt"
      echo "$tag: run $r/$runs: ${names[$k]}" >&2
      # shellcheck disable=SC2086
      (cd "$out" && timeout --kill-after=10 900 ${launchers[$k]} "${binaries[$k]}" "${bench_args[@]}" > "$f" 2> "${f%.txt}.err")
      rc=$?
      if grep -q '^data check: passed' "$f"; then
        [ $rc -ne 0 ] && echo "$tag:   ${names[$k]} exited with $rc after its results (kept)" >&2
        files_of[k]="${files_of[$k]} $f"
      else
        echo "$tag:   ${names[$k]} run $r failed (exit $rc, no passed data check; see ${f%.txt}.err)" >&2
      fi
    done
  done
}
