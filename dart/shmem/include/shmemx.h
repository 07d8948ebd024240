/*
 * Extensions of DART's OpenSHMEM beyond the 1.6 specification, and the
 * shmemx_ names under which Sandia OpenSHMEM offers routines that 1.6
 * standardised, so that programs written for it build here.
 */
#ifndef DART_SHMEMX_H_
#define DART_SHMEMX_H_

#include <shmem.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Why the last failed routine of the calling thread failed. OpenSHMEM's
 * routines mostly return nothing; on bad input DART's do nothing, log one
 * line (the PE, the routine, the reason) and record one of these. */
#define SHMEMX_SUCCESS 0
#define SHMEMX_ERR_NOT_INITIALIZED 1 /* called before shmem_init or after shmem_finalize */
#define SHMEMX_ERR_PE 2              /* a PE outside the team */
#define SHMEMX_ERR_ADDRESS 3         /* memory that is not symmetric, or a range past its end */
#define SHMEMX_ERR_TEAM 4            /* an unknown, invalid or destroyed team */
#define SHMEMX_ERR_CTX 5             /* an unknown, invalid or destroyed context, or one used against its options */
#define SHMEMX_ERR_ARG 6             /* another invalid argument (comparison, signal operation, size, stride) */
#define SHMEMX_ERR_NOMEM 7           /* the symmetric heap is exhausted (SHMEM_SYMMETRIC_SIZE) */
#define SHMEMX_ERR_MISMATCH 8        /* PEs passed different arguments to a collective routine */
#define SHMEMX_ERR_RUNTIME 9         /* DART or MPI failed underneath */

/* Returns the calling thread's last error code and resets it to
 * SHMEMX_SUCCESS. */
int shmemx_last_error(void);

/* The size of each PE's symmetric heap in bytes (SHMEM_SYMMETRIC_SIZE,
 * default 256 MiB) and the bytes of it in use on the caller. */
size_t shmemx_heap_size(void);
size_t shmemx_heap_used(void);

/* Sandia OpenSHMEM's names for OpenSHMEM 1.6's shmem_signal_add and
 * shmem_signal_set (shmem.h), so that programs written for it build. */
void shmemx_signal_add(uint64_t* sig_addr, uint64_t signal, int pe);
void shmemx_ctx_signal_add(shmem_ctx_t ctx, uint64_t* sig_addr, uint64_t signal, int pe);
void shmemx_signal_set(uint64_t* sig_addr, uint64_t signal, int pe);
void shmemx_ctx_signal_set(shmem_ctx_t ctx, uint64_t* sig_addr, uint64_t signal, int pe);

/* Sandia OpenSHMEM's names for 1.6's shmem_ibput/shmem_ibget (same
 * arguments; Sandia calls dest `target` and dst `tst`) and its team scans
 * (shmemx_TYPENAME_sum_inscan/_exscan, with a team as in 1.6). */
#define DART_SHMEMX_DECL_IB(T, N)                                                                              \
  void shmemx_##N##_ibput(T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize,              \
                          size_t nblocks, int pe);                                                            \
  void shmemx_ctx_##N##_ibput(shmem_ctx_t ctx, T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst,        \
                              size_t bsize, size_t nblocks, int pe);                                          \
  void shmemx_##N##_ibget(T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize,              \
                          size_t nblocks, int pe);                                                            \
  void shmemx_ctx_##N##_ibget(shmem_ctx_t ctx, T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst,        \
                              size_t bsize, size_t nblocks, int pe);
DART_SHMEM_RMA_TYPES(DART_SHMEMX_DECL_IB)
#define DART_SHMEMX_DECL_IB_SIZED(B)                                                                           \
  void shmemx_ibput##B(void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize,            \
                       size_t nblocks, int pe);                                                               \
  void shmemx_ctx_ibput##B(shmem_ctx_t ctx, void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst,     \
                           size_t bsize, size_t nblocks, int pe);                                             \
  void shmemx_ibget##B(void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize,            \
                       size_t nblocks, int pe);                                                               \
  void shmemx_ctx_ibget##B(shmem_ctx_t ctx, void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst,     \
                           size_t bsize, size_t nblocks, int pe);
DART_SHMEM_SIZES(DART_SHMEMX_DECL_IB_SIZED)
#define DART_SHMEMX_DECL_SCAN(T, N)                                                                            \
  int shmemx_##N##_sum_inscan(shmem_team_t team, T* dest, const T* source, size_t nelems);                    \
  int shmemx_##N##_sum_exscan(shmem_team_t team, T* dest, const T* source, size_t nelems);
DART_SHMEM_ARITH_REDUCE_TYPES(DART_SHMEMX_DECL_SCAN)

#ifdef __cplusplus
}
#endif

#include <shmemx_generic.h>

#endif /* DART_SHMEMX_H_ */
