// OpenSHMEM 1.6 scans: shmem_TYPENAME_sum_inscan and _sum_exscan over a
// team, and Sandia OpenSHMEM's shmemx_ names for them.
//
// DART has no scan collective. Every member contributes its source with
// one dart_allgather on the team's DART team (load/store between node
// mates, as DART's collectives run there) and sums the blocks of the team
// PEs before it (exscan) or up to itself (inscan), in team PE order, so
// the result is the same on every run and on both paths. The gather moves
// n_pes times the data a tree scan would; it is one collective instead of
// log2(n_pes) rounds, which is what counts for the short vectors scans
// usually get.
#include "internal.hpp"

#include <vector>

namespace dshmem {
namespace {

template <class T>
int scan(const char* call, shmem_team_t team, T* dest, const T* source, std::size_t nelems, bool inclusive) {
  if (!require_init(call)) return -1;
  if (!team || team->magic != kTeamMagic) {
    fail(call, SHMEMX_ERR_TEAM,
         team ? "the team is not valid (destroyed, or not a team)" : "the team is SHMEM_TEAM_INVALID");
    return -1;
  }
  if (team->my_pe < 0) {
    fail(call, SHMEMX_ERR_TEAM, "the caller is not a member of the team");
    return -1;
  }
  if (nelems == 0) return 0;
  std::size_t bytes;
  if (__builtin_mul_overflow(nelems, sizeof(T), &bytes)) {
    fail(call, SHMEMX_ERR_ARG, std::to_string(nelems) + " elements overflow");
    return -1;
  }
  if (!dest || !source) {
    fail(call, SHMEMX_ERR_ARG, dest ? "source is NULL" : "dest is NULL");
    return -1;
  }
  const auto n = static_cast<std::size_t>(team->n_pes);
  const auto me = static_cast<std::size_t>(team->my_pe);
  std::vector<T> all(n * nelems);
  // DART counts elements in an int on some paths: whole words when the
  // size allows, bytes otherwise.
  const bool words = bytes % 8 == 0;
  const dart_ret_t ret = dart_allgather(source, all.data(), words ? bytes / 8 : bytes,
                                        words ? DART_TYPE_LONGLONG : DART_TYPE_BYTE, team->dart);
  if (ret != DART_OK) {
    dart_failed(call, ret);
    return -1;
  }
  // Team PE k's block is its DART unit's (team->dart_unit: they differ in
  // a team split with a negative stride).
  const std::size_t upto = inclusive ? me + 1 : me;
  for (std::size_t i = 0; i < nelems; ++i) {
    T acc = T();
    for (std::size_t k = 0; k < upto; ++k)
      acc = static_cast<T>(acc + all[static_cast<std::size_t>(team->dart_unit[k]) * nelems + i]);
    dest[i] = acc;
  }
  return 0;
}

}  // namespace
}  // namespace dshmem

using namespace dshmem;

extern "C" {

#define DSHMEM_DEF_SCAN(T, N)                                                                                  \
  int shmem_##N##_sum_inscan(shmem_team_t team, T* dest, const T* source, size_t nelems) {                    \
    return scan<T>("shmem_" #N "_sum_inscan", team, dest, source, nelems, true);                              \
  }                                                                                                           \
  int shmem_##N##_sum_exscan(shmem_team_t team, T* dest, const T* source, size_t nelems) {                    \
    return scan<T>("shmem_" #N "_sum_exscan", team, dest, source, nelems, false);                             \
  }                                                                                                           \
  int shmemx_##N##_sum_inscan(shmem_team_t team, T* dest, const T* source, size_t nelems) {                   \
    return scan<T>("shmemx_" #N "_sum_inscan", team, dest, source, nelems, true);                             \
  }                                                                                                           \
  int shmemx_##N##_sum_exscan(shmem_team_t team, T* dest, const T* source, size_t nelems) {                   \
    return scan<T>("shmemx_" #N "_sum_exscan", team, dest, source, nelems, false);                            \
  }
DART_SHMEM_ARITH_REDUCE_TYPES(DSHMEM_DEF_SCAN)

}  // extern "C"
