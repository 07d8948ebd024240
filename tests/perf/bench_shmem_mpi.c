/*
 * The OpenSHMEM face against raw MPI in the same run, on the same pair of
 * processes: PE 0 and its partner, the first PE on another node when the
 * PEs span nodes (across hosts, whatever the placement), else PE 1. The
 * program initialises MPI itself (MPI_THREAD_MULTIPLE, the level DART asks
 * for), then OpenSHMEM; PE numbers are MPI_COMM_WORLD ranks.
 *
 * Rows (ours | raw MPI on an MPI_Win_allocate window over MPI_COMM_WORLD,
 * one MPI_Win_lock_all for the run; the partner waits in MPI_Barrier, or
 * takes part where the row says so):
 *   putmem+quiet  <n>   shmem_putmem + shmem_quiet | MPI_Put + MPI_Win_flush
 *   getmem        <n>   shmem_getmem               | MPI_Get + MPI_Win_flush
 *   fetch_add            shmem_long_atomic_fetch_add | MPI_Fetch_and_op + flush
 *   compare_swap         shmem_long_atomic_compare_swap | MPI_Compare_and_swap + flush
 *   put_signal round trip  both PEs: shmem_putmem_signal (8 B, SIGNAL_SET) and
 *                      shmem_signal_wait_until on the reply | MPI_Put + flush +
 *                      MPI_Accumulate(REPLACE) of the flag + flush, the waiter
 *                      polling its flag with MPI_Win_sync
 * for n = 8 B .. 1 MiB. A figure is the mean per operation of a batch, best
 * of --rounds, ours and MPI alternating (the first of them rotates). Every
 * fetched value and the data moved are checked: "data check: passed", or
 * "data check: FAILED" and exit status 1.
 *
 * Output: '#' comments, then rows
 *   row <operation> <bytes> <ours us> <raw MPI us> <ours/MPI>
 * Usage: mpirun -np 2 bench_shmem_mpi [--iterations N] [--rounds N]
 */
#include <mpi.h>
#include <shmem.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kMaxBytes = 1 << 20, kFlagOff = kMaxBytes, kCountOff = kMaxBytes + 64, kCasOff = kMaxBytes + 128,
       kWinBytes = kMaxBytes + 192 };

static int ok = 1;
static void expect(int cond, const char* what) {
  if (!cond && ok) fprintf(stderr, "bench_shmem_mpi: check failed: %s\n", what);
  if (!cond) ok = 0;
}

static int me, partner, iterations = 2000, rounds = 7;
static char* sym;       /* symmetric: data, flag, counter, CAS word */
static char* win_base;  /* the raw window's memory */
static MPI_Win win;
static char* src;
static char* dst;
static uint64_t seq_ours, seq_mpi;
static long next_fa_ours, next_fa_mpi, cas_ours, cas_mpi;

typedef void (*op_fn)(size_t n, int count);

