/*
 * The OpenSHMEM 1.6 routines beside the nearest operation that existed
 * before them, on one pair of PEs: PE 0 and its partner, the first PE on
 * another node (host name) when the PEs span nodes, else PE 1. One portable source: it builds against
 * an OpenSHMEM 1.6 library (ours, DART::shmem and oshcc) and against
 * Sandia OpenSHMEM 1.5, whose shmemx_ extensions have four of the routines
 * (see "Names" below), so that scripts/bench-shmem16-compare.sh measures
 * both with the same program.
 *
 * Rows (new routine | nearest existing operation). PE 0 initiates, the
 * other PEs wait in shmem_barrier_all; elements are 8 bytes (long); a
 * block layout is nb blocks of b elements, block k at element 2*b*k on
 * both sides (a gap as wide as the block), for b = 1, 8, 64 and
 * nb = 4, 16, 64:
 *   ibput_vs_iput.b<b>    shmem_long_ibput + shmem_quiet | the same elements
 *                         by b shmem_long_iput (element j of every block,
 *                         stride 2b) + shmem_quiet
 *   ibput_vs_putmem.b<b>  shmem_long_ibput + shmem_quiet | nb shmem_putmem,
 *                         one per block, + shmem_quiet
 *   ibget_vs_iget.b<b>    shmem_long_ibget | b shmem_long_iget
 *   ibget_vs_getmem.b<b>  shmem_long_ibget | nb shmem_getmem, one per block
 *   signal_add_vs_fetch_add  shmem_signal_add + shmem_quiet |
 *                         shmem_uint64_atomic_fetch_add (blocking)
 *   signal_add_vs_add     shmem_signal_add + shmem_quiet |
 *                         shmem_uint64_atomic_add + shmem_quiet
 *   pe_quiet_vs_quiet     8-byte shmem_putmem + shmem_pe_quiet(partner only) |
 *                         8-byte shmem_putmem + shmem_quiet
 *   inscan_vs_reduce, exscan_vs_reduce  every PE, SHMEM_TEAM_WORLD:
 *                         shmem_long_sum_inscan / shmem_long_sum_exscan |
 *                         shmem_long_sum_reduce, 8 B .. 64 KiB (the slowest
 *                         PE of each batch)
 * The size column is the bytes one operation moves (per PE for the scans).
 *
 * Timing: clock_gettime(CLOCK_MONOTONIC) around a batch of operations; a
 * row runs --rounds rounds of one batch of the new routine and one of its
 * baseline, the order alternating from round to round, and prints the
 * median per operation of each. A batch of the other rows is --iterations
 * operations up to 4 KiB, fewer in proportion above; of the block rows
 * 4 * --iterations / (b + nb) (at least 10), since an operation there is
 * up to b + nb transfers: every row then costs about the same, and a run
 * across hosts stays within minutes.
 *
 * Names: with OpenSHMEM 1.6 (SHMEM_MINOR_VERSION >= 6) the standard names.
 * With an older header and Sandia OpenSHMEM's extensions (its shmemx.h,
 * recognised by HAVE_SHMEMX_WTIME and SHMEMX_CTX_BOUNCE_BUFFER) the
 * shmemx_ forms: shmemx_long_ibput, shmemx_long_ibget, shmemx_signal_add.
 * Sandia OpenSHMEM 1.5.3 has neither shmem_pe_quiet nor the scans: those
 * rows are left out with a '#' line; a later release with
 * shmemx_long_sum_inscan/exscan can be measured with -DBENCH16_HAVE_SCAN=1.
 *
 * The data moved and every fetched value are checked: "data check:
 * passed", or "data check: FAILED" and exit status 1.
 *
 * Output: '#' comments, then rows
 *   row <name> <bytes> <new us> <baseline us> <new/baseline>
 * Usage: oshrun -n 2 bench_shmem16 [--iterations N] [--rounds N]
 */
#include <shmem.h>
#include <shmemx.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#if SHMEM_MAJOR_VERSION > 1 || SHMEM_MINOR_VERSION >= 6
#define BENCH16_SHMEMX 0
#elif defined(HAVE_SHMEMX_WTIME) && defined(SHMEMX_CTX_BOUNCE_BUFFER)
#define BENCH16_SHMEMX 1
#else
#error "bench_shmem16 needs OpenSHMEM 1.6, or Sandia OpenSHMEM's shmemx_ forms of its routines"
#endif

