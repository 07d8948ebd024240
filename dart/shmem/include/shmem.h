/*
 * OpenSHMEM 1.6 over DART.
 *
 * Every routine maps onto DART's interface and its extensions
 * (dash/dart/ext/): the symmetric heap is one DART segment of the world
 * team, the program's global variables another, and puts, gets, atomics,
 * signals and waits take DART's paths (load/store between PEs of a node,
 * MPI RMA otherwise). Contexts are DART contexts, teams are DART teams.
 *
 * The typed routines are declared from the type tables below, the tables
 * of the specification; the C11 type-generic interface is a set of
 * _Generic selections in C and of overloads in C++.
 *
 * Errors: a routine given a PE outside its team, an address outside the
 * symmetric memory, an unknown team or context, or mismatched arguments
 * does nothing, logs one line naming the PE, the routine and the reason,
 * and records the error (shmemx_last_error in shmemx.h); routines that
 * return a status return nonzero.
 */
#ifndef DART_SHMEM_H_
#define DART_SHMEM_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Library constants ------------------------------------------------ */

#define SHMEM_MAJOR_VERSION 1
#define SHMEM_MINOR_VERSION 6
#define SHMEM_MAX_NAME_LEN 256
#define SHMEM_VENDOR_STRING "DART OpenSHMEM"
#define _SHMEM_MAJOR_VERSION SHMEM_MAJOR_VERSION
#define _SHMEM_MINOR_VERSION SHMEM_MINOR_VERSION
#define _SHMEM_MAX_NAME_LEN SHMEM_MAX_NAME_LEN
#define _SHMEM_VENDOR_STRING SHMEM_VENDOR_STRING

#define SHMEM_THREAD_SINGLE 0
#define SHMEM_THREAD_FUNNELED 1
#define SHMEM_THREAD_SERIALIZED 2
#define SHMEM_THREAD_MULTIPLE 3

#define SHMEM_CTX_SERIALIZED (1L << 0)
#define SHMEM_CTX_PRIVATE (1L << 1)
#define SHMEM_CTX_NOSTORE (1L << 2)

/* Sessions (OpenSHMEM 1.6): the option of shmem_ctx_session_start and the
 * mask bit of its configuration's one field. */
#define SHMEM_CTX_SESSION_BATCH (1L << 0)
#define SHMEM_CTX_SESSION_TOTAL_OPS (1L << 0)

#define SHMEM_CMP_EQ 1
#define SHMEM_CMP_NE 2
#define SHMEM_CMP_GT 3
#define SHMEM_CMP_GE 4
#define SHMEM_CMP_LT 5
#define SHMEM_CMP_LE 6
#define _SHMEM_CMP_EQ SHMEM_CMP_EQ
#define _SHMEM_CMP_NE SHMEM_CMP_NE
#define _SHMEM_CMP_GT SHMEM_CMP_GT
#define _SHMEM_CMP_GE SHMEM_CMP_GE
#define _SHMEM_CMP_LT SHMEM_CMP_LT
#define _SHMEM_CMP_LE SHMEM_CMP_LE

#define SHMEM_SIGNAL_SET 1
#define SHMEM_SIGNAL_ADD 2

#define SHMEM_MALLOC_ATOMICS_REMOTE (1L << 0)
#define SHMEM_MALLOC_SIGNAL_REMOTE (1L << 1)

#define SHMEM_TEAM_NUM_CONTEXTS (1L << 0)

/* The work arrays of the active-set routines. Their synchronisation needs
 * one word per phase; the sizes leave room. */
#define SHMEM_SYNC_VALUE 0L
#define SHMEM_SYNC_SIZE 8
#define SHMEM_BARRIER_SYNC_SIZE 8
#define SHMEM_BCAST_SYNC_SIZE 8
#define SHMEM_REDUCE_SYNC_SIZE 8
#define SHMEM_COLLECT_SYNC_SIZE 8
#define SHMEM_ALLTOALL_SYNC_SIZE 8
#define SHMEM_ALLTOALLS_SYNC_SIZE 8
#define SHMEM_REDUCE_MIN_WRKDATA_SIZE 1
#define _SHMEM_SYNC_VALUE SHMEM_SYNC_VALUE
#define _SHMEM_BARRIER_SYNC_SIZE SHMEM_BARRIER_SYNC_SIZE
#define _SHMEM_BCAST_SYNC_SIZE SHMEM_BCAST_SYNC_SIZE
#define _SHMEM_REDUCE_SYNC_SIZE SHMEM_REDUCE_SYNC_SIZE
#define _SHMEM_COLLECT_SYNC_SIZE SHMEM_COLLECT_SYNC_SIZE
#define _SHMEM_ALLTOALL_SYNC_SIZE SHMEM_ALLTOALL_SYNC_SIZE
#define _SHMEM_ALLTOALLS_SYNC_SIZE SHMEM_ALLTOALLS_SYNC_SIZE
#define _SHMEM_REDUCE_MIN_WRKDATA_SIZE SHMEM_REDUCE_MIN_WRKDATA_SIZE

