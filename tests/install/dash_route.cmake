# cmake -DBUILD_DIR= -DWORK_DIR= -DPROJECT_SRC= -DLAUNCH=a|b|c -P dash_route.cmake
#
# The route for building DASH on an installed libdart (docs/dash.md),
# without DASH: installs the build, checks that the initial cache and the
# hooks are installed, configures the DASH-shaped project in PROJECT_SRC
# with `cmake -C <prefix>/share/dart/dash/libdart-for-dash.cmake` as a
# DASH user does, builds it, runs it on 2 units, and checks that the
# program binds to libdart and to nothing of the project's own DART, and
# that installing the project installs libdart's headers.
include(${CMAKE_CURRENT_LIST_DIR}/scratch_prefix.cmake)

run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
set(cache ${prefix}/share/dart/dash/libdart-for-dash.cmake)
foreach(f ${cache} ${prefix}/share/dart/dash/dash-hooks.cmake ${prefix}/share/dart/dash/empty.c)
  if(NOT EXISTS ${f})
    message(FATAL_ERROR "not installed: ${f}")
  endif()
endforeach()

# The installed tree is relocatable: the cache file finds the prefix from
# where it lies, so use a moved copy.
set(moved ${WORK_DIR}/moved)
file(RENAME ${prefix} ${moved})
set(cache ${moved}/share/dart/dash/libdart-for-dash.cmake)

run(${CMAKE_COMMAND} -C ${cache} -S ${PROJECT_SRC} -B ${WORK_DIR}/build)
if(NOT last_output MATCHES "libdart-for-dash: dart-mpi and dart-base forward to ${moved}")
  message(FATAL_ERROR "the hooks did not run:\n${last_output}")
endif()
run(${CMAKE_COMMAND} --build ${WORK_DIR}/build)
set(exe ${WORK_DIR}/build/dash/dash-shaped)

# Nothing of the project's own DART is in the program, and it needs libdart.
run(nm ${exe})
if(last_output MATCHES "dart_base_own_marker| T dart_init")
  message(FATAL_ERROR "the program contains the project's own DART:\n${last_output}")
endif()
run(readelf -d ${exe})
if(NOT last_output MATCHES "NEEDED[^\n]*libdart\\.so")
  message(FATAL_ERROR "the program does not need libdart:\n${last_output}")
endif()

# DASH installs the DART headers its build used: libdart's.
run(${CMAKE_COMMAND} --install ${WORK_DIR}/build --prefix ${WORK_DIR}/dash_prefix)
file(READ ${WORK_DIR}/dash_prefix/include/dash/dart/if/dart.h installed_dart_h)
file(READ ${moved}/include/dash/dart/if/dart.h our_dart_h)
if(NOT installed_dart_h STREQUAL our_dart_h)
  message(FATAL_ERROR "the project installed DART headers other than libdart's")
endif()

run(${LAUNCH} ${exe})
message(STATUS "DASH-shaped program:\n${last_output}")
if(NOT last_output MATCHES "dash-shaped ok on 2 units")
  message(FATAL_ERROR "unexpected output from the DASH-shaped program")
endif()