#if BENCH16_SHMEMX
#define b16_long_ibput shmemx_long_ibput
#define b16_long_ibget shmemx_long_ibget
#define b16_signal_add shmemx_signal_add
#define BENCH16_HAVE_PE_QUIET 0
#ifndef BENCH16_HAVE_SCAN
#define BENCH16_HAVE_SCAN 0
#endif
#define b16_long_sum_inscan shmemx_long_sum_inscan
#define b16_long_sum_exscan shmemx_long_sum_exscan
#define BENCH16_IMPL "shmemx_ forms (Sandia OpenSHMEM)"
#else
#define b16_long_ibput shmem_long_ibput
#define b16_long_ibget shmem_long_ibget
#define b16_signal_add shmem_signal_add
#define BENCH16_HAVE_PE_QUIET 1
#define BENCH16_HAVE_SCAN 1
#define b16_long_sum_inscan shmem_long_sum_inscan
#define b16_long_sum_exscan shmem_long_sum_exscan
#define BENCH16_IMPL "OpenSHMEM 1.6 names"
#endif

enum {
  kMaxBlock = 64,
  kMaxBlocks = 64,
  kRegion = 2 * kMaxBlock * kMaxBlocks, /* elements */
  kMaxScan = 65536 / 8,
  kHostLen = 256
};

static int me, npes, partner, iterations = 1000, rounds = 11;
static long failures;

static long* sym_region; /* ibput target / ibget source, kRegion elements */
static long* loc_region; /* ibput source / ibget target */
static long* sym_small;  /* 8-byte put of the pe_quiet rows */
static uint64_t* sym_sig;
static uint64_t* sym_ctr_fadd;
static uint64_t* sym_ctr_add;
static long* scan_src;
static long* scan_dst;
static double* sym_t;
static double* sym_tmax;
static int* sym_i;
static int* sym_imin;
static char* sym_host; /* this PE's host name */

static uint64_t sent_sig, sent_add, next_fadd;

static void check(int ok, const char* what) {
  if (!ok && failures++ < 5) fprintf(stderr, "bench_shmem16: PE %d: check failed: %s\n", me, what);
}

static double now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

