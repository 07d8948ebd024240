# cmake -DBUILD_DIR= -DWORK_DIR= -DCONSUMER_SRC= -DLAUNCH=a|b|c -P shmem_wrappers.cmake
# Installs the build into a scratch prefix and checks that the installed
# oshcc and oshc++ behave as other OpenSHMEM implementations' wrappers do.
include(${CMAKE_CURRENT_LIST_DIR}/scratch_prefix.cmake)

run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
foreach(h mpp/shmem.h mpp/shmemx.h)
  if(NOT EXISTS ${prefix}/include/${h})
    message(FATAL_ERROR "not installed: include/${h}")
  endif()
endforeach()
# The wrappers as other implementations' are: the legacy include path,
# MPI and libm with nothing but the program's arguments, and the options
# that print what they would do.
run(${prefix}/bin/oshcc -std=c11 ${CONSUMER_SRC}/shmem_legacy_consumer.c -o ${WORK_DIR}/shmem_legacy)
run(${LAUNCH} ${WORK_DIR}/shmem_legacy)
message(STATUS "legacy oshcc consumer:\n${last_output}")
if(NOT last_output MATCHES "legacy consumer ok on 2 PEs")
  message(FATAL_ERROR "unexpected output from the legacy oshcc consumer")
endif()
# Each option, and what its output must and must not hold.
foreach(form "--showme|-ldartshmem.*-lm|^$" "-show|-ldartshmem.*-lm|^$" "--showme:compile|^-I| -l"
             "--showme:link|-ldartshmem.*-lm|-I" "-compile-info| -c x.c|-ldartshmem"
             "-link-info|-ldartshmem.*-lm|^$")
  string(REPLACE "|" ";" form "${form}")
  list(GET form 0 option)
  list(GET form 1 must)
  list(GET form 2 must_not)
  set(args ${option} x.c -o x)
  if(option STREQUAL "-compile-info")
    set(args ${option} -c x.c)
  endif()
  run(${prefix}/bin/oshcc ${args})
  string(STRIP "${last_output}" shown)
  if(NOT shown MATCHES "${must}" OR shown MATCHES "${must_not}")
    message(FATAL_ERROR "oshcc ${args} printed '${shown}'")
  endif()
  message(STATUS "oshcc ${option}: ${shown}")
endforeach()
# The compiler variables of Sandia OpenSHMEM and Open MPI's oshmem.
foreach(var SHMEM_CC OSHMEM_CC)
  set(ENV{${var}} /bin/echo)
  run(${prefix}/bin/oshcc x.c)
  unset(ENV{${var}})
  if(NOT last_output MATCHES "x.c")
    message(FATAL_ERROR "oshcc ignored ${var}: '${last_output}'")
  endif()
endforeach()
set(ENV{SHMEM_CXX} /bin/echo)
run(${prefix}/bin/oshc++ x.cpp)
unset(ENV{SHMEM_CXX})
if(NOT last_output MATCHES "x.cpp")
  message(FATAL_ERROR "oshc++ ignored SHMEM_CXX: '${last_output}'")
endif()
# shmem4py's build takes its compiler from OSHCC; with the installed feature
# list it must see every OpenSHMEM 1.5 routine family it asks about as ours.
file(READ ${prefix}/share/dart/shmem4py.flags shmem4py_flags)
separate_arguments(shmem4py_flags UNIX_COMMAND "${shmem4py_flags}")
run(${prefix}/bin/oshcc -std=c11 ${shmem4py_flags} ${CONSUMER_SRC}/shmem4py_features.c -o ${WORK_DIR}/shmem4py_features)
run(${WORK_DIR}/shmem4py_features)
if(NOT last_output MATCHES "22 routines, 0 missing")
  message(FATAL_ERROR "shmem4py feature check: '${last_output}'")
endif()
message(STATUS "${last_output}")
