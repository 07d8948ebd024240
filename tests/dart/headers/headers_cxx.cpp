/*
 * Compile test of the public DART headers as C++ (built as C++11 and
 * C++17).
 *
 * Includes every public header and checks what DASH-style C++ code relies
 * on: ABI sizes and offsets (spec section 1.4), DART_TYPE_* / DART_OP_*
 * as constant expressions with the spec's values (usable as template
 * arguments), constexpr construction of the unit-id structs, dart_gptr_t
 * being an aggregate that DART_GPTR_NULL brace-initialises, C linkage of
 * the prototypes, and the normative declarations (spec_declarations.h).
 * Links no DART library and no MPI; main() returns 0 when the runtime
 * checks pass.
 */
#include <cstddef>
#include <cstdint>
#include <type_traits>

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

#define HDR_ASSERT(cond, msg) static_assert(cond, msg)

namespace {

// ---------------------------------------------------------------------
// ABI: sizes and offsets of all interface types (spec section 1.4)
// ---------------------------------------------------------------------

#include "abi_checks.h"

// ---------------------------------------------------------------------
// Types of the handles and ids
// ---------------------------------------------------------------------

static_assert(std::is_same<dart_datatype_t, std::intptr_t>::value,
              "dart_datatype_t is intptr_t");
static_assert(std::is_same<dart_operation_t, std::uintptr_t>::value,
              "dart_operation_t is uintptr_t");
static_assert(std::is_same<dart_unit_t, std::int32_t>::value,
              "dart_unit_t is int32_t");
static_assert(std::is_same<dart_team_t, std::int16_t>::value,
              "dart_team_t is int16_t");
static_assert(std::is_same<dart_group_t, dart_group_struct *>::value,
              "dart_group_t");
static_assert(std::is_same<dart_handle_t, dart_handle_struct *>::value,
              "dart_handle_t");
static_assert(std::is_same<dart_lock_t, dart_lock_struct *>::value,
              "dart_lock_t");
static_assert(std::is_same<dart_allocator_t, dart_allocator_struct *>::value,
              "dart_allocator_t");
// struct tags are part of clients' mangled names
static_assert(std::is_same<dart_global_unit_t, dart_global_unit>::value,
              "struct dart_global_unit");
static_assert(std::is_same<dart_team_unit_t, dart_local_unit>::value,
              "struct dart_local_unit");
static_assert(std::is_same<dart_domain_locality_t,
                           dart_domain_locality_s>::value,
              "struct dart_domain_locality_s");

// ---------------------------------------------------------------------
// Constants are constant expressions with the spec's values
// ---------------------------------------------------------------------

// DASH uses DART_TYPE_* as template non-type arguments.
typedef std::integral_constant<dart_datatype_t, DART_TYPE_BYTE> byte_type_c;
static_assert(byte_type_c::value == 1, "integral_constant<DART_TYPE_BYTE>");

template <dart_datatype_t T, long long V>
struct type_is {
  static_assert(T == V, "DART_TYPE_* value");
  static constexpr bool value = true;
};
static_assert(type_is<DART_TYPE_UNDEFINED,   0>::value, "");
static_assert(type_is<DART_TYPE_BYTE,        1>::value, "");
static_assert(type_is<DART_TYPE_SHORT,       2>::value, "");
static_assert(type_is<DART_TYPE_INT,         3>::value, "");
static_assert(type_is<DART_TYPE_UINT,        4>::value, "");
static_assert(type_is<DART_TYPE_LONG,        5>::value, "");
static_assert(type_is<DART_TYPE_ULONG,       6>::value, "");
static_assert(type_is<DART_TYPE_LONGLONG,    7>::value, "");
static_assert(type_is<DART_TYPE_ULONGLONG,   8>::value, "");
static_assert(type_is<DART_TYPE_FLOAT,       9>::value, "");
static_assert(type_is<DART_TYPE_DOUBLE,     10>::value, "");
static_assert(type_is<DART_TYPE_LONG_DOUBLE, 11>::value, "");
static_assert(type_is<DART_TYPE_LAST,       12>::value, "");
static_assert(type_is<DART_TYPE_SIZET,       8>::value, "DART_TYPE_SIZET");
static_assert(std::is_same<decltype(DART_TYPE_INT), dart_datatype_t>::value,
              "DART_TYPE_* have type dart_datatype_t");

// DASH uses DART_OP_* as dart_operation_t constants.
template <dart_operation_t Op, unsigned long long V>
struct op_is {
  static_assert(Op == V, "DART_OP_* value");
  static constexpr bool value = true;
};
static_assert(op_is<DART_OP_UNDEFINED,  0>::value, "");
static_assert(op_is<DART_OP_MIN,        1>::value, "");
static_assert(op_is<DART_OP_MAX,        2>::value, "");
static_assert(op_is<DART_OP_MINMAX,     3>::value, "");
static_assert(op_is<DART_OP_SUM,        4>::value, "");
static_assert(op_is<DART_OP_PROD,       5>::value, "");
static_assert(op_is<DART_OP_BAND,       6>::value, "");
static_assert(op_is<DART_OP_LAND,       7>::value, "");
static_assert(op_is<DART_OP_BOR,        8>::value, "");
static_assert(op_is<DART_OP_LOR,        9>::value, "");
static_assert(op_is<DART_OP_BXOR,      10>::value, "");
static_assert(op_is<DART_OP_LXOR,      11>::value, "");
static_assert(op_is<DART_OP_REPLACE,   12>::value, "");
static_assert(op_is<DART_OP_NO_OP,     13>::value, "");
static_assert(op_is<DART_OP_LAST,      14>::value, "");
static_assert(DART_OP_MINMAX_MIN == 0 && DART_OP_MINMAX_MAX == 1, "MINMAX");
constexpr dart_operation_t op_sum = DART_OP_SUM;
static_assert(op_sum == 4, "DART_OP_SUM as dart_operation_t");

static_assert(DART_OK == 0 && DART_PENDING == 1 && DART_ERR_INVAL == 2 &&
              DART_ERR_NOTFOUND == 3 && DART_ERR_NOTINIT == 4 &&
              DART_ERR_NOMEM == 5 && DART_ERR_OTHER == 999, "dart_ret_t");
static_assert(DART_EXIT_ASSERT == -6, "exit codes");
static_assert(DART_THREAD_SINGLE == 0 && DART_THREAD_MULTIPLE == 10,
              "thread levels");
static_assert(DART_LOCALITY_SCOPE_UNDEFINED == -1 &&
              DART_LOCALITY_SCOPE_GLOBAL == 0 &&
              DART_LOCALITY_SCOPE_GROUP == 1 &&
              DART_LOCALITY_SCOPE_NETWORK == 50 &&
              DART_LOCALITY_SCOPE_NODE == 100 &&
              DART_LOCALITY_SCOPE_MODULE == 200 &&
              DART_LOCALITY_SCOPE_NUMA == 300 &&
              DART_LOCALITY_SCOPE_UNIT == 400 &&
              DART_LOCALITY_SCOPE_PACKAGE == 500 &&
              DART_LOCALITY_SCOPE_UNCORE == 510 &&
              DART_LOCALITY_SCOPE_CACHE == 530 &&
              DART_LOCALITY_SCOPE_CORE == 550 &&
              DART_LOCALITY_SCOPE_CPU == 600, "locality scopes");
constexpr dart_team_t team_all  = DART_TEAM_ALL;
constexpr dart_team_t team_null = DART_TEAM_NULL;
static_assert(team_all == 0 && team_null == -1 &&
              DART_UNDEFINED_TEAM_ID == -1 && DART_SEGMENT_LOCAL == 0,
              "team ids");

// ---------------------------------------------------------------------
// Unit-id structs: constexpr, non-explicit, default undefined
// ---------------------------------------------------------------------

constexpr dart_global_unit_t global_unit_5(5);
constexpr dart_team_unit_t   team_unit_6(6);
constexpr dart_global_unit_t global_unit_default;
constexpr dart_team_unit_t   team_unit_default;
constexpr dart_global_unit_t global_unit_implicit = 9;   // non-explicit
constexpr dart_team_unit_t   team_unit_braced     = {10};
static_assert(global_unit_5.id == 5 && team_unit_6.id == 6, "converting ctor");
static_assert(global_unit_default.id == DART_UNDEFINED_UNIT_ID,
              "default dart_global_unit_t is DART_UNDEFINED_UNIT_ID");
static_assert(team_unit_default.id == DART_UNDEFINED_UNIT_ID,
              "default dart_team_unit_t is DART_UNDEFINED_UNIT_ID");
static_assert(global_unit_implicit.id == 9 && team_unit_braced.id == 10,
              "implicit conversion from int");
static_assert(std::is_convertible<int, dart_global_unit_t>::value &&
              std::is_convertible<int, dart_team_unit_t>::value,
              "converting constructors are not explicit");
static_assert(!std::is_convertible<dart_global_unit_t,
                                   dart_team_unit_t>::value,
              "global and team ids are distinct types");

// DASH derives class templates from the unit-id structs and constructs
// them in constexpr contexts.
template <typename Base>
struct derived_unit : Base {
  constexpr derived_unit() : Base() { }
  constexpr explicit derived_unit(dart_unit_t u) : Base(u) { }
};
constexpr derived_unit<dart_global_unit_t> derived_global(11);
constexpr derived_unit<dart_team_unit_t>   derived_team;
static_assert(derived_global.id == 11 &&
              derived_team.id == DART_UNDEFINED_UNIT_ID, "derived ids");

// ---------------------------------------------------------------------
// dart_gptr_t stays an aggregate; DART_GPTR_NULL brace-initialises
// ---------------------------------------------------------------------

#if __cplusplus >= 201703L
static_assert(std::is_aggregate<dart_gptr_t>::value,
              "dart_gptr_t must be an aggregate");
#endif
static_assert(std::is_trivial<dart_gptr_t>::value &&
              std::is_standard_layout<dart_gptr_t>::value,
              "dart_gptr_t is plain data");
static_assert(std::is_trivially_copyable<dart_hwinfo_t>::value &&
              std::is_trivially_copyable<dart_unit_locality_t>::value &&
              std::is_trivially_copyable<dart_global_unit_t>::value &&
              std::is_trivially_copyable<dart_team_unit_t>::value,
              "ids and locality data are exchanged as raw bytes");

// ---------------------------------------------------------------------
// Exact prototypes of a few functions whose shape DASH depends on
// ---------------------------------------------------------------------

// The conversions below are ill-formed if a parameter or return type
// differs. (decltype() is not compared directly: Clang makes nothrow and
// noreturn part of the function type, GCC does not.) Only unevaluated
// operands are used, so nothing needs to be linked.
#define HDR_PROTOTYPE(fn, ptr_type) \
  static_assert(sizeof(static_cast<ptr_type>(&fn)) == sizeof(void (*)()), \
                #fn)
HDR_PROTOTYPE(dart_exit,        dart_ret_t (*)());
HDR_PROTOTYPE(dart_initialized, bool (*)());
HDR_PROTOTYPE(dart_abort,       void (*)(int));
HDR_PROTOTYPE(dart_config,      void (*)(dart_config_t **));
HDR_PROTOTYPE(dart_sendrecv,
              dart_ret_t (*)(const void *, size_t, dart_datatype_t, int,
                             dart_global_unit_t, void *, size_t,
                             dart_datatype_t, int, dart_global_unit_t));
HDR_PROTOTYPE(dart_lock_initialized, bool (*)(const dart_lock_struct *));
HDR_PROTOTYPE(dart_gptr_incaddr, dart_ret_t (*)(dart_gptr_t *, int64_t));
HDR_PROTOTYPE(dart_create_team_unit, dart_team_unit_t (*)(dart_unit_t));
// ext/dart_ctx.h: the shapes another library codes against.
static_assert(DART_CTX_DEFAULT == nullptr && DART_CTX_SERIALIZED == 0x1u &&
              DART_CTX_PRIVATE == 0x2u && DART_CTX_NOSTORE == 0x4u,
              "context constants");
HDR_PROTOTYPE(dart_ctx_create, dart_ret_t (*)(unsigned, dart_ctx_t *));
HDR_PROTOTYPE(dart_ctx_destroy, dart_ret_t (*)(dart_ctx_t *));
HDR_PROTOTYPE(dart_ctx_put,
              dart_ret_t (*)(dart_ctx_t, dart_gptr_t, const void *, size_t,
                             dart_datatype_t));
HDR_PROTOTYPE(dart_ctx_get,
              dart_ret_t (*)(dart_ctx_t, void *, dart_gptr_t, size_t,
                             dart_datatype_t));
HDR_PROTOTYPE(dart_ctx_accumulate,
              dart_ret_t (*)(dart_ctx_t, dart_gptr_t, const void *, size_t,
                             dart_datatype_t, dart_operation_t));
HDR_PROTOTYPE(dart_ctx_fetch_and_op,
              dart_ret_t (*)(dart_ctx_t, dart_gptr_t, const void *, void *,
                             dart_datatype_t, dart_operation_t));
HDR_PROTOTYPE(dart_ctx_compare_and_swap,
              dart_ret_t (*)(dart_ctx_t, dart_gptr_t, const void *,
                             const void *, void *, dart_datatype_t));
HDR_PROTOTYPE(dart_ctx_put_signal,
              dart_ret_t (*)(dart_ctx_t, dart_gptr_t, const void *, size_t,
                             dart_datatype_t, dart_gptr_t, uint64_t,
                             dart_signal_op_t));
HDR_PROTOTYPE(dart_ctx_fence, dart_ret_t (*)(dart_ctx_t));
HDR_PROTOTYPE(dart_ctx_quiet, dart_ret_t (*)(dart_ctx_t));

int check_gptr(void)
{
  int failures = 0;
  dart_gptr_t gptr  = DART_GPTR_NULL;
  dart_gptr_t other = DART_GPTR_NULL;
  dart_gptr_t braced{ -1, 0, 0, DART_TEAM_NULL, { 0 } };

  if (!DART_GPTR_ISNULL(gptr))              failures++;
  if (!DART_GPTR_EQUAL(gptr, other))        failures++;
  if (!DART_GPTR_EQUAL(gptr, braced))       failures++;
  if (gptr.unitid != -1 || gptr.flags != 0 || gptr.segid != 0 ||
      gptr.teamid != DART_TEAM_NULL || gptr.addr_or_offs.offset != 0)
    failures++;

  if (dart_gptr_incaddr(&gptr, 40) != DART_OK)  failures++;
  if (dart_gptr_incaddr(&gptr, -8) != DART_OK)  failures++;
  if (gptr.addr_or_offs.offset != 32)           failures++;
  if (dart_gptr_setunit(&gptr, DART_TEAM_UNIT_ID(2)) != DART_OK) failures++;
  if (gptr.unitid != 2)                         failures++;
  if (DART_GPTR_ISNULL(gptr))                   failures++;
  if (DART_GPTR_EQUAL(gptr, other))             failures++;

  dart_global_unit_t gu = DART_GLOBAL_UNIT_ID(4);
  dart_team_unit_t   tu = DART_UNDEFINED_TEAM_UNIT_ID;
  if (gu.id != 4 || tu.id != DART_UNDEFINED_UNIT_ID) failures++;
  dart_global_unit_t gu_default;
  if (gu_default.id != DART_UNDEFINED_UNIT_ID)       failures++;
  return failures;
}

} // namespace

int main()
{
  return check_gptr() == 0 ? 0 : 1;
}