static void put_ours(size_t n, int count) {
  for (int i = 0; i < count; ++i) {
    shmem_putmem(sym, src, n, partner);
    shmem_quiet();
  }
}
static void put_mpi(size_t n, int count) {
  for (int i = 0; i < count; ++i) {
    MPI_Put(src, (int)n, MPI_BYTE, partner, 0, (int)n, MPI_BYTE, win);
    MPI_Win_flush(partner, win);
  }
}
static void get_ours(size_t n, int count) {
  for (int i = 0; i < count; ++i) shmem_getmem(dst, sym, n, partner);
}
static void get_mpi(size_t n, int count) {
  for (int i = 0; i < count; ++i) {
    MPI_Get(dst, (int)n, MPI_BYTE, partner, 0, (int)n, MPI_BYTE, win);
    MPI_Win_flush(partner, win);
  }
}
static void fadd_ours(size_t n, int count) {
  (void)n;
  for (int i = 0; i < count; ++i)
    expect(shmem_long_atomic_fetch_add((long*)(sym + kCountOff), 1, partner) == next_fa_ours++, "fetch-add (ours)");
}
static void fadd_mpi(size_t n, int count) {
  (void)n;
  for (int i = 0; i < count; ++i) {
    long one = 1, old = -1;
    MPI_Fetch_and_op(&one, &old, MPI_LONG, partner, kCountOff, MPI_SUM, win);
    MPI_Win_flush(partner, win);
    expect(old == next_fa_mpi++, "fetch-add (raw MPI)");
  }
}
static void cas_ours_fn(size_t n, int count) {
  (void)n;
  for (int i = 0; i < count; ++i) {
    const long want = cas_ours ^ 1;
    expect(shmem_long_atomic_compare_swap((long*)(sym + kCasOff), cas_ours, want, partner) == cas_ours,
           "compare-and-swap (ours)");
    cas_ours = want;
  }
}
static void cas_mpi_fn(size_t n, int count) {
  (void)n;
  for (int i = 0; i < count; ++i) {
    const long want = cas_mpi ^ 1;
    long old = -1;
    MPI_Compare_and_swap(&want, &cas_mpi, &old, MPI_LONG, partner, kCasOff, win);
    MPI_Win_flush(partner, win);
    expect(old == cas_mpi, "compare-and-swap (raw MPI)");
    cas_mpi = want;
  }
}
/* Round trips: both PEs run them; seq keeps rising, so no flag is reset. */
static void pingpong_ours(size_t n, int count) {
  (void)n;
  uint64_t* flag = (uint64_t*)(sym + kFlagOff);
  const int other = me == 0 ? partner : 0;
  for (int i = 0; i < count; ++i) {
    const uint64_t s = ++seq_ours;
    if (me != 0) {
      shmem_signal_wait_until(flag, SHMEM_CMP_GE, s);
      uint64_t got;
      memcpy(&got, sym, sizeof got);
      expect(got == s, "data arrives with its signal (ours)");
    }
    shmem_putmem_signal(sym, &s, sizeof s, flag, s, SHMEM_SIGNAL_SET, other);
    if (me == 0) shmem_signal_wait_until(flag, SHMEM_CMP_GE, s);
  }
}
static void wait_flag_mpi(uint64_t s) {
  const uint64_t* f = (const uint64_t*)(win_base + kFlagOff);
  for (unsigned k = 0; __atomic_load_n(f, __ATOMIC_ACQUIRE) < s; ++k) {
    MPI_Win_sync(win);
    if (k % 64 == 63) { /* lets an MPI that applies RMA inside the target's calls do so */
      int flag = 0;
      MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    }
  }
}
static void pingpong_mpi(size_t n, int count) {
  (void)n;
  const int other = me == 0 ? partner : 0;
  for (int i = 0; i < count; ++i) {
    const uint64_t s = ++seq_mpi;
    if (me != 0) {
      wait_flag_mpi(s);
      uint64_t got;
      memcpy(&got, win_base, sizeof got);
      expect(got == s, "data arrives with its flag (raw MPI)");
    }
    MPI_Put(&s, 8, MPI_BYTE, other, 0, 8, MPI_BYTE, win);
    MPI_Win_flush(other, win);
    MPI_Accumulate(&s, 1, MPI_UINT64_T, other, kFlagOff, 1, MPI_UINT64_T, MPI_REPLACE, win);
    MPI_Win_flush(other, win);
    if (me == 0) wait_flag_mpi(s);
  }
}

/* Mean microseconds per operation of `count` calls of fn by the active
 * PEs (PE 0 alone unless both), PE 0's clock; every PE takes part in the
 * barriers. */
static double timed(op_fn fn, size_t n, int count, int both) {
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  if (me == 0 || (both && me == partner)) fn(n, count);
  const double us = (MPI_Wtime() - t0) * 1e6 / count;
  MPI_Barrier(MPI_COMM_WORLD);
  return us;
}

static void line(const char* name, size_t n, op_fn ours, op_fn mpi, int count, int both) {
  double best[2] = {1e300, 1e300};
  op_fn fns[2] = {ours, mpi};
  (void)timed(ours, n, count / 10 + 1, both);
  (void)timed(mpi, n, count / 10 + 1, both);
  for (int r = 0; r < rounds; ++r)
    for (int k = 0; k < 2; ++k) {
      const int i = (k + r) % 2;
      const double us = timed(fns[i], n, count, both);
      if (us < best[i]) best[i] = us;
    }
  if (me == 0) {
    printf("row %-24s %8zu %10.3f %10.3f %8.2f\n", name, n, best[0], best[1], best[0] / best[1]);
    fflush(stdout);
  }
}

/* Operations per batch: all of them up to 4 KiB, then fewer in proportion
 * to the size (every size costs about the same), at least 10. */
