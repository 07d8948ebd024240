# add_mpi_test(): registers one test executable with CTest under mpiexec.
#
#   add_mpi_test(<name>
#     SOURCES <files...>
#     [LIBRARIES <targets...>]
#     [RANKS <n...>]          rank counts under Open MPI (default 1 2 3 4)
#     [MPICH_RANKS <n...>]    rank counts under MPICH (default: RANKS without 4,
#                             since 4 busy-polling MPICH ranks on 2 cores spend
#                             milliseconds in every collective)
#     [TIMEOUT <seconds>]     per run (default 60)
#     [ENVIRONMENT <VAR=value...>]
#     [LABELS <labels...>]
#     [WILL_FAIL]             the run is expected to fail (harness self-tests)
#     [RMA_VARIANT]           also run every rank count with DART_SHARED_MEMORY=0
#                             (tests named <name>.rma.np<n>), so the MPI RMA path
#                             is exercised even though all units share a node
#     [NO_MAIN])              the sources bring their own main()
#
# Every run is bounded twice: coreutils `timeout` kills the launcher's process
# group (so a deadlock fails in seconds and the exit code 124 says why), and
# CTest's TIMEOUT is a backstop a little later. Flags needed to run as root
# and to oversubscribe the cores live here and nowhere else.

set(DART_TEST_TIMEOUT 60 CACHE STRING "Default per-run timeout of MPI tests, in seconds")

find_program(DART_TIMEOUT_EXECUTABLE timeout REQUIRED)

if(DART_MPI_FLAVOR STREQUAL "openmpi")
  # --bind-to none: ctest runs several jobs at once; binding each job's rank 0
  # to core 0 would make them fight for one core.
  set(DART_MPIEXEC_PREFLAGS --oversubscribe --bind-to none)
  if(CMAKE_HOST_UNIX)
    execute_process(COMMAND id -u OUTPUT_VARIABLE _uid OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(_uid STREQUAL "0")
      list(APPEND DART_MPIEXEC_PREFLAGS --allow-run-as-root)
    endif()
  endif()
else()
  set(DART_MPIEXEC_PREFLAGS "")
endif()
set(DART_MPIEXEC_PREFLAGS "${DART_MPIEXEC_PREFLAGS}" CACHE INTERNAL "")

# In the sanitizer build, leaks inside the MPI stack are suppressed so that
# LeakSanitizer reports only our own. Suppressions match by module name, so
# Open MPI must keep its components loaded (disable_dlclose) and the
# unwinder must not rely on frame pointers the MPI libraries lack.
set(DART_TEST_ENVIRONMENT "")
if(DART_SANITIZE)
  list(APPEND DART_TEST_ENVIRONMENT
    "LSAN_OPTIONS=suppressions=${PROJECT_SOURCE_DIR}/cmake/lsan.supp:print_suppressions=0:fast_unwind_on_malloc=0"
    "ASAN_OPTIONS=fast_unwind_on_malloc=0"
    "OMPI_MCA_mca_base_component_disable_dlclose=1")
endif()

# The command line that runs <exe> on <np> ranks, bounded by <timeout>.
function(dart_mpiexec_command out np timeout)
  set(${out} ${DART_TIMEOUT_EXECUTABLE} --kill-after=5 ${timeout}
             ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${np}
             ${DART_MPIEXEC_PREFLAGS} ${MPIEXEC_PREFLAGS} PARENT_SCOPE)
endfunction()

function(add_mpi_test name)
  cmake_parse_arguments(T "WILL_FAIL;NO_MAIN;RMA_VARIANT" "TIMEOUT"
                        "SOURCES;LIBRARIES;RANKS;MPICH_RANKS;ENVIRONMENT;LABELS" ${ARGN})
  if(NOT T_RANKS)
    set(T_RANKS 1 2 3 4)
  endif()
  if(NOT T_MPICH_RANKS)
    set(T_MPICH_RANKS ${T_RANKS})
    list(REMOVE_ITEM T_MPICH_RANKS 4)
    if(NOT T_MPICH_RANKS)
      set(T_MPICH_RANKS ${T_RANKS})
    endif()
  endif()
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT ${DART_TEST_TIMEOUT})
  endif()

  add_executable(${name} ${T_SOURCES})
  if(NOT T_NO_MAIN)
    target_link_libraries(${name} PRIVATE dart_test_main)
  endif()
  target_link_libraries(${name} PRIVATE ${T_LIBRARIES})

  if(DART_MPI_FLAVOR STREQUAL "mpich")
    set(_ranks ${T_MPICH_RANKS})
  else()
    set(_ranks ${T_RANKS})
  endif()
  math(EXPR _backstop "${T_TIMEOUT} + 20")
  set(_variants "${name}|")
  if(T_RMA_VARIANT)
    list(APPEND _variants "${name}.rma|DART_SHARED_MEMORY=0")
  endif()
  foreach(_variant IN LISTS _variants)
    string(REPLACE "|" ";" _variant "${_variant}")
    list(GET _variant 0 _base)
    list(LENGTH _variant _len)
    set(_env "")
    if(_len GREATER 1)
      list(GET _variant 1 _env)
    endif()
    foreach(np IN LISTS _ranks)
      set(_test ${_base}.np${np})
      dart_mpiexec_command(_cmd ${np} ${T_TIMEOUT})
      add_test(NAME ${_test} COMMAND ${_cmd} $<TARGET_FILE:${name}> ${MPIEXEC_POSTFLAGS})
      set_tests_properties(${_test} PROPERTIES
        TIMEOUT ${_backstop}
        PROCESSORS ${np}
        LABELS "mpi;${T_LABELS}"
        ENVIRONMENT "DART_TEST_NAME=${_test};${_env};${DART_TEST_ENVIRONMENT};${T_ENVIRONMENT}")
      if(T_WILL_FAIL)
        set_tests_properties(${_test} PROPERTIES WILL_FAIL TRUE)
      endif()
    endforeach()
  endforeach()
endfunction()
