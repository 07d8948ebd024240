/* Uses an installed libdart from plain C, without MPI headers. */
#include <dash/dart/if/dart.h>

#include <stdio.h>

int main(int argc, char** argv) {
  if (dart_init(&argc, &argv) != DART_OK) return 1;
  dart_global_unit_t me;
  size_t n;
  dart_myid(&me);
  dart_size(&n);
  dart_gptr_t g;
  int ok = dart_team_memalloc_aligned(DART_TEAM_ALL, 1, DART_TYPE_INT, &g) == DART_OK;
  int value = 1000 + me.id;
  dart_gptr_t right = g;
  dart_gptr_setunit(&right, DART_TEAM_UNIT_ID((me.id + 1) % (int)n));
  ok = ok && dart_put_blocking(right, &value, 1, DART_TYPE_INT, DART_TYPE_INT) == DART_OK;
  ok = ok && dart_barrier(DART_TEAM_ALL) == DART_OK;
  dart_gptr_t mine = g;
  dart_gptr_setunit(&mine, DART_TEAM_UNIT_ID(me.id));
  int got = -1;
  ok = ok && dart_get_blocking(&got, mine, 1, DART_TYPE_INT, DART_TYPE_INT) == DART_OK;
  ok = ok && got == 1000 + (me.id + (int)n - 1) % (int)n;
  dart_barrier(DART_TEAM_ALL);
  dart_team_memfree(g);
  if (ok && me.id == 0) printf("consumer ok on %zu units\n", n);
  if (!ok) fprintf(stderr, "unit %d: consumer check failed (got %d)\n", me.id, got);
  dart_exit();
  return ok ? 0 : 1;
}
