/*
 * OpenSHMEM latencies on PEs 0 and 1, against hardware baselines measured
 * in the same run. One portable source, OpenSHMEM interface only, so that
 * scripts/bench-shmem-compare.sh builds it unchanged against DART's
 * OpenSHMEM (DART::shmem, oshcc), Open MPI's oshmem and OSHMPI.
 *
 * Operations (PE 0 initiates, PE 1 is the target; PEs 2.. wait in
 * shmem_barrier_all; collectives run on all PEs):
 *   put8_quiet         shmem_putmem of 8 B + shmem_quiet
 *   get8               shmem_getmem of 8 B
 *   p_quiet, g         shmem_long_p + shmem_quiet, shmem_long_g
 *   put_quiet_<bytes>  shmem_putmem + shmem_quiet, 8 B .. 1 MiB (powers of 4,
 *                      then 1 MiB); memcpy_<bytes> the local copy of each size
 *   pingpong_signal_rt round trip: shmem_putmem_signal(8 B, SIGNAL_SET) and
 *                      shmem_signal_wait_until on the reply          [1.5]
 *   pingpong_flag_rt   round trip: shmem_putmem + shmem_quiet + shmem_long_p
 *                      of a flag, shmem_long_wait_until on the reply
 *   fetch_add          shmem_long_atomic_fetch_add (blocking)
 *   fetch_add_nbi      shmem_long_atomic_fetch_add_nbi, 64 per shmem_quiet,
 *                      per operation                                 [1.5]
 *   barrier_all        shmem_barrier_all
 *   broadcast8, alltoall8  8 B per PE: team forms (shmem_broadcastmem,
 *                      shmem_alltoallmem on SHMEM_TEAM_WORLD) [1.5], else
 *                      the active-set forms (shmem_broadcast64, _alltoall64)
 *   ctx_{private,shared}_<N>t  N threads of PE 0 (N = 1..--max-threads), each
 *                      doing 8 B shmem_ctx_putmem + shmem_ctx_quiet to PE 1,
 *                      each in its own SHMEM_CTX_PRIVATE context, or all in
 *                      one shared context: operations per second and the
 *                      ratio to one thread (needs SHMEM_THREAD_MULTIPLE)
 * Baselines (PE 0):
 *   cacheline_rt, cacheline_oneway  two threads of PE 0, pinned to different
 *                      cores when there are two, ping-pong a flag on one cache
 *                      line (the other PEs asleep meanwhile): the round trip
 *                      and the one-way hand-off (half of it)
 *   cpu_atomic         __atomic_fetch_add on a local word
 *   memcpy8            memcpy of 8 B between local buffers
 *
 * Each PE pins itself to CPU (PE mod CPUs) unless --no-pin; the threads
 * of the baseline and of the contexts test pin to CPUs 0, 1, ...
 *
 * Timing: clock_gettime(CLOCK_MONOTONIC) around batches of operations; a
 * round is 16 batches and yields their median per operation; a figure is
 * the best round of --rounds, the operations measured in a rotating order.
 * Collectives take the slowest PE of each batch.
 *
 * Feature guards: the 1.5 parts are compiled when the header says 1.5 or
 * later, or when the build defines BENCH_HAVE_SIGNAL (put with signal),
 * BENCH_HAVE_NBI_AMO (non-blocking atomics) or BENCH_HAVE_TEAMS (team
 * collectives) to 1 (an implementation whose header says 1.4 but that has
 * them); BENCH_HAVE_CTX (contexts and shmem_init_thread, 1.4) likewise.
 * Operations left out print "n/a".
 *
 * Output: '#' comments, then machine-readable lines
 *   RESULT <name> <value|n/a> <ns|ops/s|x>
 *   SIZE <bytes> <put+quiet ns> <memcpy ns> <put MB/s>
 * and the tables "metric | ns | baseline | ratio" and latency against size.
 * The data moved and every fetched value are checked: "data check: passed",
 * or "data check: FAILED" and exit status 1.
 *
 * Usage: oshrun -n 2 bench_shmem [--iterations N] [--rounds N]
 *          [--max-threads N] [--thread-level single|multiple] [--no-pin]
 */
#define _GNU_SOURCE
#include <shmem.h>