static int count_for(size_t n) {
  return n <= 4096 ? iterations : (int)(iterations * 4096.0 / (double)n) + 10;
}

int main(int argc, char** argv) {
  for (int i = 1; i + 1 < argc; i += 2) {
    if (strcmp(argv[i], "--iterations") == 0) iterations = atoi(argv[i + 1]);
    else if (strcmp(argv[i], "--rounds") == 0) rounds = atoi(argv[i + 1]);
  }
  if (iterations < 1 || rounds < 1) {
    fprintf(stderr, "usage: bench_shmem_mpi [--iterations N>0] [--rounds N>0]\n");
    return 2;
  }
  int provided = 0, size = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  shmem_init();
  expect(shmem_my_pe() == me && shmem_n_pes() == size, "PE numbers are MPI_COMM_WORLD ranks");
  if (size < 2) {
    if (me == 0) fprintf(stderr, "bench_shmem_mpi: needs at least 2 PEs\n");
    shmem_finalize();
    MPI_Finalize();
    return 2;
  }
  /* The partner: the lowest rank not on PE 0's node, else 1. */
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int with_zero = me == 0, candidate, first;
  MPI_Allreduce(MPI_IN_PLACE, &with_zero, 1, MPI_INT, MPI_MAX, node);
  MPI_Comm_free(&node);
  candidate = with_zero ? size : me;
  MPI_Allreduce(&candidate, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  partner = first < size ? first : 1;

  sym = shmem_calloc(kWinBytes, 1);
  MPI_Win_allocate(kWinBytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win_base, &win);
  memset(win_base, 0, kWinBytes);
  MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
  src = malloc(kMaxBytes);
  dst = malloc(kMaxBytes);
  if (!sym || !src || !dst) {
    fprintf(stderr, "bench_shmem_mpi: PE %d: out of memory\n", me);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  for (size_t i = 0; i < kMaxBytes; ++i) src[i] = (char)(i * 131 + 7);
  shmem_barrier_all();
  MPI_Barrier(MPI_COMM_WORLD);

  if (me == 0) {
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPI_Get_library_version(lib, &len);
    char* nl = strchr(lib, '\n');
    if (nl) *nl = 0;
    printf("# bench_shmem_mpi: PEs 0 and %d of %d (%s node), %s\n", partner, size,
           first < size ? "another" : "the same", lib);
    printf("# mean us per operation, best of %d rounds; ours and raw MPI alternate\n", rounds);
    printf("# %-26s %8s %10s %10s %8s\n", "operation", "bytes", "ours", "raw MPI", "ratio");
  }
  static const size_t sizes[] = {8, 64, 512, 4096, 32768, 262144, kMaxBytes};
  const int nsizes = (int)(sizeof sizes / sizeof sizes[0]);
  for (int k = 0; k < nsizes; ++k)
    line("putmem+quiet", sizes[k], put_ours, put_mpi, count_for(sizes[k]), 0);
  for (int k = 0; k < nsizes; ++k)
    line("getmem", sizes[k], get_ours, get_mpi, count_for(sizes[k]), 0);
  line("fetch_add", 8, fadd_ours, fadd_mpi, iterations, 0);
  line("compare_swap", 8, cas_ours_fn, cas_mpi_fn, iterations, 0);
  line("put_signal round trip", 8, pingpong_ours, pingpong_mpi, iterations / 4 + 1, 1);

  /* Data: a put of 1 MiB read by the partner, and a get of it back. */
  if (me == 0) {
    shmem_putmem(sym, src, kMaxBytes, partner);
    shmem_quiet();
  }
  shmem_barrier_all();
  if (me == partner) expect(memcmp(sym, src, kMaxBytes) == 0, "1 MiB put arrives");
  if (me == 0) {
    memset(dst, 0, kMaxBytes);
    shmem_getmem(dst, sym, kMaxBytes, partner);
    expect(memcmp(dst, src, kMaxBytes) == 0, "1 MiB get reads it back");
  }
  int all = ok;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (me == 0) printf(all ? "data check: passed\n" : "data check: FAILED\n");
  MPI_Win_unlock_all(win);
  MPI_Win_free(&win);
  shmem_free(sym);
  free(src);
  free(dst);
  shmem_finalize();
  MPI_Finalize();
  return all ? 0 : 1;
}
