# Included by DASH's build (through the CMAKE_PROJECT_<name>_INCLUDE
# variables that libdart-for-dash.cmake sets) right after the project()
# call of two of its directories. PROJECT_NAME says which one.

if(PROJECT_NAME STREQUAL "project_dash_dart_impl_mpi")
  # dart-impl/mpi: DASH's own DART. Its targets dart-mpi and dart-base are
  # what DASH's library, tests and examples link; they keep their names
  # (so DASH's target_link_libraries() calls still resolve) but lose their
  # sources and link our libdart instead.
  find_package(DART REQUIRED CONFIG PATHS "${DART_FOR_DASH_PREFIX}" NO_DEFAULT_PATH)
  # DASH links dart-mpi from its dash/ directory; an imported target is
  # visible only where it was found unless it is made global.
  set_target_properties(DART::dart PROPERTIES IMPORTED_GLOBAL TRUE)

  function(_dart_for_dash_replace)
    foreach(_t IN ITEMS dart-mpi dart-base)
      if(NOT TARGET ${_t})
        message(FATAL_ERROR "libdart-for-dash: DASH's build has no target ${_t}; "
          "this DASH tree is laid out differently from the one the route was written for")
      endif()
      # One empty translation unit: a library needs a source, and this one
      # defines no symbol, so every dart_* call binds to libdart.
      set_property(TARGET ${_t} PROPERTY SOURCES "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/empty.c")
      set_property(TARGET ${_t} PROPERTY LINK_LIBRARIES DART::dart)
      set_property(TARGET ${_t} PROPERTY INTERFACE_LINK_LIBRARIES DART::dart)
    endforeach()
    message(STATUS "libdart-for-dash: dart-mpi and dart-base forward to ${DART_FOR_DASH_PREFIX}")
  endfunction()
  # dart-mpi is created further down in this directory's CMakeLists.txt;
  # the deferred call runs once that file has been read to its end.
  cmake_language(DEFER CALL _dart_for_dash_replace)

elseif(PROJECT_NAME STREQUAL "project_dash_dart_if")
  # dart-if: DASH's DART headers. This directory installs the headers
  # DASH_DART_IF_INCLUDE_DIR names and passes the variable up to DASH's
  # top level, from where DASH's C++ library, tests and examples take it.
  # Set here, it makes all of them compile against libdart's own headers,
  # and a DASH install carries libdart's headers, not DASH's copies.
  set(DASH_DART_IF_INCLUDE_DIR "${DART_FOR_DASH_PREFIX}/include")
endif()
