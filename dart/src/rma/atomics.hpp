// Accumulate-type operations (accumulate, fetch-and-op, compare-and-swap):
// the internal interface shared by the public atomics and the team locks.
#pragma once

#include "rma/access.hpp"

#include <dash/dart/if/dart_types.h>

#include <cstddef>

namespace dart {

// How accumulate-type operations reach a target. The choice is per
// segment, the same on every member of its team, because atomicity holds
// only among operations that take the same path: CPU atomics on the shared
// mapping when the whole team shares one node (and load/store is on), MPI
// accumulate operations on the segment's window otherwise. long double has
// no lock-free CPU atomics (libatomic's locks are per process), so it always
// takes the MPI path; the spec promises atomicity only among operations of
// the same type, so that split is safe.
[[nodiscard]] bool cpu_atomics(const Target& t, dart_datatype_t dtype) noexcept;

// Whether accumulate-type operations on `dtype` at `t` go out as MPI
// operations that a flush completes (neither CPU atomics nor the
// runtime's emulation, which complete inside the call).
[[nodiscard]] bool issued_through_mpi(const Target& t, dart_datatype_t dtype) noexcept;

// The fast paths of dart_fetch_and_op and dart_compare_and_swap, out of
// line (for the handle forms; the interface calls keep theirs inline): the
// operation by a CPU atomic when `g` is mapped and served by them and the
// arguments are valid; false (nothing done) otherwise.
[[nodiscard]] bool fetch_and_op_direct(const dart_gptr_t& g, const void* value, void* result, dart_datatype_t dtype,
                                       dart_operation_t op) noexcept;
[[nodiscard]] bool compare_and_swap_direct(const dart_gptr_t& g, const void* value, const void* compare, void* result,
                                           dart_datatype_t dtype) noexcept;

// Throws DART_ERR_INVAL unless `op` may be applied to `dtype` by
// accumulate-type operations.
void check_atomic_op(dart_operation_t op, dart_datatype_t dtype);

// target[i] = target[i] op values[i] for i < nelem, each element atomically.
// With the MPI path the operation is only issued; `local_complete` waits
// until `values` may be reused.
void accumulate(const Target& t, const void* values, std::size_t nelem, dart_datatype_t dtype, dart_operation_t op,
                bool local_complete);

// *result = target; target = target op *value (one element, atomically).
void fetch_and_op(const Target& t, const void* value, void* result, dart_datatype_t dtype, dart_operation_t op);

// *result = target; if (target == *compare) target = *value.
void compare_and_swap(const Target& t, const void* value, const void* compare, void* result, dart_datatype_t dtype);

}  // namespace dart
