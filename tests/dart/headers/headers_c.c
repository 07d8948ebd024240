/*
 * Compile test of the public DART headers as C (built as C99 and C11).
 *
 * Includes every public header, checks the ABI sizes and offsets of the
 * interface types (spec section 1.4, LP64 with HOST_NAME_MAX == 64, hence
 * -D_XOPEN_SOURCE=700), the numeric values of the constants, redeclares
 * the normative declarations of the spec (spec_declarations.h), and
 * exercises the header-only helpers and gptr macros. Links no DART
 * library and no MPI; main() returns 0 when the runtime checks pass.
 */
#include <stddef.h>

#include <dash/dart/if/dart.h>
#include <dash/dart/if/dart_locality.h>
/* The extensions compile alone and together with the interface. */
#include <dash/dart/ext/dart_atomic_handle.h>
#include <dash/dart/ext/dart_ctx.h>
#include <dash/dart/ext/dart_direct.h>
#include <dash/dart/ext/dart_globals.h>
#include <dash/dart/ext/dart_signal.h>
#include <dash/dart/ext/dart_stats.h>
#include <dash/dart/ext/dart_wait.h>

#include "spec_declarations.h"

#if defined(MPI_VERSION) || defined(OMPI_MAJOR_VERSION) || defined(MPICH_VERSION)
#  error "a public DART header pulled in mpi.h"
#endif

#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#  define HDR_ASSERT(cond, msg) _Static_assert(cond, msg)
#else
/* C99: a negative array size makes a failing condition a compile error. */
#  define HDR_CAT_(a, b) a##b
#  define HDR_CAT(a, b)  HDR_CAT_(a, b)
#  define HDR_ASSERT(cond, msg) \
     typedef char HDR_CAT(hdr_static_assert_, __COUNTER__)[(cond) ? 1 : -1] \
       DART_MAYBE_UNUSED
#endif

/* Sizes and offsets of all interface types (spec section 1.4). */
#include "abi_checks.h"

/* Constant values */
HDR_ASSERT(DART_OK == 0 && DART_PENDING == 1 && DART_ERR_INVAL == 2 &&
           DART_ERR_NOTFOUND == 3 && DART_ERR_NOTINIT == 4 &&
           DART_ERR_NOMEM == 5 && DART_ERR_OTHER == 999, "dart_ret_t");
HDR_ASSERT(DART_EXIT_ASSERT == -6, "exit codes");
HDR_ASSERT(DART_OP_UNDEFINED == 0 && DART_OP_MIN == 1 && DART_OP_MAX == 2 &&
           DART_OP_MINMAX == 3 && DART_OP_SUM == 4 && DART_OP_PROD == 5 &&
           DART_OP_BAND == 6 && DART_OP_LAND == 7 && DART_OP_BOR == 8 &&
           DART_OP_LOR == 9 && DART_OP_BXOR == 10 && DART_OP_LXOR == 11 &&
           DART_OP_REPLACE == 12 && DART_OP_NO_OP == 13 &&
           DART_OP_LAST == 14, "operations");
HDR_ASSERT(DART_TYPE_UNDEFINED == 0 && DART_TYPE_BYTE == 1 &&
           DART_TYPE_SHORT == 2 && DART_TYPE_INT == 3 &&
           DART_TYPE_UINT == 4 && DART_TYPE_LONG == 5 &&
           DART_TYPE_ULONG == 6 && DART_TYPE_LONGLONG == 7 &&
           DART_TYPE_ULONGLONG == 8 && DART_TYPE_FLOAT == 9 &&
           DART_TYPE_DOUBLE == 10 && DART_TYPE_LONG_DOUBLE == 11 &&
           DART_TYPE_LAST == 12, "data types");
HDR_ASSERT(DART_TYPE_SIZET == DART_TYPE_ULONGLONG, "size_t type on LP64");
HDR_ASSERT(DART_THREAD_SINGLE == 0 && DART_THREAD_MULTIPLE == 10,
           "thread levels");
HDR_ASSERT(DART_LOCALITY_SCOPE_UNDEFINED == -1 &&
           DART_LOCALITY_SCOPE_NODE == 100 &&
           DART_LOCALITY_SCOPE_CORE == 550 &&
           DART_LOCALITY_SCOPE_CPU == 600, "locality scopes");
HDR_ASSERT(DART_TEAM_ALL == 0 && DART_TEAM_NULL == -1 &&
           DART_UNDEFINED_TEAM_ID == -1 && DART_UNDEFINED_UNIT_ID == -1 &&
           DART_SEGMENT_LOCAL == 0, "team and unit ids");
HDR_ASSERT(DART_CTX_SERIALIZED == 0x1u && DART_CTX_PRIVATE == 0x2u &&
           DART_CTX_NOSTORE == 0x4u, "context options (ext/dart_ctx.h)");

/* Uses the header-only helpers and the gptr macros; 0 on success. */
static int check_gptr_helpers(void)
{
  int failures = 0;
  dart_gptr_t gptr = DART_GPTR_NULL;
  dart_gptr_t other = DART_GPTR_NULL;
  dart_team_unit_t tu = DART_TEAM_UNIT_ID(3);
  dart_global_unit_t gu = DART_GLOBAL_UNIT_ID(7);
  dart_team_unit_t undef_tu = DART_UNDEFINED_TEAM_UNIT_ID;
  dart_global_unit_t undef_gu = DART_UNDEFINED_GLOBAL_UNIT_ID;

  if (!DART_GPTR_ISNULL(gptr))        failures++;
  if (!DART_GPTR_EQUAL(gptr, other))  failures++;
  if (gptr.unitid != -1 || gptr.flags != 0 || gptr.segid != 0 ||
      gptr.teamid != DART_TEAM_NULL || gptr.addr_or_offs.offset != 0)
    failures++;

  if (dart_gptr_incaddr(&gptr, 24) != DART_OK) failures++;
  if (dart_gptr_incaddr(&gptr, -8) != DART_OK) failures++;
  if (gptr.addr_or_offs.offset != 16)          failures++;
  if (DART_GPTR_ISNULL(gptr))                  failures++;
  if (DART_GPTR_EQUAL(gptr, other))            failures++;

  if (dart_gptr_setunit(&gptr, tu) != DART_OK) failures++;
  if (gptr.unitid != 3)                        failures++;

  /* flags are ignored by DART_GPTR_EQUAL */
  other = gptr;
  other.flags = 0xff;
  if (!DART_GPTR_EQUAL(gptr, other))           failures++;

  if (tu.id != 3 || gu.id != 7)                failures++;
  if (undef_tu.id != DART_UNDEFINED_UNIT_ID ||
      undef_gu.id != DART_UNDEFINED_UNIT_ID)   failures++;
  return failures;
}

int main(void)
{
  const char *version = DART_VERSION_STR;
  const char *build   = DART_BUILD_STR;
  if (version[0] != '3' || build[0] == '\0') return 1;
  return check_gptr_helpers() == 0 ? 0 : 1;
}
