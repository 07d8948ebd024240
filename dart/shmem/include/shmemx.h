/*
 * Extensions of DART's OpenSHMEM beyond the 1.5 specification.
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

#ifdef __cplusplus
}
#endif

#endif /* DART_SHMEMX_H_ */