/* ---- Handles ---------------------------------------------------------- */

typedef struct dart_shmem_team* shmem_team_t;
typedef struct dart_shmem_ctx* shmem_ctx_t;

typedef struct {
  int num_contexts;
} shmem_team_config_t;

/* A session's hints (OpenSHMEM 1.6): the expected number of RMA calls in
 * it; SIZE_MAX (the default) when not given. */
typedef struct {
  size_t total_ops;
} shmem_ctx_session_config_t;

extern struct dart_shmem_team dart_shmem_team_world_;
extern struct dart_shmem_team dart_shmem_team_shared_;
extern struct dart_shmem_ctx dart_shmem_ctx_default_;

#define SHMEM_TEAM_WORLD (&dart_shmem_team_world_)
#define SHMEM_TEAM_SHARED (&dart_shmem_team_shared_)
#define SHMEM_TEAM_INVALID ((shmem_team_t)0)
#define SHMEM_CTX_DEFAULT (&dart_shmem_ctx_default_)
#define SHMEM_CTX_INVALID ((shmem_ctx_t)0)

/* ---- Type tables (X(type, TYPENAME)) ---------------------------------- */

/* Standard RMA types. */
#define DART_SHMEM_RMA_TYPES(X)                                                                             \
  X(float, float) X(double, double) X(long double, longdouble) X(char, char) X(signed char, schar)          \
  X(short, short) X(int, int) X(long, long) X(long long, longlong) X(unsigned char, uchar)                 \
  X(unsigned short, ushort) X(unsigned int, uint) X(unsigned long, ulong)                                  \
  X(unsigned long long, ulonglong) X(int8_t, int8) X(int16_t, int16) X(int32_t, int32) X(int64_t, int64)   \
  X(uint8_t, uint8) X(uint16_t, uint16) X(uint32_t, uint32) X(uint64_t, uint64) X(size_t, size)            \
  X(ptrdiff_t, ptrdiff)

/* Standard AMO types: inc, add, compare-and-swap. */
#define DART_SHMEM_AMO_TYPES(X)                                                                             \
  X(int, int) X(long, long) X(long long, longlong) X(unsigned int, uint) X(unsigned long, ulong)           \
  X(unsigned long long, ulonglong) X(int32_t, int32) X(int64_t, int64) X(uint32_t, uint32)                 \
  X(uint64_t, uint64) X(size_t, size) X(ptrdiff_t, ptrdiff)

/* Extended AMO types: fetch, set, swap. */
#define DART_SHMEM_EXT_AMO_TYPES(X) DART_SHMEM_AMO_TYPES(X) X(float, float) X(double, double)

/* Bitwise AMO types: and, or, xor. */
#define DART_SHMEM_BITWISE_AMO_TYPES(X)                                                                     \
  X(unsigned int, uint) X(unsigned long, ulong) X(unsigned long long, ulonglong) X(int32_t, int32)         \
  X(int64_t, int64) X(uint32_t, uint32) X(uint64_t, uint64)

/* Point-to-point synchronisation types. */
#define DART_SHMEM_P2P_TYPES(X)                                                                             \
  X(short, short) X(int, int) X(long, long) X(long long, longlong) X(unsigned short, ushort)               \
  X(unsigned int, uint) X(unsigned long, ulong) X(unsigned long long, ulonglong) X(int32_t, int32)         \
  X(int64_t, int64) X(uint32_t, uint32) X(uint64_t, uint64) X(size_t, size) X(ptrdiff_t, ptrdiff)

/* Reduction types, per operation class. */
#define DART_SHMEM_BITWISE_REDUCE_TYPES(X)                                                                  \
  X(unsigned char, uchar) X(unsigned short, ushort) X(unsigned int, uint) X(unsigned long, ulong)          \
  X(unsigned long long, ulonglong) X(int8_t, int8) X(int16_t, int16) X(int32_t, int32) X(int64_t, int64)   \
  X(uint8_t, uint8) X(uint16_t, uint16) X(uint32_t, uint32) X(uint64_t, uint64) X(size_t, size)
#define DART_SHMEM_MINMAX_REDUCE_TYPES(X)                                                                   \
  X(char, char) X(signed char, schar) X(short, short) X(int, int) X(long, long) X(long long, longlong)     \
  X(ptrdiff_t, ptrdiff) X(unsigned char, uchar) X(unsigned short, ushort) X(unsigned int, uint)            \
  X(unsigned long, ulong) X(unsigned long long, ulonglong) X(int8_t, int8) X(int16_t, int16)               \
  X(int32_t, int32) X(int64_t, int64) X(uint8_t, uint8) X(uint16_t, uint16) X(uint32_t, uint32)            \
  X(uint64_t, uint64) X(size_t, size) X(float, float) X(double, double) X(long double, longdouble)
