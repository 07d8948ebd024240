# cmake -DNM= -DOBJECTS=a.o|b.o|... -DMAP_IN= -DMAP_OUT= -DALIASES_OUT= -DHEADER_OUT=
#       -DINCLUDE_DIR= -P pshmem.cmake
#
# The profiling interface (OpenSHMEM 1.5, "Profiling Interface"), written
# just before libdartshmem is linked, from the library's own objects:
#
#   ALIASES_OUT  a linker script of assignments p<routine> = <routine>, one
#                per routine: the name-shifted entry point is the routine's
#                own code under a second name;
#   MAP_OUT      the version script MAP_IN with those p<routine> names
#                exported beside the routines;
#   HEADER_OUT   pshmem.h, which declares each p<routine> with the type of
#                <routine> as shmem.h or shmemx.h declares it.
#
# A routine is a function the objects define whose name a global pattern of
# MAP_IN exports, except the MPI routines libdartshmem interposes (they
# belong to MPI's own profiling interface). Reading the objects rather than
# a list of names means a routine added anywhere, by hand or by a type
# table's macro, gets its entry point without anyone naming it.
cmake_minimum_required(VERSION 3.25)
foreach(var NM OBJECTS MAP_IN MAP_OUT ALIASES_OUT HEADER_OUT INCLUDE_DIR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "pshmem.cmake: ${var} is not set")
  endif()
endforeach()
string(REPLACE "|" ";" OBJECTS "${OBJECTS}")

# The exported patterns: the entries of the version script's global part.
file(READ ${MAP_IN} map)
string(REGEX REPLACE "/\\*([^*]|\\*+[^*/])*\\*+/" "" map_body "${map}")
string(REGEX MATCH "global:([^}]*)local:" global "${map_body}")
string(REGEX MATCHALL "[A-Za-z_*][A-Za-z0-9_*]*;" entries "${CMAKE_MATCH_1}")
set(patterns "")
foreach(entry IN LISTS entries)
  string(REPLACE ";" "" entry "${entry}")
  if(entry MATCHES "^MPI_")
    continue()
  endif()
  string(REPLACE "*" "[A-Za-z0-9_]*" regex "${entry}")
  list(APPEND patterns "^${regex}$")
endforeach()
if(NOT patterns)
  message(FATAL_ERROR "pshmem.cmake: no global patterns in ${MAP_IN}")
endif()

execute_process(COMMAND ${NM} -g --defined-only -P ${OBJECTS}
  RESULT_VARIABLE rc OUTPUT_VARIABLE listing ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "pshmem.cmake: ${NM} failed: ${err}")
endif()
# Functions only ("T"): the exported objects (the predefined team and
# context records) are data, not routines.
string(REGEX MATCHALL "(^|\n)[A-Za-z_][A-Za-z0-9_]* T " defined "${listing}")
set(routines "")
foreach(line IN LISTS defined)
  string(REGEX REPLACE "^\n?([A-Za-z0-9_]+) T $" "\\1" name "${line}")
  if(name MATCHES "^p")
    continue()
  endif()
  foreach(p IN LISTS patterns)
    if(name MATCHES "${p}")
      list(APPEND routines ${name})
      break()
    endif()
  endforeach()
endforeach()
list(REMOVE_DUPLICATES routines)
list(SORT routines)
list(LENGTH routines count)
if(count EQUAL 0)
  message(FATAL_ERROR "pshmem.cmake: no routines found in ${OBJECTS}")
endif()

