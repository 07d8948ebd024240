#include "coll/elements.hpp"

#include "coll/types.hpp"
#include "core/error.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>

namespace dart::coll {

mpi::Datatype commit_type(MPI_Datatype t) {
  const int rc = MPI_Type_commit(&t);
  if (rc != MPI_SUCCESS) MPI_Type_free(&t);
  mpi_check(rc, "MPI_Type_commit");
  return mpi::Datatype(t);
}

std::string type_name(dart_datatype_t t) { return std::to_string(static_cast<long long>(t)); }

Elem elem_of(dart_datatype_t dtype) {
  // Copy what we need at once: another thread may destroy a derived type
  // while this call runs (the spec lets started operations complete).
  const TypeDesc& d = type_desc(dtype);
  const bool basic = d.kind == TypeDesc::Kind::Basic;
  if (!d.contiguous())
    invalid("data type " + type_name(dtype) + " is not contiguous (only basic and custom types are allowed here)");
  Elem e;
  e.bytes = d.elem_size;
  if (basic) {
    e.type = basic_mpi_type(dtype);
    return e;
  }
  MPI_Datatype run = MPI_DATATYPE_NULL;
  mpi_check(MPI_Type_contiguous(static_cast<int>(e.bytes), MPI_BYTE, &run), "MPI_Type_contiguous");
  e.owned = commit_type(run);
  e.type = e.owned.get();
  return e;
}

// A buffer of `nelem` elements spanning `bytes`: not NULL unless empty, and
// mapped to its end. A count near SIZE_MAX passes the size arithmetic but
// would make MPI run off the end of memory (a segfault, not an error), so
// a span that wraps around is rejected, and a span above 1 GiB must have
// its last byte mapped (one mincore(2), only for such sizes).
void require_buf(const void* buf, std::size_t nelem, std::size_t bytes, const char* what) {
  if (!buf && nelem > 0) invalid(std::string(what) + " is NULL with " + std::to_string(nelem) + " elements");
  if (bytes == 0) return;
  const auto start = reinterpret_cast<std::uintptr_t>(buf);
  bool mapped = bytes <= static_cast<std::size_t>(PTRDIFF_MAX) && start <= UINTPTR_MAX - bytes;
  if (mapped && bytes > (std::size_t{1} << 30)) {
    static const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
    unsigned char resident = 0;
    mapped = mincore(reinterpret_cast<void*>((start + bytes - 1) & ~(page - 1)), 1, &resident) == 0;
  }
  if (!mapped)
    invalid(std::string(what) + " of " + std::to_string(nelem) + " elements (" + std::to_string(bytes) +
            " bytes) extends beyond mapped memory");
}

}  // namespace dart::coll