#ifdef __cplusplus
#define DART_SHMEM_COMPLEXD __complex__ double
#define DART_SHMEM_COMPLEXF __complex__ float
#else
#define DART_SHMEM_COMPLEXD double _Complex
#define DART_SHMEM_COMPLEXF float _Complex
#endif
#define DART_SHMEM_ARITH_REDUCE_TYPES(X) \
  DART_SHMEM_MINMAX_REDUCE_TYPES(X) X(DART_SHMEM_COMPLEXD, complexd) X(DART_SHMEM_COMPLEXF, complexf)

/* The deprecated active-set reductions (shmem_TYPE_OP_to_all). */
#define DART_SHMEM_TOALL_BITWISE_TYPES(X) X(short, short) X(int, int) X(long, long) X(long long, longlong)
#define DART_SHMEM_TOALL_MINMAX_TYPES(X) \
  DART_SHMEM_TOALL_BITWISE_TYPES(X) X(float, float) X(double, double) X(long double, longdouble)
#define DART_SHMEM_TOALL_ARITH_TYPES(X) \
  DART_SHMEM_TOALL_MINMAX_TYPES(X) X(DART_SHMEM_COMPLEXD, complexd) X(DART_SHMEM_COMPLEXF, complexf)

/* Sized RMA: X(bits) for the putSIZE/getSIZE routines. */
#define DART_SHMEM_SIZES(X) X(8) X(16) X(32) X(64) X(128)

/* ---- Library setup, exit and query ------------------------------------ */

/* Counted (OpenSHMEM 1.6): the first shmem_init or shmem_init_thread
 * starts the library, each later one adds one to a count (and returns the
 * thread level in effect); each shmem_finalize takes one off, acting as a
 * barrier over the world team while the count stays above zero, and the
 * last one releases everything. A later shmem_init starts the library
 * again (MPI, which cannot be started twice, stays up until the process
 * exits; after the program's own MPI_Finalize a restart fails with one
 * line saying so). All collective over the world. */
void shmem_init(void);
int shmem_init_thread(int requested, int* provided);
void shmem_query_thread(int* provided);
/* Nonzero between an initialisation and its matching finalisation; may be
 * called at any time, before shmem_init and after shmem_finalize. */
void shmem_query_initialized(int* initialized);
void shmem_finalize(void);
void shmem_global_exit(int status);
int shmem_my_pe(void);
int shmem_n_pes(void);
int shmem_pe_accessible(int pe);
int shmem_addr_accessible(const void* addr, int pe);
void* shmem_ptr(const void* dest, int pe);
void* shmem_team_ptr(shmem_team_t team, const void* dest, int pe);
void shmem_info_get_version(int* major, int* minor);
void shmem_info_get_name(char* name);

/* Deprecated names that 1.6 still lists. */
void start_pes(int npes);
int _my_pe(void);
int _num_pes(void);

/* ---- Memory management ------------------------------------------------ */

void* shmem_malloc(size_t size);
void* shmem_calloc(size_t count, size_t size);
void* shmem_align(size_t alignment, size_t size);
void* shmem_realloc(void* ptr, size_t size);
void shmem_free(void* ptr);
void* shmem_malloc_with_hints(size_t size, long hints);
void* shmalloc(size_t size);
void shfree(void* ptr);
void* shrealloc(void* ptr, size_t size);
void* shmemalign(size_t alignment, size_t size);

/* ---- Teams ------------------------------------------------------------ */

int shmem_team_my_pe(shmem_team_t team);
int shmem_team_n_pes(shmem_team_t team);
int shmem_team_get_config(shmem_team_t team, long config_mask, shmem_team_config_t* config);
int shmem_team_translate_pe(shmem_team_t src_team, int src_pe, shmem_team_t dest_team);
int shmem_team_split_strided(shmem_team_t parent_team, int start, int stride, int size,
                             const shmem_team_config_t* config, long config_mask, shmem_team_t* new_team);
int shmem_team_split_2d(shmem_team_t parent_team, int xrange, const shmem_team_config_t* xaxis_config,
                        long xaxis_mask, shmem_team_t* xaxis_team, const shmem_team_config_t* yaxis_config,
                        long yaxis_mask, shmem_team_t* yaxis_team);
void shmem_team_destroy(shmem_team_t team);

/* ---- Contexts --------------------------------------------------------- */

int shmem_ctx_create(long options, shmem_ctx_t* ctx);
int shmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t* ctx);
void shmem_ctx_destroy(shmem_ctx_t ctx);
int shmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t* team);

/* Sessions (OpenSHMEM 1.6), local hints that change no completion or
 * ordering. start ORs `options` into the context's session (a second start
 * adds to the first; config's fields named in config_mask replace the
 * earlier ones); stop ends it (a second stop does nothing). A
 * SHMEM_CTX_SESSION_BATCH session completes, at its stop, what the context
 * issued through MPI during the session, once, so that a program's quiet
 * after the batch finds nothing left to wait for. SHMEM_CTX_INVALID: no
 * action, as the specification says; a destroyed or unknown context, or
 * unknown options: one line and SHMEMX_ERR_CTX / SHMEMX_ERR_ARG. */
void shmem_ctx_session_start(shmem_ctx_t ctx, long options, const shmem_ctx_session_config_t* config,
                             long config_mask);
