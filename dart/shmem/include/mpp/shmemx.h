/* The legacy include path <mpp/shmemx.h> of Cray SHMEM and of programs written
 * for Sandia OpenSHMEM (bale's applications among them): the same
 * declarations as <shmemx.h>. */
#ifndef DART_MPP_SHMEMX_H
#define DART_MPP_SHMEMX_H
#include <shmemx.h>
#endif
