# add_mpi_test(): registers one test executable with CTest under mpiexec.
#
#   add_mpi_test(<name>
#     SOURCES <files...> | EXECUTABLE <target>
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
# EXECUTABLE runs an executable another add_mpi_test() built, instead of
# building <name> from SOURCES: variants that differ only in their
# environment (checks off, shared memory off) then compile once.
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

# The sanitizer builds' runtime options, for every test that runs our
# programs (the test files pass DART_TEST_ENVIRONMENT on).
#  address: leaks inside the MPI stack are suppressed so that LeakSanitizer
#    reports only our own. Suppressions match by module name, so Open MPI
#    must keep its components loaded (disable_dlclose) and the unwinder must
#    not rely on frame pointers the MPI libraries lack.
#  thread: a report is never fatal at once (a run shows every race it
#    meets) but makes the process exit 66, and the lane's script also finds
#    the reports in the tests' output. Reports wholly inside MPI, libevent,
#    hwloc or UCX are suppressed (cmake/tsan.supp). Open MPI's memory
#    patcher and UCX's malloc/mmap hooks rewrite the allocator under TSan's
#    feet (TSan owns malloc and mmap), so both are turned off.
set(DART_TEST_ENVIRONMENT "")
# MPICH over UCX: the launch-time setting dartrun also makes (docs/mpi-workarounds.md,
# "Working around the MPI"; libdart cannot make it, UCX reads it first).
if(DART_MPI_FLAVOR STREQUAL "mpich")
  list(APPEND DART_TEST_ENVIRONMENT "UCX_MEM_MMAP_HOOK_MODE=none")
endif()
if(DART_SANITIZER STREQUAL "address")
  list(APPEND DART_TEST_ENVIRONMENT
    "LSAN_OPTIONS=suppressions=${PROJECT_SOURCE_DIR}/cmake/lsan.supp:print_suppressions=0:fast_unwind_on_malloc=0"
    "ASAN_OPTIONS=fast_unwind_on_malloc=0"
    "OMPI_MCA_mca_base_component_disable_dlclose=1")
elseif(DART_SANITIZER STREQUAL "thread")
  list(APPEND DART_TEST_ENVIRONMENT
    "TSAN_OPTIONS=suppressions=${PROJECT_SOURCE_DIR}/cmake/tsan.supp:print_suppressions=0:halt_on_error=0:exitcode=66:second_deadlock_stack=1"
    "OMPI_MCA_memory=^patcher"
    "OMPI_MCA_mca_base_component_disable_dlclose=1"
    "UCX_MEM_MALLOC_HOOKS=no"
    "UCX_MEM_MMAP_HOOK_MODE=none"
    "UCX_MEM_EVENTS=no")
endif()

# A test that loads our instrumented code into a program that is not ours
# (the pmix Python module into /usr/bin/python3) must preload the
# sanitizer's runtime, and libstdc++ with it so that the runtime finds
# __cxa_throw. The interpreter keeps its objects until exit by design, and
# a leak suppression naming it would match every allocation made through
# it, ours too: in that test LeakSanitizer is off, the other checks stay.
set(DART_PRELOAD_ENVIRONMENT "")
if(DART_SANITIZER)
  if(DART_SANITIZER STREQUAL "address")
    set(_rt libasan.so)
  else()
    set(_rt libtsan.so)
  endif()
  execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=${_rt}
    OUTPUT_VARIABLE _rt_path OUTPUT_STRIP_TRAILING_WHITESPACE)
  execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=libstdc++.so.6
    OUTPUT_VARIABLE _cxx_path OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(IS_ABSOLUTE "${_rt_path}" AND EXISTS "${_rt_path}")
    list(APPEND DART_PRELOAD_ENVIRONMENT "LD_PRELOAD=${_rt_path} ${_cxx_path}")
  endif()
  if(DART_SANITIZER STREQUAL "address")
    list(APPEND DART_PRELOAD_ENVIRONMENT "ASAN_OPTIONS=detect_leaks=0:fast_unwind_on_malloc=0")
  else()
    set(_tsan_opts ${DART_TEST_ENVIRONMENT})
    list(FILTER _tsan_opts INCLUDE REGEX "^TSAN_OPTIONS=")
    list(APPEND DART_PRELOAD_ENVIRONMENT ${_tsan_opts})
  endif()
endif()

# The command line that runs <exe> on <np> ranks, bounded by <timeout>.
function(dart_mpiexec_command out np timeout)
  set(${out} ${DART_TIMEOUT_EXECUTABLE} --kill-after=5 ${timeout}
             ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${np}
             ${DART_MPIEXEC_PREFLAGS} ${MPIEXEC_PREFLAGS} PARENT_SCOPE)
endfunction()

function(add_mpi_test name)
  cmake_parse_arguments(T "WILL_FAIL;NO_MAIN;RMA_VARIANT" "TIMEOUT;EXECUTABLE"
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

  if(T_EXECUTABLE)
    if(T_SOURCES OR T_LIBRARIES OR NOT TARGET ${T_EXECUTABLE})
      message(FATAL_ERROR "add_mpi_test(${name}): EXECUTABLE names a target built earlier, without SOURCES or LIBRARIES")
    endif()
    set(_exe ${T_EXECUTABLE})
  else()
    set(_exe ${name})
    add_executable(${name} ${T_SOURCES})
    if(NOT T_NO_MAIN)
      target_link_libraries(${name} PRIVATE dart_test_main)
    endif()
    target_link_libraries(${name} PRIVATE ${T_LIBRARIES})
  endif()

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
      add_test(NAME ${_test} COMMAND ${_cmd} $<TARGET_FILE:${_exe}> ${MPIEXEC_POSTFLAGS})
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
