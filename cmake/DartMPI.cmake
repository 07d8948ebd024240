# Chooses the MPI implementation before FindMPI runs.
#
# Debian installs Open MPI and MPICH side by side; their wrappers are
# mpicc.openmpi / mpicc.mpich and their launchers mpiexec.openmpi /
# mpiexec.mpich. DART_MPI picks one pair; a user who has set FindMPI's own
# hint variables (MPI_C_COMPILER, MPI_CXX_COMPILER, MPIEXEC_EXECUTABLE) on
# the command line keeps them.
string(TOLOWER "${DART_MPI}" _dart_mpi)
if(NOT _dart_mpi MATCHES "^(openmpi|mpich)$")
  message(FATAL_ERROR "DART_MPI must be 'openmpi' or 'mpich', not '${DART_MPI}'")
endif()
foreach(_var_wrapper IN ITEMS "MPI_C_COMPILER;mpicc" "MPI_CXX_COMPILER;mpicxx" "MPIEXEC_EXECUTABLE;mpiexec")
  list(GET _var_wrapper 0 _var)
  list(GET _var_wrapper 1 _wrapper)
  if(NOT ${_var})
    find_program(_found NAMES ${_wrapper}.${_dart_mpi} NO_CACHE)
    if(_found)
      set(${_var} "${_found}" CACHE FILEPATH "${_wrapper} of ${_dart_mpi}")
    endif()
    unset(_found)
  endif()
endforeach()

find_package(MPI 3.0 REQUIRED COMPONENTS C CXX)

# Which launcher we drive decides the flags the test helper adds.
execute_process(COMMAND "${MPIEXEC_EXECUTABLE}" --version
  OUTPUT_VARIABLE _mpiexec_version ERROR_VARIABLE _mpiexec_version
  RESULT_VARIABLE _rc TIMEOUT 20)
if(_mpiexec_version MATCHES "Open MPI|OpenRTE")
  set(DART_MPI_FLAVOR "openmpi" CACHE INTERNAL "")
elseif(_mpiexec_version MATCHES "HYDRA|MPICH")
  set(DART_MPI_FLAVOR "mpich" CACHE INTERNAL "")
else()
  set(DART_MPI_FLAVOR "unknown" CACHE INTERNAL "")
endif()
message(STATUS "MPI launcher: ${MPIEXEC_EXECUTABLE} (${DART_MPI_FLAVOR})")
