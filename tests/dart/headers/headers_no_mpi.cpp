/*
 * Proves that the public DART headers do not depend on MPI.
 *
 * Built without any MPI include directory or library (the target's
 * include path is exactly the DART public include directory): if any
 * public header included <mpi.h> this translation unit would not compile,
 * and if an mpi.h were reachable through the default search path its
 * version macros would trigger the #error below. Each header is also
 * included on its own first, so each one is checked independently of the
 * umbrella header.
 */
#include <dash/dart/if/dart_util.h>
#include <dash/dart/if/dart_types.h>
#include <dash/dart/if/dart_config.h>
#include <dash/dart/if/dart_initialization.h>
#include <dash/dart/if/dart_team_group.h>
#include <dash/dart/if/dart_globmem.h>
#include <dash/dart/if/dart_communication.h>
#include <dash/dart/if/dart_synchronization.h>
#include <dash/dart/if/dart_locality.h>
#include <dash/dart/if/dart.h>

#if defined(MPI_VERSION) || defined(MPI_SUBVERSION) || \
    defined(OMPI_MAJOR_VERSION) || defined(MPICH_VERSION) || \
    defined(MPI_COMM_WORLD)
#  error "a public DART header pulled in mpi.h"
#endif

int main()
{
  return 0;
}