void shmem_ctx_session_stop(shmem_ctx_t ctx);

/* ---- Remote memory access --------------------------------------------- */

#define DART_SHMEM_DECL_RMA(T, N)                                                                              \
  void shmem_##N##_put(T* dest, const T* source, size_t nelems, int pe);                                      \
  void shmem_ctx_##N##_put(shmem_ctx_t ctx, T* dest, const T* source, size_t nelems, int pe);                 \
  void shmem_##N##_p(T* dest, T value, int pe);                                                               \
  void shmem_ctx_##N##_p(shmem_ctx_t ctx, T* dest, T value, int pe);                                          \
  void shmem_##N##_iput(T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);       \
  void shmem_ctx_##N##_iput(shmem_ctx_t ctx, T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst,          \
                            size_t nelems, int pe);                                                           \
  void shmem_##N##_get(T* dest, const T* source, size_t nelems, int pe);                                      \
  void shmem_ctx_##N##_get(shmem_ctx_t ctx, T* dest, const T* source, size_t nelems, int pe);                 \
  T shmem_##N##_g(const T* source, int pe);                                                                   \
  T shmem_ctx_##N##_g(shmem_ctx_t ctx, const T* source, int pe);                                              \
  void shmem_##N##_iget(T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);       \
  void shmem_ctx_##N##_iget(shmem_ctx_t ctx, T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst,          \
                            size_t nelems, int pe);                                                           \
  void shmem_##N##_put_nbi(T* dest, const T* source, size_t nelems, int pe);                                  \
  void shmem_ctx_##N##_put_nbi(shmem_ctx_t ctx, T* dest, const T* source, size_t nelems, int pe);             \
  void shmem_##N##_get_nbi(T* dest, const T* source, size_t nelems, int pe);                                  \
  void shmem_ctx_##N##_get_nbi(shmem_ctx_t ctx, T* dest, const T* source, size_t nelems, int pe);             \
  void shmem_##N##_put_signal(T* dest, const T* source, size_t nelems, uint64_t* sig_addr, uint64_t signal,   \
                              int sig_op, int pe);                                                            \
  void shmem_ctx_##N##_put_signal(shmem_ctx_t ctx, T* dest, const T* source, size_t nelems,                   \
                                  uint64_t* sig_addr, uint64_t signal, int sig_op, int pe);                   \
  void shmem_##N##_put_signal_nbi(T* dest, const T* source, size_t nelems, uint64_t* sig_addr,                \
                                  uint64_t signal, int sig_op, int pe);                                       \
  void shmem_ctx_##N##_put_signal_nbi(shmem_ctx_t ctx, T* dest, const T* source, size_t nelems,               \
                                      uint64_t* sig_addr, uint64_t signal, int sig_op, int pe);              \
  void shmem_##N##_ibput(T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize,               \
                         size_t nblocks, int pe);                                                             \
  void shmem_ctx_##N##_ibput(shmem_ctx_t ctx, T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst,         \
                             size_t bsize, size_t nblocks, int pe);                                           \
  void shmem_##N##_ibget(T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize,               \
                         size_t nblocks, int pe);                                                             \
  void shmem_ctx_##N##_ibget(shmem_ctx_t ctx, T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst,         \
                             size_t bsize, size_t nblocks, int pe);
/* shmem_ibput/ibget (OpenSHMEM 1.6): nblocks blocks of bsize elements,
 * block k at dest + k*dst and source + k*sst (strides in elements, at
 * least bsize). Each block is one transfer (a copy between node mates,
 * one MPI RMA operation otherwise); ibget returns with the data. */
DART_SHMEM_RMA_TYPES(DART_SHMEM_DECL_RMA)

#define DART_SHMEM_DECL_SIZED(B)                                                                               \
  void shmem_put##B(void* dest, const void* source, size_t nelems, int pe);                                   \
  void shmem_ctx_put##B(shmem_ctx_t ctx, void* dest, const void* source, size_t nelems, int pe);              \
  void shmem_get##B(void* dest, const void* source, size_t nelems, int pe);                                   \
  void shmem_ctx_get##B(shmem_ctx_t ctx, void* dest, const void* source, size_t nelems, int pe);              \
  void shmem_iput##B(void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);    \
  void shmem_ctx_iput##B(shmem_ctx_t ctx, void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst,       \
                         size_t nelems, int pe);                                                              \
  void shmem_iget##B(void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);    \
  void shmem_ctx_iget##B(shmem_ctx_t ctx, void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst,       \
                         size_t nelems, int pe);                                                              \
  void shmem_put##B##_nbi(void* dest, const void* source, size_t nelems, int pe);                             \
  void shmem_ctx_put##B##_nbi(shmem_ctx_t ctx, void* dest, const void* source, size_t nelems, int pe);        \
  void shmem_get##B##_nbi(void* dest, const void* source, size_t nelems, int pe);                             \
  void shmem_ctx_get##B##_nbi(shmem_ctx_t ctx, void* dest, const void* source, size_t nelems, int pe);        \
  void shmem_put##B##_signal(void* dest, const void* source, size_t nelems, uint64_t* sig_addr,               \
                             uint64_t signal, int sig_op, int pe);                                            \
  void shmem_ctx_put##B##_signal(shmem_ctx_t ctx, void* dest, const void* source, size_t nelems,              \
                                 uint64_t* sig_addr, uint64_t signal, int sig_op, int pe);                    \
  void shmem_put##B##_signal_nbi(void* dest, const void* source, size_t nelems, uint64_t* sig_addr,           \
                                 uint64_t signal, int sig_op, int pe);                                        \
  void shmem_ctx_put##B##_signal_nbi(shmem_ctx_t ctx, void* dest, const void* source, size_t nelems,          \
                                     uint64_t* sig_addr, uint64_t signal, int sig_op, int pe);                \
  void shmem_ibput##B(void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize,             \
                      size_t nblocks, int pe);                                                                \
  void shmem_ctx_ibput##B(shmem_ctx_t ctx, void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst,      \
                          size_t bsize, size_t nblocks, int pe);                                              \
  void shmem_ibget##B(void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize,             \
                      size_t nblocks, int pe);                                                                \
  void shmem_ctx_ibget##B(shmem_ctx_t ctx, void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst,      \
                          size_t bsize, size_t nblocks, int pe);
