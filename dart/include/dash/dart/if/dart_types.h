/*
 * dart_types.h -- basic types and constants of the DART interface.
 *
 * Return and exit codes, reduction operations (dart_operation_t), data
 * types (dart_datatype_t), global and team-relative unit ids, team ids,
 * thread-support levels, locality scopes, limits and the plain-data
 * locality structures, the runtime configuration object, and the local
 * constructors for derived data types and user-defined reduction
 * operations. This header does not include dart_util.h; it brings in
 * <stdlib.h>, <stdint.h>, <stdbool.h> and <limits.h> for its clients.
 */
#ifndef DART_TYPES_H_INCLUDED
#define DART_TYPES_H_INCLUDED

#include <stdlib.h>
#include <stdint.h>
#include <stdbool.h>
#include <limits.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DART_INTERFACE_ON

/* ---------------------------------------------------------------------
 * Return and exit codes
 * ------------------------------------------------------------------ */

/*
 * Result of every DART function that reports an error.
 *   DART_OK           success
 *   DART_PENDING      reserved, never returned
 *   DART_ERR_INVAL    invalid argument (team, unit, segment, type, ...)
 *   DART_ERR_NOTFOUND lookup without result (locality tags and scopes)
 *   DART_ERR_NOTINIT  reserved for "DART not initialised"
 *   DART_ERR_NOMEM    memory or pool exhausted
 *   DART_ERR_OTHER    any other failure (backend error, wrong init state)
 */
typedef enum
{
  DART_OK           =   0,
  DART_PENDING      =   1,
  DART_ERR_INVAL    =   2,
  DART_ERR_NOTFOUND =   3,
  DART_ERR_NOTINIT  =   4,
  DART_ERR_NOMEM    =   5,
  DART_ERR_OTHER    = 999
} dart_ret_t;

/*
 * Process exit codes / dart_abort() arguments: normal termination,
 * generic abort and failed assertion.
 */
enum {
  DART_EXIT_SUCCESS = EXIT_SUCCESS,
  DART_EXIT_ABORT   = EXIT_FAILURE,
  DART_EXIT_ASSERT  = -6
};

/* ---------------------------------------------------------------------
 * Reduction and accumulation operations
 * ------------------------------------------------------------------ */

/*
 * Predefined operations (values 0 .. 13; DART_OP_LAST = 14 is the count).
 * MIN, MAX, SUM, PROD: arithmetic; BAND, BOR, BXOR: bitwise; LAND, LOR,
 * LXOR: logical; MINMAX: pairwise min/max, reductions only; REPLACE: the
 * operand overwrites the target; NO_OP: the target is left unchanged;
 * UNDEFINED: invalid everywhere.
 */
enum
{
  DART_OP_UNDEFINED = 0,
  DART_OP_MIN,
  DART_OP_MAX,
  DART_OP_MINMAX,
  DART_OP_SUM,
  DART_OP_PROD,
  DART_OP_BAND,
  DART_OP_LAND,
  DART_OP_BOR,
  DART_OP_LOR,
  DART_OP_BXOR,
  DART_OP_LXOR,
  DART_OP_REPLACE,
  DART_OP_NO_OP,
  DART_OP_LAST
};

/*
 * Handle of a reduction operation: a DART_OP_* value (< DART_OP_LAST) or
 * an opaque value created by dart_op_create().
 */
typedef uintptr_t dart_operation_t ;

/* Index of the minimum / maximum within each pair for DART_OP_MINMAX. */
#define DART_OP_MINMAX_MIN 0
#define DART_OP_MINMAX_MAX 1

/* ---------------------------------------------------------------------
 * Data types
 * ------------------------------------------------------------------ */

/*
 * Handle of a data type: one of the basic DART_TYPE_* constants below
 * (integer constant expressions) or an opaque value >= DART_TYPE_LAST
 * created by one of the dart_type_create_* functions. Transfers never
 * convert values; they move bytes.
 */
typedef intptr_t dart_datatype_t;

