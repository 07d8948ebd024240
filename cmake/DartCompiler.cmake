# Warning and sanitizer flags for every target of the project.
add_compile_options(-Wall -Wextra)
if(DART_WERROR)
  add_compile_options(-Werror)
endif()
# glibc shows HOST_NAME_MAX (64) to C++ and GNU C; the locality structs of
# dart_types.h have that size only if the library sees the same value.
add_compile_definitions(_XOPEN_SOURCE=700 _DEFAULT_SOURCE)

if(DART_SANITIZE)
  set(_san -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_compile_options(${_san})
  add_link_options(${_san})
endif()