# In C++, shmem_generic.h overloads a few names of routines (shmem_sync
# takes a team too), and decltype cannot pick one of an overload set. For
# those, the routine's declaration is copied from shmem.h or shmemx.h with
# its name shifted; it must be a declaration of its own there (not made by
# a type-table macro), or this stops with the name.
file(GLOB headers ${INCLUDE_DIR}/*.h)
set(cxx_overloads "")
set(c_decls "")
foreach(h IN LISTS headers)
  file(READ ${h} text)
  if(h MATCHES "generic")
    string(REGEX MATCHALL "inline[^\n(]*[ *&]([A-Za-z_][A-Za-z0-9_]*)\\(" found "${text}")
    foreach(f IN LISTS found)
      string(REGEX REPLACE ".*[ *&]([A-Za-z_][A-Za-z0-9_]*)\\($" "\\1" f "${f}")
      list(APPEND cxx_overloads ${f})
    endforeach()
  else()
    string(APPEND c_decls "\n${text}")
  endif()
endforeach()

set(aliases "/* Written by dart/shmem/tools/pshmem.cmake: the profiling interface's\n   ${count} name-shifted entry points, each the routine's own code. */\n")
set(exports "")
set(decls "")
foreach(name IN LISTS routines)
  string(APPEND aliases "p${name} = ${name};\n")
  string(APPEND exports "    p${name};\n")
  if(name IN_LIST cxx_overloads)
    string(REGEX MATCH "\n([^;\n{}#/]*[ *]${name}\\([^;{}]*\\);)" decl "${c_decls}")
    if(NOT decl)
      message(FATAL_ERROR "pshmem.cmake: ${name} is overloaded in C++ and has no declaration of its own in ${INCLUDE_DIR}")
    endif()
    string(REGEX REPLACE "([ *])${name}\\(" "\\1p${name}(" decl "${CMAKE_MATCH_1}")
    string(APPEND decls "#ifdef __cplusplus\n${decl}\n#else\nDART_PSHMEM_DECL(${name})\n#endif\n")
  else()
    string(APPEND decls "DART_PSHMEM_DECL(${name})\n")
  endif()
endforeach()

# Only rewrite what changed, so that nothing depending on pshmem.h is
# rebuilt when a link changes nothing in the set of routines.
function(write_if_changed path text)
  if(EXISTS ${path})
    file(READ ${path} old)
    if(old STREQUAL text)
      return()
    endif()
  endif()
  file(WRITE ${path} "${text}")
endfunction()

write_if_changed(${ALIASES_OUT} "${aliases}")
string(REGEX REPLACE "global:\n" "global:\n${exports}" map_out "${map}")
write_if_changed(${MAP_OUT} "${map_out}")

write_if_changed(${HEADER_OUT} "/*
 * The OpenSHMEM profiling interface of DART's OpenSHMEM: pshmem_NAME (and
 * pshmemx_NAME, pstart_pes, ...) for every routine libdartshmem exports,
 * ${count} in all. Each is the routine itself under a second name, so a
 * profiling library that defines shmem_NAME (and is linked or preloaded
 * before libdartshmem) calls pshmem_NAME to reach the library. Calls the
 * library makes between its own routines bind inside it, so a profiler
 * sees only the program's calls.
 *
 * Generated when libdartshmem is built, from the routines its objects
 * define (dart/shmem/tools/pshmem.cmake); do not edit. Each entry point is
 * declared with the type of its routine's declaration in shmem.h or
 * shmemx.h (typeof in C, decltype in C++), so the two cannot differ; the
 * types and constants are those of shmem.h and shmemx.h, included here.
 *
 * The C11 type-generic names (shmem_put, ...) are macros in C and inline
 * overloads in C++ that call the typed routines: they have no pshmem_
 * form, and a profiler sees their calls as calls of the typed routines.
 */
#ifndef DART_PSHMEM_H_
#define DART_PSHMEM_H_

#include <shmem.h>
#include <shmemx.h>

#ifdef __cplusplus
#define DART_PSHMEM_DECL(name) decltype(name) p##name;
extern \"C\" {
#else
#define DART_PSHMEM_DECL(name) extern __typeof__(name) p##name;
#endif

${decls}
#ifdef __cplusplus
} /* extern \"C\" */
#endif
#undef DART_PSHMEM_DECL

#endif /* DART_PSHMEM_H_ */
")