#define DART_TYPE_UNDEFINED    (dart_datatype_t)(0)
#define DART_TYPE_BYTE         (dart_datatype_t)(1)
#define DART_TYPE_SHORT        (dart_datatype_t)(2)
#define DART_TYPE_INT          (dart_datatype_t)(3)
#define DART_TYPE_UINT         (dart_datatype_t)(4)
#define DART_TYPE_LONG         (dart_datatype_t)(5)
#define DART_TYPE_ULONG        (dart_datatype_t)(6)
#define DART_TYPE_LONGLONG     (dart_datatype_t)(7)
#define DART_TYPE_ULONGLONG    (dart_datatype_t)(8)
#define DART_TYPE_FLOAT        (dart_datatype_t)(9)
#define DART_TYPE_DOUBLE       (dart_datatype_t)(10)
#define DART_TYPE_LONG_DOUBLE  (dart_datatype_t)(11)
#define DART_TYPE_LAST         (dart_datatype_t)(12)

/* The basic type matching size_t on this platform. */
#if (UINT32_MAX == SIZE_MAX)
#  define DART_TYPE_SIZET DART_TYPE_ULONG
#elif (UINT64_MAX == SIZE_MAX)
#  define DART_TYPE_SIZET DART_TYPE_ULONGLONG
#else
#  error "Cannot determine DART type for size_t!"
#endif

/* ---------------------------------------------------------------------
 * Unit ids
 * ------------------------------------------------------------------ */

/* Raw unit id (32-bit signed). */
typedef int32_t dart_unit_t;

/* Raw value of an invalid / unknown unit id. */
#define DART_UNDEFINED_UNIT_ID ((dart_unit_t)(-1))

/*
 * Unit id relative to DART_TEAM_ALL. In C++ it is constexpr-constructible
 * from a dart_unit_t and defaults to DART_UNDEFINED_UNIT_ID.
 */
typedef struct dart_global_unit {
#ifdef __cplusplus
  constexpr dart_global_unit() : id(DART_UNDEFINED_UNIT_ID) { }
  constexpr dart_global_unit(dart_unit_t uid) : id(uid) { }
#endif
  dart_unit_t id;
} dart_global_unit_t;

/*
 * Unit id relative to a specific team (position in that team). Same
 * layout and C++ constructors as dart_global_unit_t; a distinct type so
 * the compiler keeps the two kinds of id apart.
 */
typedef struct dart_local_unit {
#ifdef __cplusplus
  constexpr dart_local_unit() : id(DART_UNDEFINED_UNIT_ID) { }
  constexpr dart_local_unit(dart_unit_t uid) : id(uid) { }
#endif
  dart_unit_t id;
} dart_team_unit_t;

/* Wraps a raw id into a dart_team_unit_t. Pure, usable at any time. */
static inline
dart_team_unit_t dart_create_team_unit(dart_unit_t unit)
{
  dart_team_unit_t tmp = {unit};
  return tmp;
}

#define DART_TEAM_UNIT_ID(__u) (dart_create_team_unit(__u))

/* Wraps a raw id into a dart_global_unit_t. Pure, usable at any time. */
static inline
dart_global_unit_t dart_create_global_unit(dart_unit_t unit)
{
  dart_global_unit_t tmp = {unit};
  return tmp;
}

#define DART_GLOBAL_UNIT_ID(__u) (dart_create_global_unit(__u))

/* Undefined ids as wrapped values (function calls, not constants). */
#define DART_UNDEFINED_TEAM_UNIT_ID DART_TEAM_UNIT_ID(DART_UNDEFINED_UNIT_ID)
#define DART_UNDEFINED_GLOBAL_UNIT_ID DART_GLOBAL_UNIT_ID(DART_UNDEFINED_UNIT_ID)

/* ---------------------------------------------------------------------
 * Team ids
 * ------------------------------------------------------------------ */

/*
 * Team id: 0 is DART_TEAM_ALL, -1 means "no team", created teams get
 * positive ids.
 */
typedef int16_t dart_team_t;

/* "No team"; same value as DART_TEAM_NULL. */
#define DART_UNDEFINED_TEAM_ID ((dart_team_t)(-1))