#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#if defined(SHMEM_MAJOR_VERSION) && (SHMEM_MAJOR_VERSION > 1 || SHMEM_MINOR_VERSION >= 5)
#define BENCH_SHMEM_15 1
#else
#define BENCH_SHMEM_15 0
#endif
#if defined(SHMEM_MAJOR_VERSION) && (SHMEM_MAJOR_VERSION > 1 || SHMEM_MINOR_VERSION >= 4)
#define BENCH_SHMEM_14 1
#else
#define BENCH_SHMEM_14 0
#endif
#ifndef BENCH_HAVE_SIGNAL
#define BENCH_HAVE_SIGNAL BENCH_SHMEM_15
#endif
#ifndef BENCH_HAVE_NBI_AMO
#define BENCH_HAVE_NBI_AMO BENCH_SHMEM_15
#endif
#ifndef BENCH_HAVE_TEAMS
#define BENCH_HAVE_TEAMS BENCH_SHMEM_15
#endif
#ifndef BENCH_HAVE_CTX
#define BENCH_HAVE_CTX BENCH_SHMEM_14
#endif

#define NBATCH 16
#define NBI_BATCH 64
#define MAX_BYTES (1L << 20)
#define MAX_METRICS 64

/* ---- options, clocks, helpers ----------------------------------------- */

static long opt_iterations = 20000;
static int opt_rounds = 7;
static int opt_max_threads = 2;
static int opt_multiple = 1;
static int opt_pin = 1;

static int me, npes, ncpus;
static long failures;

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void check(int ok, const char* what) {
  if (!ok && failures++ < 5) fprintf(stderr, "bench_shmem: PE %d: check failed: %s\n", me, what);
}

/* Keeps the compiler from dropping a computation. */
static void escape(void* p) { __asm__ volatile("" : : "g"(p) : "memory"); }

