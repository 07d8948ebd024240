// What collectives and two-sided messages share: a contiguous DART type as
// one MPI element, and the check that a user buffer of a given size is
// really there before MPI touches it.
#pragma once

#include <dash/dart/if/dart_types.h>

#include "core/mpi_handles.hpp"

#include <cstddef>
#include <string>

namespace dart::coll {

// What one element of a contiguous DART type is to MPI.
struct Elem {
  MPI_Datatype type = MPI_DATATYPE_NULL;
  std::size_t bytes = 0;
  mpi::Datatype owned;  // custom types: a contiguous run of `bytes` bytes
};

// A data type id as error messages print it.
std::string type_name(dart_datatype_t t);

// The element of a basic or custom type; other types are invalid here.
Elem elem_of(dart_datatype_t dtype);

// Takes a freshly built type and commits it (it is freed even if the
// commit fails).
mpi::Datatype commit_type(MPI_Datatype t);

// A buffer of `nelem` elements spanning `bytes`: not NULL unless empty, and
// mapped to its end (see elements.cpp). `what` names it in the error.
void require_buf(const void* buf, std::size_t nelem, std::size_t bytes, const char* what);

}  // namespace dart::coll
