// The transfers of dart_communication_rma.cpp, for the extensions that
// build on them (put with signal). Errors are thrown (core/error.hpp), so
// the caller's entry() names its own call.
#pragma once

#include <dash/dart/if/dart_globmem.h>
#include <dash/dart/if/dart_types.h>

#include <cstddef>

namespace dart {

// What dart_put_blocking does: `nelem` elements of the basic type `dtype`
// from `src` to `g`, complete at the target on return.
void put_complete(const dart_gptr_t& g, const void* src, std::size_t nelem, dart_datatype_t dtype);

}  // namespace dart