static int cmp_double(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

static double median(double* v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static int pin_to(int cpu) {
  if (!opt_pin || ncpus < 1) return 0;
  cpu_set_t s;
  CPU_ZERO(&s);
  CPU_SET(cpu % ncpus, &s);
  return pthread_setaffinity_np(pthread_self(), sizeof s, &s) == 0;
}

/* ---- symmetric and local buffers --------------------------------------- */

static char* sym_big;     /* MAX_BYTES: put target of the size sweep */
static char* sym_small;   /* 8 B data word for put/get */
static long* sym_word;    /* p / g word */
static long* sym_ctr;     /* fetch-add counter */
static long* sym_ctr_nbi; /* fetch-add nbi counter */
static char* sym_pp;      /* ping-pong: data at 0, signal at 64, flag at 128 */
static char* sym_coll;    /* collectives: src at 0, dest at 4096 */
static char* sym_ctxbuf;  /* contexts test: 64 B per thread */
static double* sym_time;  /* per-PE batch time, for the slowest PE */
static long* sym_done;    /* PE 1's wake-up word during solo phases */
static long* psync[2];    /* active-set collectives, alternately */
static char* loc_src;     /* MAX_BYTES local source */
static char* loc_dst;     /* MAX_BYTES local destination */

/* ---- the operations ---------------------------------------------------- */

/* Each runs n operations on every PE and returns the nanoseconds PE 0 (or
 * the calling PE, for collectives) spent on them. */
typedef double (*op_fn)(long n, long size);

static long g_sink;

static double op_memcpy(long n, long size) {
  double t0 = now_ns();
  if (me == 0)
    for (long i = 0; i < n; ++i) {
      memcpy(loc_dst, loc_src, (size_t)size);
      escape(loc_dst);
    }
  return now_ns() - t0;
}

static double op_cpu_atomic(long n, long size) {
  (void)size;
  static long word;
  long s = 0;
  double t0 = now_ns();
  if (me == 0)
    for (long i = 0; i < n; ++i) s += __atomic_fetch_add(&word, 1, __ATOMIC_SEQ_CST);
  double t = now_ns() - t0;
  g_sink += s;
  return t;
}

static double op_put_quiet(long n, long size) {
  double t0 = now_ns();
  if (me == 0) {
    char* dst = size == 8 ? sym_small : sym_big;
    for (long i = 0; i < n; ++i) {
      shmem_putmem(dst, loc_src, (size_t)size, 1);
      shmem_quiet();
    }
  }
  return now_ns() - t0;
}

static double op_get8(long n, long size) {
  (void)size;
  double t0 = now_ns();
  if (me == 0)
    for (long i = 0; i < n; ++i) {
      shmem_getmem(loc_dst, sym_small, 8, 1);
      escape(loc_dst);
    }
  return now_ns() - t0;
}

static double op_p_quiet(long n, long size) {
  (void)size;
  double t0 = now_ns();
  if (me == 0)
    for (long i = 0; i < n; ++i) {
      shmem_long_p(sym_word, i, 1);
      shmem_quiet();
    }
  return now_ns() - t0;
}

static double op_g(long n, long size) {
  (void)size;
  long s = 0;
  double t0 = now_ns();
  if (me == 0)
    for (long i = 0; i < n; ++i) s += shmem_long_g(sym_word, 1);
  double t = now_ns() - t0;
  g_sink += s;
  return t;
}

/* Ping-pong sequence numbers: PEs 0 and 1 run the same iterations, so
 * their counts agree. */
#if BENCH_HAVE_SIGNAL
static uint64_t pp_seq;

static double op_pingpong_signal(long n, long size) {
  (void)size;
  uint64_t* sig = (uint64_t*)(sym_pp + 64);
  uint64_t* data = (uint64_t*)sym_pp;
  uint64_t out;
  long bad = 0;
  double t0 = now_ns();
  if (me == 0) {
    for (long i = 0; i < n; ++i) {
      out = ++pp_seq;
      shmem_putmem_signal(data, &out, 8, sig, pp_seq, SHMEM_SIGNAL_SET, 1);
      shmem_signal_wait_until(sig, SHMEM_CMP_GE, pp_seq);
      bad += *(volatile uint64_t*)data != pp_seq;
    }
  } else if (me == 1) {
    for (long i = 0; i < n; ++i) {
      ++pp_seq;
      shmem_signal_wait_until(sig, SHMEM_CMP_GE, pp_seq);
      bad += *(volatile uint64_t*)data != pp_seq;
      out = pp_seq;
      shmem_putmem_signal(data, &out, 8, sig, pp_seq, SHMEM_SIGNAL_SET, 0);
    }
  }
  double t = now_ns() - t0;
  check(bad == 0, "put-with-signal ping-pong data");
  return t;
}
#endif

static long pp_flag_seq;

static double op_pingpong_flag(long n, long size) {
  (void)size;
  long* flag = (long*)(sym_pp + 128);
  long* data = (long*)(sym_pp + 192);
  long out;
  long bad = 0;
  double t0 = now_ns();
  if (me < 2) {
    const int peer = 1 - me;
    for (long i = 0; i < n; ++i) {
      ++pp_flag_seq;
      if (me == 1) {
        shmem_long_wait_until(flag, SHMEM_CMP_GE, pp_flag_seq);
        bad += *(volatile long*)data != pp_flag_seq;
      }
      out = pp_flag_seq;
      shmem_putmem(data, &out, 8, peer);
      shmem_quiet();
      shmem_long_p(flag, pp_flag_seq, peer);
      if (me == 0) {
        shmem_long_wait_until(flag, SHMEM_CMP_GE, pp_flag_seq);
        bad += *(volatile long*)data != pp_flag_seq;
      }
    }
  }
  double t = now_ns() - t0;
  check(bad == 0, "put+quiet+p ping-pong data");
  return t;
}

static long fadd_expect;

static double op_fetch_add(long n, long size) {
  (void)size;
  long bad = 0;
  double t0 = now_ns();
  if (me == 0)
    for (long i = 0; i < n; ++i) bad += shmem_long_atomic_fetch_add(sym_ctr, 1, 1) != fadd_expect++;
  double t = now_ns() - t0;
  check(bad == 0, "fetch-add values");
  return t;
}

#if BENCH_HAVE_NBI_AMO
static long fadd_nbi_expect;

static double op_fetch_add_nbi(long n, long size) {
  (void)size;
  long fetched[NBI_BATCH];
  long bad = 0;
  double t0 = now_ns();
  if (me == 0)
    for (long i = 0; i < n; i += NBI_BATCH) {
      for (int j = 0; j < NBI_BATCH; ++j) shmem_long_atomic_fetch_add_nbi(&fetched[j], sym_ctr_nbi, 1, 1);
      shmem_quiet();
      /* The 64 values are the next 64 counts, in any order. */
      long sum = 0;
      for (int j = 0; j < NBI_BATCH; ++j) sum += fetched[j];
      bad += sum != NBI_BATCH * fadd_nbi_expect + NBI_BATCH * (NBI_BATCH - 1) / 2;
      fadd_nbi_expect += NBI_BATCH;
    }
  double t = now_ns() - t0;
  check(bad == 0, "non-blocking fetch-add values");
  return t;
}
#endif

static double op_barrier(long n, long size) {
  (void)size;
  double t0 = now_ns();
  for (long i = 0; i < n; ++i) shmem_barrier_all();
  return now_ns() - t0;
}

#if !BENCH_HAVE_TEAMS
static int coll_round; /* alternates the pSync arrays */
#endif

static double op_broadcast8(long n, long size) {
  (void)size;
  double t0 = now_ns();
  for (long i = 0; i < n; ++i) {
#if BENCH_HAVE_TEAMS
    shmem_broadcastmem(SHMEM_TEAM_WORLD, sym_coll + 4096, sym_coll, 8, 0);
#else
    shmem_broadcast64(sym_coll + 4096, sym_coll, 1, 0, 0, 0, npes, psync[coll_round++ & 1]);
#endif
  }
  return now_ns() - t0;
}

static double op_alltoall8(long n, long size) {
  (void)size;
  double t0 = now_ns();
  for (long i = 0; i < n; ++i) {
#if BENCH_HAVE_TEAMS
    shmem_alltoallmem(SHMEM_TEAM_WORLD, sym_coll + 4096, sym_coll, 8);
#else
    shmem_alltoall64(sym_coll + 4096, sym_coll, 1, 0, 0, npes, psync[coll_round++ & 1]);
#endif
  }
  return now_ns() - t0;
}

/* ---- the cache-line baseline: two threads of PE 0 ---------------------- */

/* The spin loops relax the core between loads, as waits do: a bare load
 * loop keeps pulling the line back from the writer. */
static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ volatile("yield" ::: "memory");
#endif
}

static struct {
  _Alignas(64) long flag;
  _Alignas(64) long n;
  pthread_barrier_t start;
  double batch[NBATCH];
  int pinned;
} cl;

static void* cl_responder(void* arg) {
  (void)arg;
  cl.pinned &= pin_to(1);
  pthread_barrier_wait(&cl.start);
  for (long i = 1; i <= cl.n; ++i) {
    while (__atomic_load_n(&cl.flag, __ATOMIC_ACQUIRE) != 2 * i - 1) cpu_relax();
    __atomic_store_n(&cl.flag, 2 * i, __ATOMIC_RELEASE);
  }
  return NULL;
}

static void* cl_initiator(void* arg) {
  (void)arg;
  cl.pinned &= pin_to(0);
  pthread_barrier_wait(&cl.start);
  const long per = cl.n / NBATCH;
  long i = 1;
  for (int b = 0; b < NBATCH; ++b) {
    double t0 = now_ns();
    for (long k = 0; k < per; ++k, ++i) {
      __atomic_store_n(&cl.flag, 2 * i - 1, __ATOMIC_RELEASE);
      while (__atomic_load_n(&cl.flag, __ATOMIC_ACQUIRE) != 2 * i) cpu_relax();
    }
    cl.batch[b] = (now_ns() - t0) / (double)per;
  }
  return NULL;
}

/* Round trip in ns, median of the batches (PE 0 only). */
static double cacheline_round(long n) {
  pthread_t a, b;
  cl.flag = 0;
  cl.n = n / NBATCH * NBATCH;
  cl.pinned = ncpus >= 2;
  pthread_barrier_init(&cl.start, NULL, 2);
  pthread_create(&b, NULL, cl_responder, NULL);
  pthread_create(&a, NULL, cl_initiator, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  pthread_barrier_destroy(&cl.start);
  pin_to(0);
  return median(cl.batch, NBATCH);
}

/* PE 0 runs a phase alone. With `sleep`, the other PEs wait for it
 * without taking a core (the cache-line baseline needs both), polling the
 * wake-up word with shmem_long_test every 200 us; otherwise they wait in
 * shmem_barrier_all, where every implementation makes progress (Open MPI's
 * oshmem completes a context's puts only while the target progresses, and
 * its shmem_test does not). */
static long solo_seq;

static void solo_begin(void) {
  shmem_barrier_all();
  ++solo_seq;
}

static void solo_end(int sleep) {
  if (sleep) {
    if (me == 0) {
      for (int pe = 1; pe < npes; ++pe) shmem_long_p(sym_done, solo_seq, pe);
      shmem_quiet();
    } else {
      while (!shmem_long_test(sym_done, SHMEM_CMP_GE, solo_seq)) usleep(200);
    }
  }
  shmem_barrier_all();
}

/* ---- the contexts test -------------------------------------------------- */

#if BENCH_HAVE_CTX
typedef struct {
  int tid, priv, err;
  long n;
  shmem_ctx_t shared;
  pthread_barrier_t* bar;
  double t0, t1;
} ctx_arg;

static void* ctx_worker(void* p) {
  ctx_arg* a = (ctx_arg*)p;
  pin_to(a->tid);
  shmem_ctx_t ctx = a->shared;
  if (a->priv && shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) != 0) a->err = 1;
  char src[8];
  memset(src, a->tid + 1, sizeof src);
  pthread_barrier_wait(a->bar);
  a->t0 = now_ns();
  if (!a->err)
    for (long i = 0; i < a->n; ++i) {
      shmem_ctx_putmem(ctx, sym_ctxbuf + 64 * a->tid, src, 8, 1);
      shmem_ctx_quiet(ctx);
    }
  a->t1 = now_ns();
  pthread_barrier_wait(a->bar);
  if (a->priv && !a->err) shmem_ctx_destroy(ctx);
  return NULL;
}

/* Operations per second of `nt` threads (0 if a context was refused). */
static int ctx_refused[2];

static double ctx_rate(int nt, int priv, long n) {
  pthread_t th[64];
  ctx_arg args[64];
  pthread_barrier_t bar;
  shmem_ctx_t shared = SHMEM_CTX_DEFAULT;
  if (!priv && shmem_ctx_create(0, &shared) != 0) {
    ctx_refused[0] = 1;
    return 0;
  }
  pthread_barrier_init(&bar, NULL, (unsigned)nt);
  for (int t = 0; t < nt; ++t) {
    args[t] = (ctx_arg){.tid = t, .priv = priv, .n = n, .shared = shared, .bar = &bar};
    pthread_create(&th[t], NULL, ctx_worker, &args[t]);
  }
  double first = 0, last = 0;
  int err = 0;
  for (int t = 0; t < nt; ++t) {
    pthread_join(th[t], NULL);
    err |= args[t].err;
    if (t == 0 || args[t].t0 < first) first = args[t].t0;
    if (t == 0 || args[t].t1 > last) last = args[t].t1;
  }
  pthread_barrier_destroy(&bar);
  if (!priv) shmem_ctx_destroy(shared);
  if (err) ctx_refused[priv] = 1;
  pin_to(0);
  return err ? 0 : (double)nt * (double)n / ((last - first) * 1e-9);
}
#endif

/* ---- the driver ---------------------------------------------------------- */

typedef struct {
  char name[40];
  op_fn fn;
  long size;
  long iters;
  int collective; /* slowest PE of each batch */
  long granule;   /* a batch is a multiple of this many operations */
  double best;    /* ns per operation, -1: not measured */
} metric;

static metric metrics[MAX_METRICS];
static int nmetrics;

static metric* add_metric(const char* name, op_fn fn, long size, long iters, int collective) {
  metric* m = &metrics[nmetrics++];
  snprintf(m->name, sizeof m->name, "%s", name);
  m->fn = fn;
  m->size = size;
  m->iters = iters < NBATCH ? NBATCH : iters;
  m->collective = collective;
  m->granule = 1;
  m->best = -1;
  return m;
}

static double measure_round(metric* m) {
  double v[NBATCH];
  long per = m->iters / NBATCH;
  per = (per + m->granule - 1) / m->granule * m->granule;
  m->fn(per < 64 ? per : 64 / m->granule * m->granule, m->size); /* warm-up */
  shmem_barrier_all();
  for (int b = 0; b < NBATCH; ++b) {
    double t = m->fn(per, m->size);
    if (m->collective) {
      *sym_time = t;
      shmem_barrier_all();
      if (me == 0)
        for (int pe = 1; pe < npes; ++pe) {
          double tp = shmem_double_g(sym_time, pe);
          if (tp > t) t = tp;
        }
    }
    shmem_barrier_all();
    v[b] = t / (double)per;
  }
  return median(v, NBATCH);
}

/* ---- checks of the data moved ------------------------------------------- */

static long sweep[16];
static int nsweep;

static void verify(void) {
  /* Puts of every size of the sweep. */
  for (int k = 0; k < nsweep; ++k) {
    const long size = sweep[k];
    if (me == 0) {
      for (long i = 0; i < size; ++i) loc_src[i] = (char)(i * 7 + k);
      shmem_putmem(sym_big, loc_src, (size_t)size, 1);
      shmem_quiet();
    }
    shmem_barrier_all();
    if (me == 1) {
      long bad = 0;
      for (long i = 0; i < size; ++i) bad += sym_big[i] != (char)(i * 7 + k);
      check(bad == 0, "put data");
    }
    shmem_barrier_all();
  }
  /* 8 B put and get, p and g. */
  if (me == 0) {
    uint64_t x = 0x0123456789abcdefULL, y = 0;
    shmem_putmem(sym_small, &x, 8, 1);
    shmem_quiet();
    shmem_getmem(&y, sym_small, 8, 1);
    check(x == y, "8 B put then get");
    shmem_long_p(sym_word, 4242, 1);
    shmem_quiet();
    check(shmem_long_g(sym_word, 1) == 4242, "p then g");
  }
  shmem_barrier_all();
  if (me == 1) {
    uint64_t x;
    memcpy(&x, sym_small, 8);
    check(x == 0x0123456789abcdefULL, "8 B put seen by the target");
  }
  /* Broadcast and all-to-all of 8 B. */
  uint64_t* src = (uint64_t*)sym_coll;
  uint64_t* dst = (uint64_t*)(sym_coll + 4096);
  for (int j = 0; j < npes; ++j) src[j] = (uint64_t)me * 1000 + (uint64_t)j;
  for (int j = 0; j < npes; ++j) dst[j] = 0;
  shmem_barrier_all();
  op_broadcast8(1, 8);
  shmem_barrier_all();
  if (me != 0) check(dst[0] == 0, "broadcast 8 B");
  shmem_barrier_all();
  op_alltoall8(1, 8);
  shmem_barrier_all();
  for (int j = 0; j < npes; ++j) check(dst[j] == (uint64_t)j * 1000 + (uint64_t)me, "all-to-all 8 B");
  shmem_barrier_all();
}

/* ---- output --------------------------------------------------------------- */

static metric* find(const char* name) {
  for (int i = 0; i < nmetrics; ++i)
    if (!strcmp(metrics[i].name, name)) return &metrics[i];
  return NULL;
}

static double value(const char* name) {
  metric* m = find(name);
  return m ? m->best : -1;
}

static void result(const char* name, double v, const char* unit) {
  if (v < 0) printf("RESULT %s n/a %s\n", name, unit);
  else printf("RESULT %s %.3f %s\n", name, v, unit);
}

static void row(const char* name, const char* base, const char* note) {
  double v = value(name), b = value(base);
  char vs[32] = "n/a", bs[48] = "-", rs[32] = "-";
  if (v >= 0) snprintf(vs, sizeof vs, "%.1f", v);
  if (b >= 0) snprintf(bs, sizeof bs, "%.1f %s", b, base);
  if (v >= 0 && b > 0) snprintf(rs, sizeof rs, "%.2f", v / b);
  printf("%-22s | %10s | %-26s | %8s  %s\n", name, vs, bs, rs, note);
}

static void usage(void) {
  if (me == 0)
    fprintf(stderr,
            "usage: bench_shmem [--iterations N] [--rounds N] [--max-threads N] "
            "[--thread-level single|multiple] [--no-pin]\n");
}

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    const char* v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--iterations") && v) opt_iterations = atol(argv[++i]);
    else if (!strcmp(a, "--rounds") && v) opt_rounds = atoi(argv[++i]);
    else if (!strcmp(a, "--max-threads") && v) opt_max_threads = atoi(argv[++i]);
    else if (!strcmp(a, "--thread-level") && v) opt_multiple = !strcmp(argv[++i], "multiple");
    else if (!strcmp(a, "--no-pin")) opt_pin = 0;
    else {
      usage();
      return 2;
    }
  }
  if (opt_iterations < NBATCH) opt_iterations = NBATCH;
  if (opt_rounds < 1) opt_rounds = 1;
  if (opt_max_threads < 1) opt_max_threads = 1;
  if (opt_max_threads > 64) opt_max_threads = 64;

  int provided = -1;
