# cmake -DBUILD_DIR= -DWORK_DIR= -DCONSUMER_SRC= -DLAUNCH=a|b|c -DNM= -P shmem_profiling_info.cmake
# Installs the build into a scratch prefix and checks, from the installed
# tree alone: every OpenSHMEM routine libdartshmem exports (nm -D) has its
# pshmem_ entry point; pshmem.h builds a program with oshcc and oshc++
# that runs through those entry points; oshmem_info and dartshmem_info
# print the report; SHMEM_VERSION and SHMEM_INFO print it at start.
include(${CMAKE_CURRENT_LIST_DIR}/scratch_prefix.cmake)

run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
file(GLOB lib ${prefix}/lib*/libdartshmem.so)
foreach(f ${prefix}/include/pshmem.h ${prefix}/bin/oshmem_info ${prefix}/bin/dartshmem_info "${lib}")
  if(NOT EXISTS "${f}")
    message(FATAL_ERROR "not installed: ${f}")
  endif()
endforeach()

# nm -D: every exported routine of OpenSHMEM (shmem_, shmemx_ and the
# deprecated names) has a p-prefixed entry point at the same address.
run(${NM} -D --defined-only ${lib})
string(REGEX MATCHALL "[0-9a-f]+ [TW] [A-Za-z_][A-Za-z0-9_]*" symbols "${last_output}")
set(routines 0)
set(shifted 0)
set(missing "")
foreach(s IN LISTS symbols)
  string(REGEX REPLACE "^([0-9a-f]+) [TW] (.*)$" "\\2" name "${s}")
  string(REGEX REPLACE "^([0-9a-f]+) [TW] (.*)$" "\\1" addr "${s}")
  set(address_of_${name} ${addr})
endforeach()
foreach(s IN LISTS symbols)
  string(REGEX REPLACE "^([0-9a-f]+) [TW] (.*)$" "\\2" name "${s}")
  if(name MATCHES "^(shmem_|shmemx_|start_pes$|_my_pe$|_num_pes$|shmalloc$|shfree$|shrealloc$|shmemalign$)")
    math(EXPR routines "${routines} + 1")
    if(DEFINED address_of_p${name} AND address_of_p${name} STREQUAL address_of_${name})
      math(EXPR shifted "${shifted} + 1")
    else()
      list(APPEND missing ${name})
    endif()
  endif()
endforeach()
message(STATUS "nm -D libdartshmem.so: ${shifted} pshmem_ entry points for ${routines} exported routines")
if(missing OR routines LESS 1000)
  message(FATAL_ERROR "routines without a pshmem_ entry point at their address: ${missing}")
endif()

# pshmem.h with the installed wrappers, in C and in C++, and the program
# run through the name-shifted entry points.
run(${prefix}/bin/oshcc -std=c11 -Wall -Wextra -Werror ${CONSUMER_SRC}/pshmem_consumer.c -o ${WORK_DIR}/pshmem_c)
configure_file(${CONSUMER_SRC}/pshmem_consumer.c ${WORK_DIR}/pshmem_consumer.cpp COPYONLY)
run(${prefix}/bin/oshc++ -std=c++17 -Wall -Wextra -Werror ${WORK_DIR}/pshmem_consumer.cpp -o ${WORK_DIR}/pshmem_cxx)
foreach(program pshmem_c pshmem_cxx)
  run(${LAUNCH} ${WORK_DIR}/${program})
  string(REGEX MATCHALL "pshmem consumer ok on PE" oks "${last_output}")
  list(LENGTH oks n_ok)
  if(n_ok LESS 2)
    message(FATAL_ERROR "${program}:\n${last_output}")
  endif()
endforeach()
message(STATUS "pshmem.h: built with oshcc and oshc++, ran on ${n_ok} PEs")

# The information command under both names.
foreach(tool oshmem_info dartshmem_info)
  run(${prefix}/bin/${tool})
  foreach(must "OpenSHMEM specification: +1\\.[0-9]+" "Vendor string: +DART OpenSHMEM" "MPI library: +[^\n]+"
               "MPI standard: +[0-9]\\.[0-9]" "Build type:" "\n  SHMEM_SYMMETRIC_SIZE +=" "\n  DART_SHARED_MEMORY +=")
    if(NOT last_output MATCHES "${must}")
      message(FATAL_ERROR "${tool} printed no \"${must}\":\n${last_output}")
    endif()
  endforeach()
endforeach()
message(STATUS "oshmem_info:\n${last_output}")
set(ENV{SHMEM_SYMMETRIC_SIZE} 1.5G)
run(${prefix}/bin/oshmem_info --parsable --all)
unset(ENV{SHMEM_SYMMETRIC_SIZE})
foreach(must "\nspec:version:1\\.[0-9]+\n" "\nenv:SHMEM_SYMMETRIC_SIZE:value:1\\.5G\n"
             "\nenv:SHMEM_SYMMETRIC_SIZE:default:256M\n" "\nenv:SHMEM_DEBUG:meaning:[^\n]+\n")
  if(NOT last_output MATCHES "${must}")
    message(FATAL_ERROR "oshmem_info --parsable --all printed no \"${must}\":\n${last_output}")
  endif()
endforeach()
run(${prefix}/bin/oshmem_info --version)
set(version_line "${last_output}")
run(${prefix}/bin/oshmem_info --help)
if(NOT last_output MATCHES "--parsable")
  message(FATAL_ERROR "oshmem_info --help:\n${last_output}")
endif()
execute_process(COMMAND ${prefix}/bin/oshmem_info --bogus RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_QUIET)
if(NOT rc EQUAL 2 OR NOT err MATCHES "unknown option '--bogus'")
  message(FATAL_ERROR "oshmem_info --bogus: exit ${rc}, '${err}'")
endif()

# SHMEM_VERSION and SHMEM_INFO at start: PE 0 prints the version line the
# command prints, and the report.
set(ENV{SHMEM_VERSION} 1)
set(ENV{SHMEM_INFO} 1)
run(${LAUNCH} ${WORK_DIR}/pshmem_c)
unset(ENV{SHMEM_VERSION})
unset(ENV{SHMEM_INFO})
message(STATUS "SHMEM_VERSION=1 SHMEM_INFO=1, 2 PEs:\n${last_output}")
string(FIND "${last_output}" "${version_line}" at)
if(at LESS 0 OR NOT last_output MATCHES "\n  SHMEM_INFO +=  *1 ")
  message(FATAL_ERROR "no version line '${version_line}' or no report")
endif()
