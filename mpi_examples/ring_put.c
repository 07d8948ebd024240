/*
 * ring_put: the smallest useful DART program.
 *
 * Every unit allocates one block of team-aligned global memory (the same
 * offset addresses the same place in every unit's block), writes a greeting
 * into its right neighbour's block with dart_put_blocking, waits for
 * everyone at a barrier, and prints what its left neighbour wrote.
 *
 * Run:  mpirun -np 4 ./ring_put
 */
#include <dash/dart/if/dart.h>

#include <stdio.h>
#include <string.h>

#define MSG_LEN 64

#define CHECK(call)                                                 \
  do {                                                              \
    dart_ret_t rc_ = (call);                                        \
    if (rc_ != DART_OK) {                                           \
      fprintf(stderr, "%s failed with code %d\n", #call, (int)rc_); \
      dart_abort(DART_EXIT_ABORT);                                  \
    }                                                               \
  } while (0)

int main(int argc, char** argv) {
  CHECK(dart_init(&argc, &argv));

  dart_global_unit_t me;
  size_t nunits;
  CHECK(dart_myid(&me));
  CHECK(dart_size(&nunits));

  /* Collective: every unit gets the same gptr, pointing at unit 0's block. */
  dart_gptr_t block;
  CHECK(dart_team_memalloc_aligned(DART_TEAM_ALL, MSG_LEN, DART_TYPE_BYTE, &block));

  /* Point the gptr at the right neighbour's block and write into it. */
  char msg[MSG_LEN];
  snprintf(msg, sizeof msg, "hello from unit %d of %zu", me.id, nunits);
  dart_gptr_t right = block;
  CHECK(dart_gptr_setunit(&right, DART_TEAM_UNIT_ID((me.id + 1) % (int)nunits)));
  CHECK(dart_put_blocking(right, msg, MSG_LEN, DART_TYPE_BYTE, DART_TYPE_BYTE));

  /* After the barrier every block holds its left neighbour's greeting. */
  CHECK(dart_barrier(DART_TEAM_ALL));

  dart_gptr_t mine = block;
  void* local = NULL;
  CHECK(dart_gptr_setunit(&mine, DART_TEAM_UNIT_ID(me.id)));
  CHECK(dart_gptr_getaddr(mine, &local));
  printf("unit %d received: \"%s\"\n", me.id, (const char*)local);
  fflush(stdout);

  CHECK(dart_barrier(DART_TEAM_ALL));
  CHECK(dart_team_memfree(block));
  CHECK(dart_exit());
  return 0;
}