#if BENCH_HAVE_CTX
  if (opt_multiple) {
    if (shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided) != 0) {
      fprintf(stderr, "bench_shmem: shmem_init_thread failed\n");
      return 1;
    }
  } else
#endif
    shmem_init();
  me = shmem_my_pe();
  npes = shmem_n_pes();
  ncpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
  if (npes < 2) {
    if (me == 0) fprintf(stderr, "bench_shmem: needs at least 2 PEs\n");
    shmem_finalize();
    return 2;
  }
  pin_to(me);

  sym_big = (char*)shmem_malloc(MAX_BYTES);
  sym_small = (char*)shmem_malloc(64);
  sym_word = (long*)shmem_malloc(64);
  sym_ctr = (long*)shmem_malloc(64);
  sym_ctr_nbi = (long*)shmem_malloc(64);
  sym_pp = (char*)shmem_malloc(256);
  sym_coll = (char*)shmem_malloc(8192);
  sym_ctxbuf = (char*)shmem_malloc(64 * 64);
  sym_time = (double*)shmem_malloc(64);
  sym_done = (long*)shmem_malloc(64);
  psync[0] = (long*)shmem_malloc(sizeof(long) * SHMEM_BCAST_SYNC_SIZE * 2 + sizeof(long) * SHMEM_ALLTOALL_SYNC_SIZE * 2);
  psync[1] = (long*)shmem_malloc(sizeof(long) * SHMEM_BCAST_SYNC_SIZE * 2 + sizeof(long) * SHMEM_ALLTOALL_SYNC_SIZE * 2);
  loc_src = (char*)malloc(MAX_BYTES);
  loc_dst = (char*)malloc(MAX_BYTES);
  if (!sym_big || !sym_small || !sym_word || !sym_ctr || !sym_ctr_nbi || !sym_pp || !sym_coll || !sym_ctxbuf ||
      !sym_time || !sym_done || !psync[0] || !psync[1] || !loc_src || !loc_dst) {
    fprintf(stderr, "bench_shmem: PE %d: allocation failed\n", me);
    shmem_global_exit(1);
  }
  memset(sym_pp, 0, 256);
  *sym_ctr = *sym_ctr_nbi = *sym_done = 0;
  memset(loc_src, 1, MAX_BYTES);
  memset(loc_dst, 0, MAX_BYTES);
  for (int k = 0; k < 2; ++k)
    for (size_t i = 0; i < (size_t)(SHMEM_BCAST_SYNC_SIZE + SHMEM_ALLTOALL_SYNC_SIZE) * 2; ++i)
      psync[k][i] = SHMEM_SYNC_VALUE;
  for (long s = 8; s <= MAX_BYTES; s *= 4) sweep[nsweep++] = s;
  if (sweep[nsweep - 1] != MAX_BYTES) sweep[nsweep++] = MAX_BYTES;
  shmem_barrier_all();

  const long it = opt_iterations;
  add_metric("memcpy8", op_memcpy, 8, it, 0);
  add_metric("cpu_atomic", op_cpu_atomic, 0, it, 0);
  add_metric("put8_quiet", op_put_quiet, 8, it, 0);
  add_metric("get8", op_get8, 0, it, 0);
  add_metric("p_quiet", op_p_quiet, 0, it, 0);
  add_metric("g", op_g, 0, it, 0);
