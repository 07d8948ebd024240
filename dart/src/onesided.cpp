// Blocking one-sided transfers, flush and barrier (dart_communication.h).
#include <dash/dart/if/dart_communication.h>

#include "access.hpp"
#include "error.hpp"
#include "runtime.hpp"
#include "types.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <string>

using namespace dart;

namespace {

// MPI counts are int; transfers are issued in pieces of at most 1 GiB so
// that more than INT_MAX bytes (or elements) move correctly.
constexpr std::size_t kMaxPiece = std::size_t(1) << 30;

// Bytes a put/get of `nelem` elements moves, after checking the type pair.
std::size_t transfer_bytes(std::size_t nelem, dart_datatype_t src_type, dart_datatype_t dst_type) {
  const std::size_t elem = basic_type_size(src_type);
  if (dst_type != src_type)
    invalid("source type " + std::to_string(static_cast<long long>(src_type)) +
            " and destination type " + std::to_string(static_cast<long long>(dst_type)) + " differ");
  return checked_bytes(nelem, elem);
}

void check_extent(const Target& t, std::size_t bytes) {
  if (bytes > t.avail)
    invalid("access of " + std::to_string(bytes) + " bytes runs past the end of the target's portion (" +
            std::to_string(t.avail) + " bytes left after the offset)");
}

void put_blocking(dart_gptr_t gptr, const void* src, std::size_t bytes) {
  const Target t = resolve(gptr);
  check_extent(t, bytes);
  if (bytes == 0) return;
  if (!src) invalid("src is NULL");
  if (t.local) {
    std::memcpy(t.local, src, bytes);
    // The MPI shared-memory model leaves ordering of load/store to us: make
    // the stores visible before anything this unit does next (a flag, a
    // barrier) can be observed by the target.
    std::atomic_thread_fence(std::memory_order_seq_cst);
    return;
  }
  const char* p = static_cast<const char*>(src);
  for (std::size_t done = 0; done < bytes;) {
    const int n = static_cast<int>(std::min(kMaxPiece, bytes - done));
    mpi_check(MPI_Put(p + done, n, MPI_BYTE, t.rank, t.disp + static_cast<MPI_Aint>(done), n, MPI_BYTE, t.win),
              "MPI_Put");
    done += static_cast<std::size_t>(n);
  }
  mpi_check(MPI_Win_flush(t.rank, t.win), "MPI_Win_flush");
}

void get_blocking(void* dest, dart_gptr_t gptr, std::size_t bytes) {
  const Target t = resolve(gptr);
  check_extent(t, bytes);
  if (bytes == 0) return;
  if (!dest) invalid("dest is NULL");
  if (t.local) {
    // Order the loads after everything this unit observed before the call.
    std::atomic_thread_fence(std::memory_order_seq_cst);
    std::memcpy(dest, t.local, bytes);
    return;
  }
  char* p = static_cast<char*>(dest);
  for (std::size_t done = 0; done < bytes;) {
    const int n = static_cast<int>(std::min(kMaxPiece, bytes - done));
    mpi_check(MPI_Get(p + done, n, MPI_BYTE, t.rank, t.disp + static_cast<MPI_Aint>(done), n, MPI_BYTE, t.win),
              "MPI_Get");
    done += static_cast<std::size_t>(n);
  }
  mpi_check(MPI_Win_flush(t.rank, t.win), "MPI_Win_flush");
}

}  // namespace

extern "C" {

dart_ret_t dart_put_blocking(dart_gptr_t gptr, const void* src, size_t nelem, dart_datatype_t src_type,
                             dart_datatype_t dst_type) {
  return entry("dart_put_blocking",
               [&] { put_blocking(gptr, src, transfer_bytes(nelem, src_type, dst_type)); });
}

dart_ret_t dart_get_blocking(void* dest, dart_gptr_t gptr, size_t nelem, dart_datatype_t src_type,
                             dart_datatype_t dst_type) {
  return entry("dart_get_blocking",
               [&] { get_blocking(dest, gptr, transfer_bytes(nelem, src_type, dst_type)); });
}

dart_ret_t dart_flush(dart_gptr_t gptr) {
  return entry("dart_flush", [&] {
    gptr.addr_or_offs.offset = 0;  // names the segment and unit only
    const Target t = resolve(gptr);
    std::atomic_thread_fence(std::memory_order_seq_cst);
    if (t.win != MPI_WIN_NULL) mpi_check(MPI_Win_flush(t.rank, t.win), "MPI_Win_flush");
  });
}

dart_ret_t dart_barrier(dart_team_t team) {
  return entry("dart_barrier", [&] {
    Team& t = rt().team(team);
    // Stores to the caller's own portion made before the barrier must be
    // visible to loads and gets of other units after it.
    std::atomic_thread_fence(std::memory_order_seq_cst);
    mpi_check(MPI_Barrier(t.comm()), "MPI_Barrier");
    std::atomic_thread_fence(std::memory_order_seq_cst);
  });
}

}  // extern "C"
