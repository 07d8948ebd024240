// The dash/ part of the DASH-shaped project: a C++ program of DART calls,
// as DASH's library makes them (init, ids, a team allocation, a reduction).
#include <dash/dart/if/dart.h>

#include <cstdio>

int main(int argc, char** argv) {
  if (dart_init(&argc, &argv) != DART_OK) return 1;
  dart_global_unit_t me;
  std::size_t n = 0;
  bool ok = dart_myid(&me) == DART_OK && dart_size(&n) == DART_OK;
  long mine = me.id + 1, sum = 0;
  ok = ok && dart_allreduce(&mine, &sum, 1, DART_TYPE_LONG, DART_OP_SUM, DART_TEAM_ALL) == DART_OK;
  ok = ok && sum == static_cast<long>(n * (n + 1) / 2);
  dart_gptr_t g;
  ok = ok && dart_team_memalloc_aligned(DART_TEAM_ALL, 1, DART_TYPE_LONG, &g) == DART_OK;
  ok = ok && dart_team_memfree(g) == DART_OK;
  if (!ok) std::fprintf(stderr, "unit %d: dash-shaped check failed (sum %ld)\n", me.id, sum);
  if (ok && me.id == 0) std::printf("dash-shaped ok on %zu units\n", n);
  dart_exit();
  return ok ? 0 : 1;
}