DART_SHMEM_SIZES(DART_SHMEM_DECL_SIZED)

void shmem_putmem(void* dest, const void* source, size_t nelems, int pe);
void shmem_ctx_putmem(shmem_ctx_t ctx, void* dest, const void* source, size_t nelems, int pe);
void shmem_getmem(void* dest, const void* source, size_t nelems, int pe);
void shmem_ctx_getmem(shmem_ctx_t ctx, void* dest, const void* source, size_t nelems, int pe);
void shmem_putmem_nbi(void* dest, const void* source, size_t nelems, int pe);
void shmem_ctx_putmem_nbi(shmem_ctx_t ctx, void* dest, const void* source, size_t nelems, int pe);
void shmem_getmem_nbi(void* dest, const void* source, size_t nelems, int pe);
void shmem_ctx_getmem_nbi(shmem_ctx_t ctx, void* dest, const void* source, size_t nelems, int pe);
void shmem_putmem_signal(void* dest, const void* source, size_t nelems, uint64_t* sig_addr, uint64_t signal,
                         int sig_op, int pe);
void shmem_ctx_putmem_signal(shmem_ctx_t ctx, void* dest, const void* source, size_t nelems, uint64_t* sig_addr,
                             uint64_t signal, int sig_op, int pe);
void shmem_putmem_signal_nbi(void* dest, const void* source, size_t nelems, uint64_t* sig_addr, uint64_t signal,
                             int sig_op, int pe);
void shmem_ctx_putmem_signal_nbi(shmem_ctx_t ctx, void* dest, const void* source, size_t nelems,
                                 uint64_t* sig_addr, uint64_t signal, int sig_op, int pe);

/* ---- Signals ---------------------------------------------------------- */

uint64_t shmem_signal_fetch(const uint64_t* sig_addr);
/* OpenSHMEM 1.6: an atomic add to, or set of, a remote signal word alone,
 * ordered and completed (shmem_quiet) as the signal of a put-with-signal. */
void shmem_signal_add(uint64_t* sig_addr, uint64_t signal, int pe);
void shmem_ctx_signal_add(shmem_ctx_t ctx, uint64_t* sig_addr, uint64_t signal, int pe);
void shmem_signal_set(uint64_t* sig_addr, uint64_t signal, int pe);
void shmem_ctx_signal_set(shmem_ctx_t ctx, uint64_t* sig_addr, uint64_t signal, int pe);
uint64_t shmem_signal_wait_until(uint64_t* sig_addr, int cmp, uint64_t cmp_value);

/* ---- Atomic memory operations ----------------------------------------- */

#define DART_SHMEM_DECL_AMO(T, N)                                                                            \
  T shmem_##N##_atomic_fetch_inc(T* dest, int pe);                                                          \
  T shmem_ctx_##N##_atomic_fetch_inc(shmem_ctx_t ctx, T* dest, int pe);                                     \
  void shmem_##N##_atomic_inc(T* dest, int pe);                                                             \
  void shmem_ctx_##N##_atomic_inc(shmem_ctx_t ctx, T* dest, int pe);                                        \
  T shmem_##N##_atomic_fetch_add(T* dest, T value, int pe);                                                 \
  T shmem_ctx_##N##_atomic_fetch_add(shmem_ctx_t ctx, T* dest, T value, int pe);                            \
  void shmem_##N##_atomic_add(T* dest, T value, int pe);                                                    \
  void shmem_ctx_##N##_atomic_add(shmem_ctx_t ctx, T* dest, T value, int pe);                               \
  T shmem_##N##_atomic_compare_swap(T* dest, T cond, T value, int pe);                                      \
  T shmem_ctx_##N##_atomic_compare_swap(shmem_ctx_t ctx, T* dest, T cond, T value, int pe);                 \
  void shmem_##N##_atomic_fetch_inc_nbi(T* fetch, T* dest, int pe);                                         \
  void shmem_ctx_##N##_atomic_fetch_inc_nbi(shmem_ctx_t ctx, T* fetch, T* dest, int pe);                    \
  void shmem_##N##_atomic_fetch_add_nbi(T* fetch, T* dest, T value, int pe);                                \
  void shmem_ctx_##N##_atomic_fetch_add_nbi(shmem_ctx_t ctx, T* fetch, T* dest, T value, int pe);           \
  void shmem_##N##_atomic_compare_swap_nbi(T* fetch, T* dest, T cond, T value, int pe);                     \
  void shmem_ctx_##N##_atomic_compare_swap_nbi(shmem_ctx_t ctx, T* fetch, T* dest, T cond, T value, int pe);
