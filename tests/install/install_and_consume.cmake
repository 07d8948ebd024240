# cmake -DBUILD_DIR= -DWORK_DIR= -DCONSUMER_SRC= -DCOMPILER= -DLAUNCH=a|b|c -P install_and_consume.cmake
include(${CMAKE_CURRENT_LIST_DIR}/scratch_prefix.cmake)

# 1. Install.
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
foreach(f include/dash/dart/if/dart.h include/dash/dart/if/dart_globmem.h
          lib/cmake/DART/DARTConfig.cmake lib/pkgconfig/dart.pc)
  if(NOT EXISTS ${prefix}/${f})
    # Debian's GNUInstallDirs may choose lib/<multiarch>.
    file(GLOB alt ${prefix}/lib/*/cmake/DART/DARTConfig.cmake ${prefix}/lib/*/pkgconfig/dart.pc)
    if(NOT alt AND NOT f MATCHES "^include")
      message(FATAL_ERROR "not installed: ${f}")
    elseif(f MATCHES "^include")
      message(FATAL_ERROR "not installed: ${f}")
    endif()
  endif()
endforeach()

# 2. find_package(DART) from an out-of-tree project.
run(${CMAKE_COMMAND} -S ${CONSUMER_SRC} -B ${WORK_DIR}/consumer -DCMAKE_PREFIX_PATH=${prefix}
    -DCMAKE_C_COMPILER=${COMPILER})
run(${CMAKE_COMMAND} --build ${WORK_DIR}/consumer)
run(${LAUNCH} ${WORK_DIR}/consumer/consumer)
message(STATUS "find_package consumer:\n${last_output}")
if(NOT last_output MATCHES "consumer ok on 2 units")
  message(FATAL_ERROR "unexpected output from the find_package consumer")
endif()

# 3. pkg-config, with a plain compiler and no MPI include path at all.
file(GLOB_RECURSE pc ${prefix}/dart.pc)
get_filename_component(pcdir "${pc}" DIRECTORY)
set(ENV{PKG_CONFIG_PATH} "${pcdir}")
run(pkg-config --cflags --libs dart)
string(STRIP "${last_output}" flags)
separate_arguments(flags UNIX_COMMAND "${flags}")
run(pkg-config --variable=libdir dart)
string(STRIP "${last_output}" libdir)
run(${COMPILER} -std=c99 -D_XOPEN_SOURCE=700 ${CONSUMER_SRC}/consumer.c -o ${WORK_DIR}/consumer_pc ${flags}
    -Wl,-rpath,${libdir})
run(${LAUNCH} ${WORK_DIR}/consumer_pc)
message(STATUS "pkg-config consumer:\n${last_output}")
if(NOT last_output MATCHES "consumer ok on 2 units")
  message(FATAL_ERROR "unexpected output from the pkg-config consumer")
endif()

# 4. OpenSHMEM: the installed wrappers build the program with nothing but
# the program's own arguments, and oshrun (dartrun) runs it.
run(${prefix}/bin/oshcc -std=c11 ${CONSUMER_SRC}/shmem_consumer.c -o ${WORK_DIR}/shmem_oshcc)
run(${prefix}/bin/oshrun -n 2 ${WORK_DIR}/shmem_oshcc)
message(STATUS "oshcc/oshrun consumer:\n${last_output}")
if(NOT last_output MATCHES "shmem consumer ok on 2 PEs")
  message(FATAL_ERROR "unexpected output from the oshcc consumer")
endif()
run(${prefix}/bin/oshc++ -x c++ -std=c++17 ${CONSUMER_SRC}/shmem_consumer.c -o ${WORK_DIR}/shmem_oshcxx)
run(${LAUNCH} ${WORK_DIR}/shmem_oshcxx)
if(NOT last_output MATCHES "shmem consumer ok on 2 PEs")
  message(FATAL_ERROR "unexpected output from the oshc++ consumer")
endif()
# find_package(DART) gives DART::shmem; pkg-config gives dart-shmem.
run(${LAUNCH} ${WORK_DIR}/consumer/shmem_consumer)
if(NOT last_output MATCHES "shmem consumer ok on 2 PEs")
  message(FATAL_ERROR "unexpected output from the find_package shmem consumer")
endif()
run(pkg-config --cflags --libs dart-shmem)
string(STRIP "${last_output}" flags)
separate_arguments(flags UNIX_COMMAND "${flags}")
run(${COMPILER} -std=c11 ${CONSUMER_SRC}/shmem_consumer.c -o ${WORK_DIR}/shmem_pc ${flags} -Wl,-rpath,${libdir})
run(${LAUNCH} ${WORK_DIR}/shmem_pc)
if(NOT last_output MATCHES "shmem consumer ok on 2 PEs")
  message(FATAL_ERROR "unexpected output from the pkg-config shmem consumer")
endif()

