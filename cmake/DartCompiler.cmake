# Warning and sanitizer flags for every target of the project.
add_compile_options(-Wall -Wextra)
if(DART_WERROR)
  add_compile_options(-Werror)
endif()
# glibc shows HOST_NAME_MAX (64) to C++ and GNU C; the locality structs of
# dart_types.h have that size only if the library sees the same value.
add_compile_definitions(_XOPEN_SOURCE=700 _DEFAULT_SOURCE)

# DART_SANITIZE takes a value: OFF, address (AddressSanitizer and
# UndefinedBehaviorSanitizer; ON and the other CMake true values mean this,
# as they always have) or thread (ThreadSanitizer, which cannot share a
# process with ASan). The option() in the top-level file declares it BOOL;
# it is a string here so that cmake-gui offers the three values.
set_property(CACHE DART_SANITIZE PROPERTY TYPE STRING)
set_property(CACHE DART_SANITIZE PROPERTY STRINGS OFF address thread)
set_property(CACHE DART_SANITIZE PROPERTY HELPSTRING
  "Sanitizer build: OFF, address (ASan+UBSan; ON means the same) or thread (TSan)")
string(TOLOWER "${DART_SANITIZE}" _dart_san)
if(_dart_san MATCHES "^(address|asan)$")
  set(DART_SANITIZER address)
elseif(_dart_san MATCHES "^(thread|tsan)$")
  set(DART_SANITIZER thread)
elseif(_dart_san MATCHES "^(on|yes|y|true|1)$")
  set(DART_SANITIZER address)
elseif(NOT DART_SANITIZE)
  set(DART_SANITIZER "")
else()
  message(FATAL_ERROR "DART_SANITIZE must be OFF, ON, address or thread, not '${DART_SANITIZE}'")
endif()

if(DART_SANITIZER STREQUAL "address")
  set(_san -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
elseif(DART_SANITIZER STREQUAL "thread")
  set(_san -fsanitize=thread -fno-omit-frame-pointer)
  # GCC warns that TSan does not model std::atomic_thread_fence. Our fences
  # order accesses to MPI shared-memory windows between processes, which
  # TSan (one process at a time) cannot see anyway: a warning, not an error.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    add_compile_options(-Wno-error=tsan)
  endif()
endif()
if(DART_SANITIZER)
  message(STATUS "Sanitizer build: ${DART_SANITIZER}")
  add_compile_options(${_san})
  add_link_options(${_san})
endif()