/* ---------------------------------------------------------------------
 * Thread support
 * ------------------------------------------------------------------ */

/*
 * Thread-support level granted by dart_init_thread().
 *   DART_THREAD_SINGLE   the application serialises all DART calls
 *   DART_THREAD_MULTIPLE functions documented as TS / TS-team may be
 *                        called concurrently from several threads
 */
typedef enum
{
  DART_THREAD_SINGLE = 0,
  DART_THREAD_MULTIPLE = 10
} dart_thread_support_level_t;

/* ---------------------------------------------------------------------
 * Locality scopes and limits
 * ------------------------------------------------------------------ */

/*
 * Levels of the locality hierarchy. Larger values are finer: for scopes
 * a > b, a domain of scope a lies inside a domain of scope b. The values
 * are fixed (DASH casts its own enum onto them).
 */
typedef enum
{
  DART_LOCALITY_SCOPE_UNDEFINED  =   -1,
  DART_LOCALITY_SCOPE_GLOBAL     =    0,
  DART_LOCALITY_SCOPE_GROUP      =    1,
  DART_LOCALITY_SCOPE_NETWORK    =   50,
  DART_LOCALITY_SCOPE_NODE       =  100,
  DART_LOCALITY_SCOPE_MODULE     =  200,
  DART_LOCALITY_SCOPE_NUMA       =  300,
  DART_LOCALITY_SCOPE_UNIT       =  400,
  DART_LOCALITY_SCOPE_PACKAGE    =  500,
  DART_LOCALITY_SCOPE_UNCORE     =  510,
  DART_LOCALITY_SCOPE_CACHE      =  530,
  DART_LOCALITY_SCOPE_CORE       =  550,
  DART_LOCALITY_SCOPE_CPU        =  600
}
dart_locality_scope_t;

/*
 * Capacity of host-name buffers. Depends on whether <limits.h> exposes
 * HOST_NAME_MAX (glibc: only with POSIX features enabled, e.g.
 * -D_XOPEN_SOURCE=700, a GNU dialect, or C++). The library and all of its
 * clients must see the same value, since it changes the size of the
 * locality structures below.
 */
#if defined(HOST_NAME_MAX)
  #define DART_LOCALITY_HOST_MAX_SIZE      (HOST_NAME_MAX)
#elif defined(_POSIX_HOST_NAME_MAX)
  #define DART_LOCALITY_HOST_MAX_SIZE      (_POSIX_HOST_NAME_MAX)
#else
  #define DART_LOCALITY_HOST_MAX_SIZE     ((int)(256))
#endif
/* Capacity of a domain tag buffer, including the terminating NUL. */
#define DART_LOCALITY_DOMAIN_TAG_MAX_SIZE ((int)(32))
/* Maximum number of entries in dart_hwinfo_t.scopes. */
#define DART_LOCALITY_MAX_DOMAIN_SCOPES   ((int)(12))
/* Internal limits of the reference implementation. */
#define DART_LOCALITY_UNIT_MAX_CPUS       ((int)(64))
#define DART_LOCALITY_MAX_NUMA_ID         ((int)(16))
/* Number of cache levels described in dart_hwinfo_t. */
#define DART_LOCALITY_MAX_CACHE_LEVELS    ((int)( 5))

/* ---------------------------------------------------------------------
 * Locality structures
 * ------------------------------------------------------------------ */

/* A hardware component: its scope and its index within that scope. */
typedef struct {
    dart_locality_scope_t           scope;
    int                             index;
}
dart_locality_scope_pos_t;

/*
 * Hardware information of one unit, gathered at locality initialisation
 * (unknown values are -1). Plain data without pointers, exchanged between
 * units as raw bytes. Fields: host name; core, NUMA and socket counts of
 * the host; NUMA node, core and hardware thread of the unit; CPU clock
 * range; L1..L3 cache sizes, line sizes and ids (indices 0..2); hardware
 * threads per core; shared-memory bandwidth hint (MB/s); system and NUMA
 * node memory (in MiB despite the field names); the ancestors of the
 * unit's core, starting with the core itself, and their count.
 */
