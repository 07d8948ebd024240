// DART data types as the runtime sees them.
#pragma once

#include <dash/dart/if/dart_types.h>

#include <cstddef>

namespace dart {

// True for DART_TYPE_BYTE ... DART_TYPE_LONG_DOUBLE.
[[nodiscard]] constexpr bool is_basic_type(dart_datatype_t t) noexcept {
  return t > DART_TYPE_UNDEFINED && t < DART_TYPE_LAST;
}

// Size in bytes of a basic type; throws DART_ERR_INVAL for anything else.
std::size_t basic_type_size(dart_datatype_t t);

// nelem * size with an overflow check (DART_ERR_INVAL on overflow).
std::size_t checked_bytes(std::size_t nelem, std::size_t elem_size);

}  // namespace dart