DART_SHMEM_AMO_TYPES(DART_SHMEM_DECL_AMO)

#define DART_SHMEM_DECL_EXT_AMO(T, N)                                                                        \
  T shmem_##N##_atomic_fetch(const T* source, int pe);                                                      \
  T shmem_ctx_##N##_atomic_fetch(shmem_ctx_t ctx, const T* source, int pe);                                 \
  void shmem_##N##_atomic_set(T* dest, T value, int pe);                                                    \
  void shmem_ctx_##N##_atomic_set(shmem_ctx_t ctx, T* dest, T value, int pe);                               \
  T shmem_##N##_atomic_swap(T* dest, T value, int pe);                                                      \
  T shmem_ctx_##N##_atomic_swap(shmem_ctx_t ctx, T* dest, T value, int pe);                                 \
  void shmem_##N##_atomic_fetch_nbi(T* fetch, const T* source, int pe);                                     \
  void shmem_ctx_##N##_atomic_fetch_nbi(shmem_ctx_t ctx, T* fetch, const T* source, int pe);                \
  void shmem_##N##_atomic_swap_nbi(T* fetch, T* dest, T value, int pe);                                     \
  void shmem_ctx_##N##_atomic_swap_nbi(shmem_ctx_t ctx, T* fetch, T* dest, T value, int pe);
DART_SHMEM_EXT_AMO_TYPES(DART_SHMEM_DECL_EXT_AMO)

#define DART_SHMEM_DECL_BITWISE_AMO_OP(T, N, OP)                                                             \
  T shmem_##N##_atomic_fetch_##OP(T* dest, T value, int pe);                                                \
  T shmem_ctx_##N##_atomic_fetch_##OP(shmem_ctx_t ctx, T* dest, T value, int pe);                           \
  void shmem_##N##_atomic_##OP(T* dest, T value, int pe);                                                   \
  void shmem_ctx_##N##_atomic_##OP(shmem_ctx_t ctx, T* dest, T value, int pe);                              \
  void shmem_##N##_atomic_fetch_##OP##_nbi(T* fetch, T* dest, T value, int pe);                             \
  void shmem_ctx_##N##_atomic_fetch_##OP##_nbi(shmem_ctx_t ctx, T* fetch, T* dest, T value, int pe);
#define DART_SHMEM_DECL_BITWISE_AMO(T, N)                                                                    \
  DART_SHMEM_DECL_BITWISE_AMO_OP(T, N, and)                                                                 \
  DART_SHMEM_DECL_BITWISE_AMO_OP(T, N, or) DART_SHMEM_DECL_BITWISE_AMO_OP(T, N, xor)
DART_SHMEM_BITWISE_AMO_TYPES(DART_SHMEM_DECL_BITWISE_AMO)

/* Deprecated atomic names (OpenSHMEM 1.3), still in 1.6. */
#define DART_SHMEM_DEPRECATED_AMO_TYPES(X) X(int, int) X(long, long) X(long long, longlong)
#define DART_SHMEM_DECL_DEPRECATED_AMO(T, N)                                                                 \
  T shmem_##N##_finc(T* dest, int pe);                                                                      \
  void shmem_##N##_inc(T* dest, int pe);                                                                    \
  T shmem_##N##_fadd(T* dest, T value, int pe);                                                             \
  void shmem_##N##_add(T* dest, T value, int pe);                                                           \
  T shmem_##N##_cswap(T* dest, T cond, T value, int pe);
DART_SHMEM_DEPRECATED_AMO_TYPES(DART_SHMEM_DECL_DEPRECATED_AMO)
#define DART_SHMEM_DEPRECATED_EXT_AMO_TYPES(X) DART_SHMEM_DEPRECATED_AMO_TYPES(X) X(float, float) X(double, double)
#define DART_SHMEM_DECL_DEPRECATED_EXT_AMO(T, N)                                                             \
  T shmem_##N##_fetch(const T* source, int pe);                                                             \
  void shmem_##N##_set(T* dest, T value, int pe);                                                           \
  T shmem_##N##_swap(T* dest, T value, int pe);
DART_SHMEM_DEPRECATED_EXT_AMO_TYPES(DART_SHMEM_DECL_DEPRECATED_EXT_AMO)

