/*
 * Extension (not part of the DART interface): counters of the paths the
 * caller's one-sided operations took, so a program or a test can see that
 * on-node traffic went by load/store and the rest through MPI RMA.
 *
 * Counts are per unit (process), since dart_init or the last
 * dart_stats_reset. They are exact while one thread at a time
 * communicates; concurrent threads of a unit may lose increments (the
 * counters avoid atomic read-modify-write so the fast path stays fast).
 * With DART_STATS=1 in the environment every unit prints its counters to
 * stderr in dart_exit.
 */
#ifndef DART__EXT__DART_STATS_H_
#define DART__EXT__DART_STATS_H_

#include <dash/dart/if/dart_types.h>
#include <dash/dart/if/dart_util.h>

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  uint64_t local_puts;       /* puts done by load/store (same node) */
  uint64_t local_gets;       /* gets done by load/store */
  uint64_t local_bytes;      /* bytes moved by those */
  uint64_t rma_puts;         /* puts issued through MPI RMA */
  uint64_t rma_gets;         /* gets issued through MPI RMA */
  uint64_t rma_bytes;        /* bytes moved by those */
  uint64_t cpu_atomics;      /* accumulate-type operations done by CPU atomics */
  uint64_t rma_atomics;      /* ... issued as MPI accumulate operations */
  uint64_t emulated_atomics; /* ... applied by the runtime under its lock */
  uint64_t mpi_flushes;      /* flushes that called MPI */
  uint64_t skipped_flushes;  /* flushes with nothing issued through MPI */
} dart_stats_t;

/* Copies the caller's counters. DART_ERR_INVAL for NULL, DART_ERR_OTHER
 * before dart_init. Not collective. */
dart_ret_t dart_stats_get(dart_stats_t* stats) DART_NOTHROW;

/* Sets the caller's counters to zero. Not collective. */
dart_ret_t dart_stats_reset(void) DART_NOTHROW;

/* What the runtime keeps on the caller for its teams and segments: heap
 * bytes of its own bookkeeping, not the global memory itself and not what
 * MPI keeps for communicators and windows. Used to show that the cost of a
 * segment does not grow with the number of units (docs/metadata.md). */
typedef struct {
  uint64_t teams;          /* live teams the caller belongs to, DART_TEAM_ALL included */
  uint64_t segments;       /* live segments of those teams, segment 0 included */
  uint64_t team_bytes;     /* bookkeeping of those teams (heap chunks, segment tables) */
  uint64_t segment_bytes;  /* bookkeeping of those segments */
  uint64_t runtime_bytes;  /* tables of fixed size (team table, local pool) */
  /* registrations the caller has deregistered whose window is kept until
   * every member of the team has deregistered them too (freed at the next
   * registration on the team after that, or with the team) */
  uint64_t retired_registrations;
} dart_metadata_t;

/* Fills *md. DART_ERR_INVAL for NULL, DART_ERR_OTHER before dart_init.
 * Not collective. */
dart_ret_t dart_stats_metadata(dart_metadata_t* md) DART_NOTHROW;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DART__EXT__DART_STATS_H_ */
