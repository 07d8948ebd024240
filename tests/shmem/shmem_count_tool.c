/*
 * A profiling library as a tool would write one against the OpenSHMEM
 * profiling interface: it defines the shmem_ names of the routines it
 * watches, counts each call and forwards it to the pshmem_ entry point.
 * Preloaded into test_shmem_profiling (LD_PRELOAD), it writes its counts
 * to $SHMEM_COUNT_TOOL_DIR/counts.<PE> when the program calls
 * shmem_finalize, one "name count" line per routine, and the program
 * compares them with the calls it made. It does not cover threads: the
 * counters are plain, as the program is single-threaded.
 */
#include <pshmem.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

/* X(routine): the routines this tool counts, in the order it writes them. */
#define COUNTED(X)                                                                                                    \
  X(shmem_init)                                                                                                       \
  X(shmem_init_thread) X(shmem_my_pe) X(shmem_n_pes) X(shmem_malloc) X(shmem_free) X(shmem_realloc) X(shmem_long_put) \
      X(shmem_long_get) X(shmem_long_p) X(shmem_long_atomic_fetch_add) X(shmem_barrier_all) X(shmem_quiet)            \
          X(shmem_ctx_pe_quiet) X(shmem_pe_quiet) X(shmem_long_broadcast) X(shmem_long_wait_until) X(shmem_pcontrol)  \
              X(shmem_finalize)

#define COUNTER(name) static long count_##name;
COUNTED(COUNTER)

void shmem_init(void) {
  ++count_shmem_init;
  pshmem_init();
}
int shmem_init_thread(int requested, int* provided) {
  ++count_shmem_init_thread;
  return pshmem_init_thread(requested, provided);
}
int shmem_my_pe(void) {
  ++count_shmem_my_pe;
  return pshmem_my_pe();
}
int shmem_n_pes(void) {
  ++count_shmem_n_pes;
  return pshmem_n_pes();
}
void* shmem_malloc(size_t size) {
  ++count_shmem_malloc;
  return pshmem_malloc(size);
}
void shmem_free(void* ptr) {
  ++count_shmem_free;
  pshmem_free(ptr);
}
void* shmem_realloc(void* ptr, size_t size) {
  ++count_shmem_realloc;
  return pshmem_realloc(ptr, size);
}
void shmem_long_put(long* dest, const long* source, size_t nelems, int pe) {
  ++count_shmem_long_put;
  pshmem_long_put(dest, source, nelems, pe);
}
void shmem_long_get(long* dest, const long* source, size_t nelems, int pe) {
  ++count_shmem_long_get;
  pshmem_long_get(dest, source, nelems, pe);
}
void shmem_long_p(long* dest, long value, int pe) {
  ++count_shmem_long_p;
  pshmem_long_p(dest, value, pe);
}
long shmem_long_atomic_fetch_add(long* dest, long value, int pe) {
  ++count_shmem_long_atomic_fetch_add;
  return pshmem_long_atomic_fetch_add(dest, value, pe);
}
void shmem_barrier_all(void) {
  ++count_shmem_barrier_all;
  pshmem_barrier_all();
}
void shmem_quiet(void) {
  ++count_shmem_quiet;
  pshmem_quiet();
}
void shmem_ctx_pe_quiet(shmem_ctx_t ctx, const int* target_pes, size_t npes) {
  ++count_shmem_ctx_pe_quiet;
  pshmem_ctx_pe_quiet(ctx, target_pes, npes);
}
void shmem_pe_quiet(const int* target_pes, size_t npes) {
  ++count_shmem_pe_quiet;
  pshmem_pe_quiet(target_pes, npes);
}
int shmem_long_broadcast(shmem_team_t team, long* dest, const long* source, size_t nelems, int PE_root) {
  ++count_shmem_long_broadcast;
  return pshmem_long_broadcast(team, dest, source, nelems, PE_root);
}
void shmem_long_wait_until(long* ivar, int cmp, long cmp_value) {
  ++count_shmem_long_wait_until;
  pshmem_long_wait_until(ivar, cmp, cmp_value);
}
/* As a profiler would: the level decides whether it records; the library
 * itself ignores the call. */
void shmem_pcontrol(const int level, ...) {
  ++count_shmem_pcontrol;
  pshmem_pcontrol(level);
}

void shmem_finalize(void) {
  ++count_shmem_finalize;
  const char* dir = getenv("SHMEM_COUNT_TOOL_DIR");
  const int me = pshmem_my_pe();
  char path[4096];
  snprintf(path, sizeof path, "%s/counts.%d", dir ? dir : ".", me);
  FILE* f = fopen(path, "w");
  if (f) {
#define WRITE(name) fprintf(f, "%s %ld\n", #name, count_##name);
    COUNTED(WRITE)
    fclose(f);
  } else {
    fprintf(stderr, "shmem_count_tool: PE %d: cannot write %s\n", me, path);
  }
  pshmem_finalize();
}