/* ---- Collectives ------------------------------------------------------ */

void shmem_barrier_all(void);
void shmem_barrier(int PE_start, int logPE_stride, int PE_size, long* pSync);
void shmem_sync_all(void);
int shmem_team_sync(shmem_team_t team);
void shmem_sync(int PE_start, int logPE_stride, int PE_size, long* pSync);

#define DART_SHMEM_DECL_COLL(T, N)                                                                           \
  int shmem_##N##_alltoall(shmem_team_t team, T* dest, const T* source, size_t nelems);                     \
  int shmem_##N##_alltoalls(shmem_team_t team, T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst,      \
                            size_t nelems);                                                                 \
  int shmem_##N##_broadcast(shmem_team_t team, T* dest, const T* source, size_t nelems, int PE_root);       \
  int shmem_##N##_collect(shmem_team_t team, T* dest, const T* source, size_t nelems);                      \
  int shmem_##N##_fcollect(shmem_team_t team, T* dest, const T* source, size_t nelems);
DART_SHMEM_RMA_TYPES(DART_SHMEM_DECL_COLL)

int shmem_alltoallmem(shmem_team_t team, void* dest, const void* source, size_t nelems);
int shmem_alltoallsmem(shmem_team_t team, void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst,
                       size_t nelems);
int shmem_broadcastmem(shmem_team_t team, void* dest, const void* source, size_t nelems, int PE_root);
int shmem_collectmem(shmem_team_t team, void* dest, const void* source, size_t nelems);
int shmem_fcollectmem(shmem_team_t team, void* dest, const void* source, size_t nelems);

#define DART_SHMEM_DECL_ACTIVE_SET(B)                                                                        \
  void shmem_alltoall##B(void* dest, const void* source, size_t nelems, int PE_start, int logPE_stride,      \
                         int PE_size, long* pSync);                                                         \
  void shmem_alltoalls##B(void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,      \
                          int PE_start, int logPE_stride, int PE_size, long* pSync);                        \
  void shmem_broadcast##B(void* dest, const void* source, size_t nelems, int PE_root, int PE_start,         \
                          int logPE_stride, int PE_size, long* pSync);                                      \
  void shmem_collect##B(void* dest, const void* source, size_t nelems, int PE_start, int logPE_stride,      \
                        int PE_size, long* pSync);                                                          \
  void shmem_fcollect##B(void* dest, const void* source, size_t nelems, int PE_start, int logPE_stride,     \
                         int PE_size, long* pSync);
DART_SHMEM_DECL_ACTIVE_SET(32)
DART_SHMEM_DECL_ACTIVE_SET(64)

#define DART_SHMEM_DECL_REDUCE(T, N, OP) \
  int shmem_##N##_##OP##_reduce(shmem_team_t team, T* dest, const T* source, size_t nreduce);
#define DART_SHMEM_DECL_REDUCE_BITWISE(T, N) \
  DART_SHMEM_DECL_REDUCE(T, N, and) DART_SHMEM_DECL_REDUCE(T, N, or) DART_SHMEM_DECL_REDUCE(T, N, xor)
#define DART_SHMEM_DECL_REDUCE_MINMAX(T, N) DART_SHMEM_DECL_REDUCE(T, N, max) DART_SHMEM_DECL_REDUCE(T, N, min)
#define DART_SHMEM_DECL_REDUCE_ARITH(T, N) DART_SHMEM_DECL_REDUCE(T, N, sum) DART_SHMEM_DECL_REDUCE(T, N, prod)
DART_SHMEM_BITWISE_REDUCE_TYPES(DART_SHMEM_DECL_REDUCE_BITWISE)
DART_SHMEM_MINMAX_REDUCE_TYPES(DART_SHMEM_DECL_REDUCE_MINMAX)
DART_SHMEM_ARITH_REDUCE_TYPES(DART_SHMEM_DECL_REDUCE_ARITH)

/* Scans (OpenSHMEM 1.6), over every type of the sum reduction: dest on
 * team PE i receives, element-wise, the sum of source over team PEs 0..i
 * (inscan) or 0..i-1 (exscan; 0 on team PE 0). In place (dest == source)
 * or on disjoint arrays. Collective over the team; 0 on success. */
#define DART_SHMEM_DECL_SCAN(T, N)                                                                             \
  int shmem_##N##_sum_inscan(shmem_team_t team, T* dest, const T* source, size_t nelems);                     \
  int shmem_##N##_sum_exscan(shmem_team_t team, T* dest, const T* source, size_t nelems);
DART_SHMEM_ARITH_REDUCE_TYPES(DART_SHMEM_DECL_SCAN)

#define DART_SHMEM_DECL_TO_ALL(T, N, OP)                                                                     \
  void shmem_##N##_##OP##_to_all(T* dest, const T* source, int nreduce, int PE_start, int logPE_stride,     \
                                 int PE_size, T* pWrk, long* pSync);
#define DART_SHMEM_DECL_TO_ALL_BITWISE(T, N) \
  DART_SHMEM_DECL_TO_ALL(T, N, and) DART_SHMEM_DECL_TO_ALL(T, N, or) DART_SHMEM_DECL_TO_ALL(T, N, xor)