#if BENCH_HAVE_SIGNAL
  add_metric("pingpong_signal_rt", op_pingpong_signal, 0, it / 2, 0);
#endif
  add_metric("pingpong_flag_rt", op_pingpong_flag, 0, it / 2, 0);
  add_metric("fetch_add", op_fetch_add, 0, it, 0);
#if BENCH_HAVE_NBI_AMO
  add_metric("fetch_add_nbi", op_fetch_add_nbi, 0, it, 0)->granule = NBI_BATCH;
#endif
  add_metric("barrier_all", op_barrier, 0, it / 4, 1);
  add_metric("broadcast8", op_broadcast8, 8, it / 4, 1);
  add_metric("alltoall8", op_alltoall8, 8, it / 4, 1);
  for (int k = 0; k < nsweep; ++k) {
    char name[40];
    long n = (64L << 20) / sweep[k];
    if (n > it) n = it;
    if (n < 4 * NBATCH) n = 4 * NBATCH;
    snprintf(name, sizeof name, "put_quiet_%ld", sweep[k]);
    add_metric(name, op_put_quiet, sweep[k], n, 0);
    snprintf(name, sizeof name, "memcpy_%ld", sweep[k]);
    add_metric(name, op_memcpy, sweep[k], n, 0);
  }

  verify();

  /* Every round measures every operation once, starting one further along,
   * then the cache-line baseline with the other PEs asleep. */
  double cl_best = -1;
  int cl_pinned = 0;
  for (int r = 0; r < opt_rounds; ++r) {
    for (int k = 0; k < nmetrics; ++k) {
      metric* m = &metrics[(k + r) % nmetrics];
      double v = measure_round(m);
      if (m->best < 0 || v < m->best) m->best = v;
    }
    solo_begin();
    if (me == 0) {
      double v = cacheline_round(it);
      cl_pinned = cl.pinned;
      if (cl_best < 0 || v < cl_best) cl_best = v;
    }
    solo_end(1);
  }
  metric* clrt = add_metric("cacheline_rt", NULL, 0, 0, 0);
  clrt->best = cl_best;
  metric* clow = add_metric("cacheline_oneway", NULL, 0, 0, 0);
  clow->best = cl_best / 2;

  /* N threads, each in its own context, against N threads in one. */
  double rate[2][65];
  for (int p = 0; p < 2; ++p)
    for (int t = 0; t <= 64; ++t) rate[p][t] = -1;