static int cmp_double(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

static double median(double* v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* The shape of the current row: block size b, blocks nb, scan elements. */
static size_t cur_b, cur_nb;
#if BENCH16_HAVE_SCAN
static size_t cur_n;
#endif

typedef void (*op_fn)(int count);

/* ---- block transfers --------------------------------------------------- */

static void ibput_new(int count) {
  const ptrdiff_t s = (ptrdiff_t)(2 * cur_b);
  for (int i = 0; i < count; ++i) {
    b16_long_ibput(sym_region, loc_region, s, s, cur_b, cur_nb, partner);
    shmem_quiet();
  }
}
static void ibput_iput(int count) {
  const ptrdiff_t s = (ptrdiff_t)(2 * cur_b);
  for (int i = 0; i < count; ++i) {
    for (size_t j = 0; j < cur_b; ++j) shmem_long_iput(sym_region + j, loc_region + j, s, s, cur_nb, partner);
    shmem_quiet();
  }
}
static void ibput_putmem(int count) {
  for (int i = 0; i < count; ++i) {
    for (size_t k = 0; k < cur_nb; ++k)
      shmem_putmem(sym_region + 2 * cur_b * k, loc_region + 2 * cur_b * k, cur_b * sizeof(long), partner);
    shmem_quiet();
  }
}
static void ibget_new(int count) {
  const ptrdiff_t s = (ptrdiff_t)(2 * cur_b);
  for (int i = 0; i < count; ++i) b16_long_ibget(loc_region, sym_region, s, s, cur_b, cur_nb, partner);
}
static void ibget_iget(int count) {
  const ptrdiff_t s = (ptrdiff_t)(2 * cur_b);
  for (int i = 0; i < count; ++i)
    for (size_t j = 0; j < cur_b; ++j) shmem_long_iget(loc_region + j, sym_region + j, s, s, cur_nb, partner);
}
static void ibget_getmem(int count) {
  for (int i = 0; i < count; ++i)
    for (size_t k = 0; k < cur_nb; ++k)
      shmem_getmem(loc_region + 2 * cur_b * k, sym_region + 2 * cur_b * k, cur_b * sizeof(long), partner);
}

/* ---- signal add, atomics ----------------------------------------------- */

static void sig_add_new(int count) {
  for (int i = 0; i < count; ++i) {
    b16_signal_add(sym_sig, 1, partner);
    shmem_quiet();
  }
  sent_sig += (uint64_t)count;
}
static void fadd_base(int count) {
  for (int i = 0; i < count; ++i)
    check(shmem_uint64_atomic_fetch_add(sym_ctr_fadd, 1, partner) == next_fadd++, "fetch-add returns the count");
}
static void add_base(int count) {
  for (int i = 0; i < count; ++i) {
    shmem_uint64_atomic_add(sym_ctr_add, 1, partner);
    shmem_quiet();
  }
  sent_add += (uint64_t)count;
}

/* ---- per-PE completion ------------------------------------------------- */

#if BENCH16_HAVE_PE_QUIET
static void put_quiet(int count) {
  for (int i = 0; i < count; ++i) {
    shmem_putmem(sym_small, &sent_sig, sizeof sent_sig, partner);
    shmem_quiet();
  }
}
static void put_pe_quiet(int count) {
  for (int i = 0; i < count; ++i) {
    shmem_putmem(sym_small, &sent_sig, sizeof sent_sig, partner);
    shmem_pe_quiet(&partner, 1);
  }
}
#endif

/* ---- scans ------------------------------------------------------------- */

#if BENCH16_HAVE_SCAN
static void inscan_new(int count) {
  for (int i = 0; i < count; ++i) b16_long_sum_inscan(SHMEM_TEAM_WORLD, scan_dst, scan_src, cur_n);
}
static void exscan_new(int count) {
  for (int i = 0; i < count; ++i) b16_long_sum_exscan(SHMEM_TEAM_WORLD, scan_dst, scan_src, cur_n);
}
static void reduce_base(int count) {
  for (int i = 0; i < count; ++i) shmem_long_sum_reduce(SHMEM_TEAM_WORLD, scan_dst, scan_src, cur_n);
}
#endif

/* ---- timing ------------------------------------------------------------ */

/* Microseconds per operation of `count` calls of fn: PE 0's alone, or
 * with every PE taking part the slowest PE's. All PEs call it. */
static double timed(op_fn fn, int count, int all) {
  shmem_barrier_all();
  const double t0 = now_us();
  if (all || me == 0) fn(count);
  *sym_t = (now_us() - t0) / count;
  shmem_barrier_all();
  if (!all) return *sym_t;
  shmem_double_max_reduce(SHMEM_TEAM_WORLD, sym_tmax, sym_t, 1);
  return *sym_tmax;
}

static void row(const char* name, size_t bytes, op_fn fresh, op_fn base, int count, int all) {
  double t[2][64];
  const int r_n = rounds < 64 ? rounds : 64;
  op_fn fns[2] = {fresh, base};
  (void)timed(fresh, count / 10 + 1, all);
  (void)timed(base, count / 10 + 1, all);
  for (int r = 0; r < r_n; ++r)
    for (int k = 0; k < 2; ++k) {
      const int i = (k + r) % 2;
      t[i][r] = timed(fns[i], count, all);
    }
  const double a = median(t[0], r_n), b = median(t[1], r_n);
  if (me == 0) {
    printf("row %-28s %8zu %10.3f %10.3f %8.2f\n", name, bytes, a, b, a / b);
    fflush(stdout);
  }
}

#if BENCH16_HAVE_SCAN
static int count_for(size_t bytes) {
  return bytes <= 4096 ? iterations : (int)(iterations * 4096.0 / (double)bytes) + 10;
}
#endif

static int count_for_blocks(size_t b, size_t nb) {
  const int n = (int)(4.0 * iterations / (double)(b + nb));
  return n > 10 ? n : 10;
}

/* ---- data checks ------------------------------------------------------- */

static long pattern(size_t i, int round) { return (long)(i * 2654435761u) + round; }

/* One ibput and one ibget of the current layout: the blocks arrive, the
 * gaps stay as they were. */
static void check_blocks(int round) {
  const size_t s = 2 * cur_b, span = s * cur_nb;
  for (size_t i = 0; i < span; ++i) sym_region[i] = -1;
  for (size_t i = 0; i < span; ++i) loc_region[i] = pattern(i, round);
  shmem_barrier_all();
  if (me == 0) {
    b16_long_ibput(sym_region, loc_region, (ptrdiff_t)s, (ptrdiff_t)s, cur_b, cur_nb, partner);
    shmem_quiet();
  }
  shmem_barrier_all();
  if (me == partner) {
    int ok = 1;
    for (size_t i = 0; i < span; ++i) ok &= sym_region[i] == (i % s < cur_b ? pattern(i, round) : -1);
    check(ok, "ibput moves the blocks and leaves the gaps");
    for (size_t i = 0; i < span; ++i) sym_region[i] = pattern(i, round + 1);
  }
  shmem_barrier_all();
  if (me == 0) {
    for (size_t i = 0; i < span; ++i) loc_region[i] = -1;
    b16_long_ibget(loc_region, sym_region, (ptrdiff_t)s, (ptrdiff_t)s, cur_b, cur_nb, partner);
    int ok = 1;
    for (size_t i = 0; i < span; ++i) ok &= loc_region[i] == (i % s < cur_b ? pattern(i, round + 1) : -1);
    check(ok, "ibget fetches the blocks and leaves the gaps");
  }
  shmem_barrier_all();
}

int main(int argc, char** argv) {
  for (int i = 1; i + 1 < argc; i += 2) {
    if (strcmp(argv[i], "--iterations") == 0) iterations = atoi(argv[i + 1]);
    else if (strcmp(argv[i], "--rounds") == 0) rounds = atoi(argv[i + 1]);
  }
  if (iterations < 1 || rounds < 1 || rounds > 64) {
    fprintf(stderr, "usage: bench_shmem16 [--iterations N>0] [--rounds 1..64]\n");
    return 2;
  }
  shmem_init();
  me = shmem_my_pe();
  npes = shmem_n_pes();
  if (npes < 2) {
    if (me == 0) fprintf(stderr, "bench_shmem16: needs at least 2 PEs\n");
    shmem_finalize();
    return 2;
  }
  sym_region = shmem_calloc(kRegion, sizeof(long));
  sym_small = shmem_calloc(1, sizeof(long));
  sym_sig = shmem_calloc(1, sizeof(uint64_t));
  sym_ctr_fadd = shmem_calloc(1, sizeof(uint64_t));
  sym_ctr_add = shmem_calloc(1, sizeof(uint64_t));
  scan_src = shmem_calloc(kMaxScan, sizeof(long));
  scan_dst = shmem_calloc(kMaxScan, sizeof(long));
  sym_t = shmem_calloc(1, sizeof(double));
  sym_tmax = shmem_calloc(1, sizeof(double));
  sym_i = shmem_calloc(1, sizeof(int));
  sym_imin = shmem_calloc(1, sizeof(int));
  sym_host = shmem_calloc(kHostLen, 1);
  loc_region = calloc(kRegion, sizeof(long));
  if (!sym_region || !sym_small || !sym_sig || !sym_ctr_fadd || !sym_ctr_add || !scan_src || !scan_dst || !sym_t ||
      !sym_tmax || !sym_i || !sym_imin || !sym_host || !loc_region) {
    fprintf(stderr, "bench_shmem16: PE %d: out of memory\n", me);
    shmem_global_exit(1);
  }
  /* The partner: the lowest PE not on PE 0's node, else PE 1. A node is
   * a host name, as MPI decides it (SHMEM_TEAM_SHARED is narrower where a
   * library cannot map a node mate's memory). */
  gethostname(sym_host, kHostLen - 1);
  shmem_barrier_all();
  char host0[kHostLen];
  shmem_getmem(host0, sym_host, kHostLen, 0);
  *sym_i = strcmp(host0, sym_host) == 0 ? npes : me;
  shmem_barrier_all();
  shmem_int_min_reduce(SHMEM_TEAM_WORLD, sym_imin, sym_i, 1);
  const int other_node = *sym_imin < npes;
  partner = other_node ? *sym_imin : 1;

  if (me == 0) {
    printf("# bench_shmem16: PEs 0 and %d of %d (%s node), %s, %s\n", partner, npes,
           other_node ? "another" : "the same", SHMEM_VENDOR_STRING, BENCH16_IMPL);
    printf("# median us per operation of %d rounds; new routine and baseline alternate\n", rounds);
    printf("# %-30s %8s %10s %10s %8s\n", "new_vs_baseline", "bytes", "new", "baseline", "ratio");
    fflush(stdout);
  }

  static const size_t blocks[] = {1, 8, 64}, counts[] = {4, 16, 64};
  int round = 0;
  for (int bi = 0; bi < 3; ++bi)
    for (int ci = 0; ci < 3; ++ci) {
      cur_b = blocks[bi];
      cur_nb = counts[ci];
      const size_t bytes = cur_b * cur_nb * sizeof(long);
      char name[64];
      check_blocks(round += 2);
      snprintf(name, sizeof name, "ibput_vs_iput.b%zu", cur_b);
      row(name, bytes, ibput_new, ibput_iput, count_for_blocks(cur_b, cur_nb), 0);
      snprintf(name, sizeof name, "ibput_vs_putmem.b%zu", cur_b);
      row(name, bytes, ibput_new, ibput_putmem, count_for_blocks(cur_b, cur_nb), 0);
      snprintf(name, sizeof name, "ibget_vs_iget.b%zu", cur_b);
      row(name, bytes, ibget_new, ibget_iget, count_for_blocks(cur_b, cur_nb), 0);
      snprintf(name, sizeof name, "ibget_vs_getmem.b%zu", cur_b);
      row(name, bytes, ibget_new, ibget_getmem, count_for_blocks(cur_b, cur_nb), 0);
    }

  row("signal_add_vs_fetch_add", 8, sig_add_new, fadd_base, iterations, 0);
  row("signal_add_vs_add", 8, sig_add_new, add_base, iterations, 0);
  /* Every add has completed (a shmem_quiet after each, or blocking): PE 0
   * sends the partner the numbers of adds it made, to compare with its
   * words. */
  shmem_barrier_all();
  if (me == 0) {
    uint64_t totals[3] = {sent_sig, sent_add, next_fadd};
    shmem_putmem(scan_src, totals, sizeof totals, partner);
    shmem_quiet();
  }
  shmem_barrier_all();
  if (me == partner) {
    uint64_t totals[3];
    memcpy(totals, scan_src, sizeof totals);
    check(shmem_signal_fetch(sym_sig) == totals[0], "signal_add adds every time");
    check(*sym_ctr_add == totals[1], "atomic_add adds every time");
    check(*sym_ctr_fadd == totals[2], "atomic_fetch_add adds every time");
  }
  shmem_barrier_all();

#if BENCH16_HAVE_PE_QUIET
  row("pe_quiet_vs_quiet", 8, put_pe_quiet, put_quiet, iterations, 0);
  if (me == 0) {
    const long v = 0x5eed16;
    shmem_putmem(sym_small, &v, sizeof v, partner);
    shmem_pe_quiet(&partner, 1);
    long got = 0;
    shmem_getmem(&got, sym_small, sizeof got, partner);
    check(got == v, "put completed by shmem_pe_quiet is visible");
  }
  shmem_barrier_all();
#else
  if (me == 0) printf("# pe_quiet_vs_quiet: left out (no shmem_pe_quiet in this library)\n");
#endif

#if BENCH16_HAVE_SCAN
  /* Element i of PE p's source is p + i: the inclusive scan at PE p holds
   * sum_{q<=p} (q + i), the exclusive one sum_{q<p} (q + i), 0 on PE 0. */
  for (size_t i = 0; i < kMaxScan; ++i) scan_src[i] = me + (long)i;
  static const size_t scan_bytes[] = {8, 64, 512, 4096, 32768, 65536};
  for (int k = 0; k < 6; ++k) {
    cur_n = scan_bytes[k] / sizeof(long);
    row("inscan_vs_reduce", scan_bytes[k], inscan_new, reduce_base, count_for(scan_bytes[k]), 1);
    row("exscan_vs_reduce", scan_bytes[k], exscan_new, reduce_base, count_for(scan_bytes[k]), 1);
  }
  cur_n = kMaxScan;
  shmem_barrier_all();
  inscan_new(1);
  int ok = 1;
  for (size_t i = 0; i < cur_n; ++i) ok &= scan_dst[i] == (long)me * (me + 1) / 2 + (long)(me + 1) * (long)i;
  check(ok, "inclusive scan sums PEs 0..me");
  exscan_new(1);
  ok = 1;
  for (size_t i = 0; i < cur_n; ++i) ok &= scan_dst[i] == (long)me * (me - 1) / 2 + (long)me * (long)i;
  check(ok, "exclusive scan sums PEs 0..me-1 (0 on PE 0)");
  shmem_barrier_all();
#else
  if (me == 0)
    printf(
        "# inscan_vs_reduce, exscan_vs_reduce: left out (no sum scans in this library; "
        "-DBENCH16_HAVE_SCAN=1 for shmemx_long_sum_inscan/exscan)\n");
#endif

  *sym_i = failures == 0;
  shmem_barrier_all();
  shmem_int_min_reduce(SHMEM_TEAM_WORLD, sym_imin, sym_i, 1);
  const int passed = *sym_imin == 1;
  if (me == 0) printf(passed ? "data check: passed\n" : "data check: FAILED\n");
  shmem_barrier_all();
  shmem_free(sym_region);
  shmem_free(sym_small);
  shmem_free(sym_sig);
  shmem_free(sym_ctr_fadd);
  shmem_free(sym_ctr_add);
  shmem_free(scan_src);
  shmem_free(scan_dst);
  shmem_free(sym_t);
  shmem_free(sym_tmax);
  shmem_free(sym_i);
  shmem_free(sym_imin);
  shmem_free(sym_host);
  free(loc_region);
  shmem_finalize();
  return passed ? 0 : 1;
}