#define DART_SHMEM_DECL_TO_ALL_MINMAX(T, N) DART_SHMEM_DECL_TO_ALL(T, N, max) DART_SHMEM_DECL_TO_ALL(T, N, min)
#define DART_SHMEM_DECL_TO_ALL_ARITH(T, N) DART_SHMEM_DECL_TO_ALL(T, N, sum) DART_SHMEM_DECL_TO_ALL(T, N, prod)
DART_SHMEM_TOALL_BITWISE_TYPES(DART_SHMEM_DECL_TO_ALL_BITWISE)
DART_SHMEM_TOALL_MINMAX_TYPES(DART_SHMEM_DECL_TO_ALL_MINMAX)
DART_SHMEM_TOALL_ARITH_TYPES(DART_SHMEM_DECL_TO_ALL_ARITH)

/* ---- Point-to-point synchronisation ----------------------------------- */

/* The _vector forms take const compare values (OpenSHMEM 1.6). _all and
 * _all_vector tests of an empty set (nelems 0, or every element excluded
 * by status) return 1; ivars is then not looked at. */

#define DART_SHMEM_DECL_P2P(T, N)                                                                              \
  void shmem_##N##_wait_until(T* ivar, int cmp, T cmp_value);                                                  \
  void shmem_##N##_wait_until_all(T* ivars, size_t nelems, const int* status, int cmp, T cmp_value);           \
  size_t shmem_##N##_wait_until_any(T* ivars, size_t nelems, const int* status, int cmp, T cmp_value);         \
  size_t shmem_##N##_wait_until_some(T* ivars, size_t nelems, size_t* indices, const int* status, int cmp,     \
                                     T cmp_value);                                                             \
  void shmem_##N##_wait_until_all_vector(T* ivars, size_t nelems, const int* status, int cmp, const T* cmp_values);  \
  size_t shmem_##N##_wait_until_any_vector(T* ivars, size_t nelems, const int* status, int cmp,                \
                                           const T* cmp_values);                                                     \
  size_t shmem_##N##_wait_until_some_vector(T* ivars, size_t nelems, size_t* indices, const int* status,       \
                                            int cmp, const T* cmp_values);                                           \
  int shmem_##N##_test(T* ivar, int cmp, T cmp_value);                                                         \
  int shmem_##N##_test_all(T* ivars, size_t nelems, const int* status, int cmp, T cmp_value);                  \
  size_t shmem_##N##_test_any(T* ivars, size_t nelems, const int* status, int cmp, T cmp_value);               \
  size_t shmem_##N##_test_some(T* ivars, size_t nelems, size_t* indices, const int* status, int cmp,           \
                               T cmp_value);                                                                   \
  int shmem_##N##_test_all_vector(T* ivars, size_t nelems, const int* status, int cmp, const T* cmp_values);         \
  size_t shmem_##N##_test_any_vector(T* ivars, size_t nelems, const int* status, int cmp, const T* cmp_values);      \
  size_t shmem_##N##_test_some_vector(T* ivars, size_t nelems, size_t* indices, const int* status, int cmp,    \
                                      const T* cmp_values);
DART_SHMEM_P2P_TYPES(DART_SHMEM_DECL_P2P)

/* Deprecated: shmem_TYPE_wait (wait while *ivar == cmp_value). */
#define DART_SHMEM_DECL_WAIT(T, N) void shmem_##N##_wait(T* ivar, T cmp_value);
DART_SHMEM_DEPRECATED_AMO_TYPES(DART_SHMEM_DECL_WAIT)
void shmem_short_wait(short* ivar, short cmp_value);

/* ---- Memory ordering -------------------------------------------------- */

void shmem_fence(void);
void shmem_ctx_fence(shmem_ctx_t ctx);
/* OpenSHMEM 1.6: completes the operations the (context's) calling thread
 * issued to the npes PEs of target_pes (numbered in the context's team). */
void shmem_pe_quiet(const int* target_pes, size_t npes);
void shmem_ctx_pe_quiet(shmem_ctx_t ctx, const int* target_pes, size_t npes);
void shmem_quiet(void);
void shmem_ctx_quiet(shmem_ctx_t ctx);

/* ---- Distributed locking ---------------------------------------------- */

void shmem_set_lock(long* lock);
void shmem_clear_lock(long* lock);
int shmem_test_lock(long* lock);

/* ---- Profiling control (for tools that intercept it; no effect without) */

void shmem_pcontrol(const int level, ...);

/* ---- Cache management (deprecated; no-ops on coherent memory) --------- */

void shmem_clear_cache_inv(void);
void shmem_set_cache_inv(void);
void shmem_clear_cache_line_inv(void* dest);
void shmem_set_cache_line_inv(void* dest);
void shmem_udcflush(void);
void shmem_udcflush_line(void* dest);

#ifdef __cplusplus
} /* extern "C" */
#endif

#include <shmem_generic.h>

#endif /* DART_SHMEM_H_ */
