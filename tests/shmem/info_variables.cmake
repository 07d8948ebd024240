# cmake -DINFO=<dartshmem_info> -DSOURCE_DIR=<top of the tree> -P info_variables.cmake
# The information command's table of environment variables cannot drift
# from the code: every name a source of the runtime reads (getenv("NAME"),
# or one of config.cpp's readers, read_flag("NAME", ...) and its kin) must
# be listed by `dartshmem_info --parsable`, and every name it lists must be
# read somewhere. The runtime's sources are DART's (dart/src), the
# OpenSHMEM layer's (dart/shmem/src) and the MPI workarounds libdart
# carries (mpifix); the launcher's own variables are not the runtime's.
file(GLOB_RECURSE sources ${SOURCE_DIR}/dart/src/*.cpp ${SOURCE_DIR}/dart/src/*.hpp
     ${SOURCE_DIR}/dart/shmem/src/*.cpp ${SOURCE_DIR}/mpifix/*.cpp)
set(read "")
foreach(f IN LISTS sources)
  file(READ ${f} text)
  string(REGEX MATCHALL "(getenv|read_[a-z_]+(<[^>(]*>)?)\\([ \t\r\n]*\"(SHMEM|DART|DASH)_[A-Z0-9_]*[A-Z0-9]\"" calls "${text}")
  foreach(c IN LISTS calls)
    string(REGEX MATCH "\"([A-Z0-9_]+)\"" _ "${c}")
    list(APPEND read ${CMAKE_MATCH_1})
  endforeach()
endforeach()
list(REMOVE_DUPLICATES read)
list(SORT read)

execute_process(COMMAND ${INFO} --parsable RESULT_VARIABLE rc OUTPUT_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${INFO} --parsable failed (${rc})")
endif()
string(REGEX MATCHALL "env:[A-Z0-9_]+:default:" lines "${out}")
set(listed "")
foreach(l IN LISTS lines)
  string(REGEX REPLACE "env:([A-Z0-9_]+):default:" "\\1" name "${l}")
  list(APPEND listed ${name})
endforeach()
list(SORT listed)

set(missing ${read})
list(REMOVE_ITEM missing ${listed})
set(stale ${listed})
list(REMOVE_ITEM stale ${read})
list(LENGTH read n_read)
list(LENGTH listed n_listed)
message(STATUS "read by the sources: ${n_read}; listed by dartshmem_info: ${n_listed}")
if(missing)
  message(FATAL_ERROR "read by the runtime but not listed by dartshmem_info (dart/shmem/src/info.cpp): ${missing}")
endif()
if(stale)
  message(FATAL_ERROR "listed by dartshmem_info but read nowhere: ${stale}")
endif()
