// The transfers of dart_communication_rma.cpp, for the extensions that
// build on them (put with signal, contexts). Errors are thrown (core/error.hpp), so
// the caller's entry() names its own call.
#pragma once

#include "rma/access.hpp"

#include <dash/dart/if/dart_globmem.h>
#include <dash/dart/if/dart_types.h>

#include <cstddef>

namespace dart {

// What dart_put_blocking does: `nelem` elements of the basic type `dtype`
// from `src` to `g`, complete at the target on return.
void put_complete(const dart_gptr_t& g, const void* src, std::size_t nelem, dart_datatype_t dtype);

// What dart_get_blocking does: `dest` holds the elements on return.
void get_complete(void* dest, const dart_gptr_t& g, std::size_t nelem, dart_datatype_t dtype);

// Whether a transfer of `bytes` between `buf` and the resolved target `t`
// goes out as MPI RMA on t.win (what dart_put and dart_get do for a basic
// type): the target is not mapped, has a window, and `buf` does not
// overlap the target's range in the caller's own memory (MPI forbids
// that; such transfers are copies through a stage).
[[nodiscard]] bool via_rma(const Target& t, const void* buf, std::size_t bytes) noexcept;

// Issues that transfer without completing it: MPI_Put or MPI_Get of at
// most DART_RMA_PIECE_SIZE bytes each, every piece noted on the window
// (Window::note_issued), as dart_put and dart_get do. `buf` must stay
// untouched until a flush of (t.win, t.rank) (for a put: until a local
// flush). Checks the range and `buf` (DART_ERR_INVAL); only for targets
// via_rma() accepts.
void rma_issue(bool put, const Target& t, void* buf, std::size_t nelem, dart_datatype_t dtype);

}  // namespace dart
