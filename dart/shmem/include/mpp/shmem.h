/* The legacy include path <mpp/shmem.h> of Cray SHMEM and of programs written
 * for Sandia OpenSHMEM (bale's applications among them): the same
 * declarations as <shmem.h>. */
#ifndef DART_MPP_SHMEM_H
#define DART_MPP_SHMEM_H
#include <shmem.h>
#endif