#if BENCH_HAVE_CTX
  if (provided == SHMEM_THREAD_MULTIPLE) {
    solo_begin();
    if (me == 0)
      for (int r = 0; r < opt_rounds; ++r)
        for (int p = 1; p >= 0; --p)
          for (int t = 1; t <= opt_max_threads; ++t) {
            double v = ctx_rate(t, p, it);
            if (v > 0 && v > rate[p][t]) rate[p][t] = v;
          }
    solo_end(0);
  }
#endif

  shmem_barrier_all();
  long all_failures = 0;
  {
    long* f = sym_done; /* reused: the solo phases are over */
    *f = failures;
    shmem_barrier_all();
    if (me == 0)
      for (int pe = 0; pe < npes; ++pe) all_failures += pe == 0 ? failures : shmem_long_g(f, pe);
    shmem_barrier_all();
  }

  if (me == 0) {
    printf("# bench_shmem: %s, OpenSHMEM header %d.%d, %d PEs, %d CPUs online, iterations %ld, rounds %d\n",
#ifdef SHMEM_VENDOR_STRING
           SHMEM_VENDOR_STRING,
#else
           "unknown vendor",
#endif
           SHMEM_MAJOR_VERSION, SHMEM_MINOR_VERSION, npes, ncpus, opt_iterations, opt_rounds);
    printf("# features: signal %d, nbi atomics %d, team collectives %d, contexts %d; thread level provided %d\n",
           BENCH_HAVE_SIGNAL, BENCH_HAVE_NBI_AMO, BENCH_HAVE_TEAMS, BENCH_HAVE_CTX, provided);
#if BENCH_HAVE_CTX
    if (provided != SHMEM_THREAD_MULTIPLE)
      printf("# contexts test: n/a, SHMEM_THREAD_MULTIPLE not provided%s\n", opt_multiple ? "" : " (not asked for)");
    if (ctx_refused[1]) printf("# contexts test: shmem_ctx_create(SHMEM_CTX_PRIVATE) refused\n");
    if (ctx_refused[0]) printf("# contexts test: shmem_ctx_create(0) refused\n");
#endif
    printf("# cache-line ping-pong threads %s\n",
           cl_pinned ? "pinned to CPUs 0 and 1" : "not pinned (one CPU, or pinning refused or off)");
    for (int i = 0; i < nmetrics; ++i) result(metrics[i].name, metrics[i].best, "ns");
    if (!find("pingpong_signal_rt")) result("pingpong_signal_rt", -1, "ns");
    if (!find("fetch_add_nbi")) result("fetch_add_nbi", -1, "ns");
    for (int p = 1; p >= 0; --p)
      for (int t = 1; t <= opt_max_threads; ++t) {
        char name[48];
        const char* kind = p ? "private" : "shared";
        snprintf(name, sizeof name, "ctx_%s_%dt_rate", kind, t);
        result(name, rate[p][t], "ops/s");
        snprintf(name, sizeof name, "ctx_%s_%dt_speedup", kind, t);
        result(name, rate[p][t] > 0 && rate[p][1] > 0 ? rate[p][t] / rate[p][1] : -1, "x");
      }
    {
      const int t = opt_max_threads;
      char name[48];
      snprintf(name, sizeof name, "ctx_private_vs_shared_%dt", t);
      result(name, rate[1][t] > 0 && rate[0][t] > 0 ? rate[1][t] / rate[0][t] : -1, "x");
    }
    double fa = value("fetch_add"), ca = value("cpu_atomic");
    result("fetch_add_minus_cpu_atomic", fa >= 0 && ca >= 0 ? fa - ca : -1, "ns");

    printf("\n%-22s | %10s | %-26s | %8s\n", "metric", "ns", "baseline (ns)", "ratio");
    row("put8_quiet", "memcpy8", "target <= 10 ns");
    row("get8", "memcpy8", "");
    row("p_quiet", "memcpy8", "");
    row("g", "memcpy8", "");
    row("pingpong_signal_rt", "cacheline_oneway", "target ratio <= 2");
    row("pingpong_flag_rt", "cacheline_oneway", "");
    row("fetch_add", "cpu_atomic", "target: within 5 ns");
    row("fetch_add_nbi", "cpu_atomic", "");
    row("barrier_all", "cacheline_oneway", "");
    row("broadcast8", "cacheline_oneway", "");
    row("alltoall8", "cacheline_oneway", "");
    row("cacheline_rt", "cacheline_oneway", "");
    row("cpu_atomic", "", "");
    row("memcpy8", "", "");
    printf("\n%-26s | %14s | %8s\n", "threads, 8 B put+ctx_quiet", "ops/s", "vs 1 thr");
    for (int p = 1; p >= 0; --p)
      for (int t = 1; t <= opt_max_threads; ++t) {
        char label[48];
        snprintf(label, sizeof label, "%d thread%s, %s ctx", t, t > 1 ? "s" : "", p ? "private" : "shared");
        if (rate[p][t] > 0)
          printf("%-26s | %14.0f | %8.2f\n", label, rate[p][t], rate[p][1] > 0 ? rate[p][t] / rate[p][1] : 0);
        else
          printf("%-26s | %14s | %8s\n", label, "n/a", "-");
      }

    printf("\nlatency against size (put + quiet to PE 1)\n%10s | %12s | %12s | %10s\n", "bytes", "put ns",
           "memcpy ns", "put MB/s");
    for (int k = 0; k < nsweep; ++k) {
      char a[40], b[40];
      snprintf(a, sizeof a, "put_quiet_%ld", sweep[k]);
      snprintf(b, sizeof b, "memcpy_%ld", sweep[k]);
      double pv = value(a), mv = value(b);
      printf("SIZE %ld %.3f %.3f %.1f\n", sweep[k], pv, mv, pv > 0 ? (double)sweep[k] / pv * 1e3 : 0);
    }
    printf("data check: %s\n", all_failures ? "FAILED" : "passed");
    fflush(stdout);
  }
  escape(&g_sink);
  shmem_barrier_all();
  shmem_finalize();
  return all_failures ? 1 : 0;
}