typedef struct
{
    char  host[DART_LOCALITY_HOST_MAX_SIZE];
    int   num_cores;
    int   num_numa;
    int   numa_id;
    int   num_sockets;
    int   core_id;
    int   cpu_id;
    int   min_cpu_mhz;
    int   max_cpu_mhz;
    int   cache_sizes[DART_LOCALITY_MAX_CACHE_LEVELS];
    int   cache_line_sizes[DART_LOCALITY_MAX_CACHE_LEVELS];
    int   cache_ids[DART_LOCALITY_MAX_CACHE_LEVELS];
    int   min_threads;
    int   max_threads;
    int   max_shmem_mbps;
    int   system_memory_bytes;
    int   numa_memory_bytes;
    dart_locality_scope_pos_t scopes[DART_LOCALITY_MAX_DOMAIN_SCOPES];
    int   num_scopes;
}
dart_hwinfo_t;

/*
 * Location of an attached processing module: host name of its node, host
 * name of the module, and the node component it is attached to. Part of
 * the ABI; no function takes it.
 */
typedef struct
{
    char  host[DART_LOCALITY_HOST_MAX_SIZE];
    char  module[DART_LOCALITY_HOST_MAX_SIZE];
    dart_locality_scope_pos_t pos;
}
dart_module_location_t;

/*
 * One node of a team's locality tree. The root has tag "." and scope
 * GLOBAL; a child's tag is its parent's tag plus "." plus its position.
 * Fields: host name; tag; alias domains (group domains only); scope;
 * depth in the tree; index within the scope; position among the
 * siblings; parent; children and their count; symmetry flag; owning team;
 * global ids of the units in this subtree; node count (root only); node
 * index; core count; shared memory size (0 at the root, -1 elsewhere).
 */
struct dart_domain_locality_s
{
    char host[DART_LOCALITY_HOST_MAX_SIZE];
    char domain_tag[DART_LOCALITY_DOMAIN_TAG_MAX_SIZE];
    struct dart_domain_locality_s ** aliases;
    int                              num_aliases;
    dart_locality_scope_t            scope;
    int                              level;
    int                              global_index;
    int                              relative_index;
    struct dart_domain_locality_s  * parent;
    int                              num_domains;
    struct dart_domain_locality_s ** children;
    int                              is_symmetric;
    dart_team_t                      team;
    int                              num_units;
    dart_global_unit_t             * unit_ids;
    int                              num_nodes;
    int                              node_id;
    int                              num_cores;
    int                              shared_mem_bytes;
};
struct dart_domain_locality_s;
typedef struct dart_domain_locality_s
    dart_domain_locality_t;

/*
 * Locality of one team member: its team-relative id, the team, its
 * hardware information and the tag of its leaf domain in the team's
 * tree. Plain data, exchanged between units as raw bytes.
 */
typedef struct {
    dart_team_unit_t         unit;
    dart_team_t              team;
    dart_hwinfo_t            hwinfo;
    char                     domain_tag[DART_LOCALITY_DOMAIN_TAG_MAX_SIZE];
}
dart_unit_locality_t;

/* ---------------------------------------------------------------------
 * Runtime configuration
 * ------------------------------------------------------------------ */

/*
 * The library's configuration object (see dart_config()). log_enabled
 * (initially 1) is a client-writable switch for DART diagnostics.
 */
typedef struct
{
  int log_enabled;
}
dart_config_t;

/* ---------------------------------------------------------------------
 * Derived data types and user-defined operations
 *
 * All functions in this section are local (no communication, not
 * collective), carry no thread-safety annotation (treat as NTS) and may
 * only be called between dart_init and dart_exit. Created handles are
 * valid only on the creating unit.
 * ------------------------------------------------------------------ */

/*
 * Creates a strided type: blocks of `blocklen` consecutive `basetype`
 * elements whose starts are `stride` elements apart. Transfers with it
 * must use a multiple of `blocklen` elements.
 *   basetype  contiguous (basic or custom) element type
 *   stride    distance between block starts, in elements
 *   blocklen  elements per block
 *   newtype   [out] the new type; DART_TYPE_UNDEFINED on failure
 * Returns DART_OK; DART_ERR_INVAL for a null newtype, a non-contiguous
 * base type or stride/blocklen above INT_MAX.
 * Not collective. Thread safety: not annotated.
 */
dart_ret_t
dart_type_create_strided(
  dart_datatype_t   basetype,
  size_t            stride,
  size_t            blocklen,
  dart_datatype_t * newtype);

/*
 * Creates an indexed type of `count` blocks; block i holds blocklen[i]
 * elements of `basetype` starting at element offset[i]. The arrays are
 * copied. Transfers must use a multiple of the summed block lengths.
 *   basetype  contiguous (basic or custom) element type
 *   count     number of blocks
 *   blocklen  elements per block (count entries)
 *   offset    first element of each block (count entries)
 *   newtype   [out] the new type; DART_TYPE_UNDEFINED on failure
 * Returns DART_OK; DART_ERR_INVAL for a null newtype, a non-contiguous
 * base type or a count, length or offset above INT_MAX.
 * Not collective. Thread safety: not annotated.
 */
dart_ret_t
dart_type_create_indexed(
  dart_datatype_t   basetype,
  size_t            count,
  const size_t      blocklen[],
  const size_t      offset[],
  dart_datatype_t * newtype);

/*
 * Creates an opaque contiguous type of `num_bytes` bytes, e.g. for
 * transferring or reducing trivially copyable structs.
 *   num_bytes  size of one element in bytes
 *   newtype    [out] the new type; DART_TYPE_UNDEFINED on failure
 * Returns DART_OK; DART_ERR_INVAL for a null newtype or num_bytes above
 * INT_MAX.
 * Not collective. Thread safety: not annotated.
 */
dart_ret_t
dart_type_create_custom(
  size_t            num_bytes,
  dart_datatype_t * newtype);

/*
 * Releases a type created by a dart_type_create_* function and sets
 * *dart_type to DART_TYPE_UNDEFINED. Operations already started with the
 * type still complete.
 * Returns DART_OK; DART_ERR_INVAL for a null pointer or a basic type.
 * Not collective. Thread safety: not annotated.
 */
dart_ret_t
dart_type_destroy(dart_datatype_t *dart_type);

/*
 * User reduction callback: combines `len` elements so that
 * inoutvec[i] = invec[i] op inoutvec[i]. `user_data` is the pointer given
 * to dart_op_create().
 */
typedef void (*dart_operator_t)(
  const void   * invec,
        void   * inoutvec,
        size_t   len,
        void   * user_data);

/*
 * Registers a user-defined reduction for dart_reduce / dart_allreduce.
 *   op            the combining callback
 *   userdata      passed to `op` unchanged; owned by the caller and must
 *                 outlive the operation
 *   commute       whether the operation is commutative (if not, operands
 *                 are combined in team order)
 *   dtype         contiguous element type all reductions with it must use
 *   dtype_is_tmp  true if `dtype` is used only with this operation and
 *                 outlives it (the runtime need not copy it)
 *   new_op        [out] handle; DART_OP_UNDEFINED on failure
 * Returns DART_OK; DART_ERR_INVAL for a null new_op or a non-contiguous
 * type.
 * Not collective. Thread safety: not annotated.
 */
dart_ret_t
dart_op_create(
  dart_operator_t    op,
  void             * userdata,
  bool               commute,
  dart_datatype_t    dtype,
  bool               dtype_is_tmp,
  dart_operation_t * new_op);

/*
 * Releases a user-defined operation and sets *op to DART_OP_UNDEFINED.
 * Returns DART_OK; DART_ERR_INVAL for a null pointer or (recommended) a
 * predefined operation.
 * Not collective. Thread safety: not annotated.
 */
dart_ret_t
dart_op_destroy(dart_operation_t *op);

#define DART_INTERFACE_OFF

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DART_TYPES_H_INCLUDED */
