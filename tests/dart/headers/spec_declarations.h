/*
 * spec_declarations.h -- the normative declarations of the DART interface
 * specification (/work/shared/specs/dart-interface.md, sections 1.2-3.8),
 * restated for the header compile tests.
 *
 * Included after all public headers. Every macro is redefined with the
 * spec's replacement list and every function is redeclared with the
 * spec's prototype, so any drift in the public headers (a different macro
 * body, parameter type, return type or parameter count) becomes a
 * compile error ("redefined" is a warning, turned into an error by
 * -Werror; conflicting prototypes are errors). Types are not restated
 * here; their layout is checked by the size/offset assertions.
 *
 * Extracted mechanically from the spec's "normative" code blocks
 * (multi-line macros joined onto one line, static inline definitions
 * turned into prototypes). Keep it in sync with the spec, not with the
 * headers.
 */
#ifndef DART_TEST_SPEC_DECLARATIONS_H
#define DART_TEST_SPEC_DECLARATIONS_H

#ifdef __cplusplus
extern "C" {
#endif

#define DART_VERSION_STR     "3.2.0"
#define DART_BUILD_STR       (__DATE__ " " __TIME__)
#ifdef __cplusplus
#define DART_NOTHROW __attribute__((nothrow))
#else
#define DART_NOTHROW
#endif
#define DART_MAYBE_UNUSED __attribute__((unused))
#define DART_INLINE static inline DART_MAYBE_UNUSED
#define DART_OP_MINMAX_MIN 0
#define DART_OP_MINMAX_MAX 1
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
#if (UINT32_MAX == SIZE_MAX)
#  define DART_TYPE_SIZET DART_TYPE_ULONG
#elif (UINT64_MAX == SIZE_MAX)
#  define DART_TYPE_SIZET DART_TYPE_ULONGLONG
#else
#  error "Cannot determine DART type for size_t!"
#endif
#define DART_UNDEFINED_UNIT_ID ((dart_unit_t)(-1))
#define DART_TEAM_UNIT_ID(__u) (dart_create_team_unit(__u))
#define DART_GLOBAL_UNIT_ID(__u) (dart_create_global_unit(__u))
#define DART_UNDEFINED_TEAM_UNIT_ID DART_TEAM_UNIT_ID(DART_UNDEFINED_UNIT_ID)
#define DART_UNDEFINED_GLOBAL_UNIT_ID DART_GLOBAL_UNIT_ID(DART_UNDEFINED_UNIT_ID)
static inline dart_team_unit_t dart_create_team_unit(dart_unit_t unit);
static inline dart_global_unit_t dart_create_global_unit(dart_unit_t unit);
#define DART_UNDEFINED_TEAM_ID ((dart_team_t)(-1))
#define DART_TEAM_ALL   ((dart_team_t)0)
#define DART_TEAM_NULL  ((dart_team_t)-1)
#define DART_GROUP_NULL ((struct dart_group_struct*)NULL)
#if defined(HOST_NAME_MAX)
  #define DART_LOCALITY_HOST_MAX_SIZE      (HOST_NAME_MAX)
#elif defined(_POSIX_HOST_NAME_MAX)
  #define DART_LOCALITY_HOST_MAX_SIZE      (_POSIX_HOST_NAME_MAX)
#else
  #define DART_LOCALITY_HOST_MAX_SIZE     ((int)(256))
#endif
#define DART_LOCALITY_DOMAIN_TAG_MAX_SIZE ((int)(32))
#define DART_LOCALITY_MAX_DOMAIN_SCOPES   ((int)(12))
#define DART_LOCALITY_UNIT_MAX_CPUS       ((int)(64))
#define DART_LOCALITY_MAX_NUMA_ID         ((int)(16))
#define DART_LOCALITY_MAX_CACHE_LEVELS    ((int)( 5))
dart_ret_t dart_type_create_strided(dart_datatype_t basetype, size_t stride, size_t blocklen, dart_datatype_t * newtype);
dart_ret_t dart_type_create_indexed(dart_datatype_t basetype, size_t count, const size_t blocklen[], const size_t offset[], dart_datatype_t * newtype);
dart_ret_t dart_type_create_custom(size_t num_bytes, dart_datatype_t * newtype);
dart_ret_t dart_type_destroy(dart_datatype_t * dart_type);
dart_ret_t dart_op_create(dart_operator_t op, void * userdata, bool commute, dart_datatype_t dtype, bool dtype_is_tmp, dart_operation_t * new_op);
dart_ret_t dart_op_destroy(dart_operation_t * op);
void dart_config(dart_config_t ** config_out) DART_NOTHROW;
dart_ret_t dart_init(int * argc, char *** argv) DART_NOTHROW;
dart_ret_t dart_init_thread(int * argc, char *** argv, dart_thread_support_level_t * thread_safety) DART_NOTHROW;
dart_ret_t dart_exit() DART_NOTHROW;
bool dart_initialized() DART_NOTHROW;
void dart_abort(int errorcode) __attribute__((noreturn));
dart_ret_t dart_group_create(dart_group_t * group) DART_NOTHROW;
dart_ret_t dart_group_destroy(dart_group_t * group) DART_NOTHROW;
dart_ret_t dart_group_clone(const dart_group_t gin, dart_group_t * gout) DART_NOTHROW;
dart_ret_t dart_group_union(const dart_group_t g1, const dart_group_t g2, dart_group_t * gout) DART_NOTHROW;
dart_ret_t dart_group_intersect(const dart_group_t g1, const dart_group_t g2, dart_group_t * gout) DART_NOTHROW;
dart_ret_t dart_group_addmember(dart_group_t g, dart_global_unit_t unitid) DART_NOTHROW;
dart_ret_t dart_group_delmember(dart_group_t g, dart_global_unit_t unitid) DART_NOTHROW;
dart_ret_t dart_group_ismember(const dart_group_t g, dart_global_unit_t unitid, int32_t * ismember) DART_NOTHROW;
dart_ret_t dart_group_size(const dart_group_t g, size_t * size) DART_NOTHROW;
dart_ret_t dart_group_getmembers(const dart_group_t g, dart_global_unit_t * unitids) DART_NOTHROW;
dart_ret_t dart_group_split(const dart_group_t g, size_t n, size_t * nout, dart_group_t * gout) DART_NOTHROW;
dart_ret_t dart_group_locality_split(const dart_group_t g, dart_domain_locality_t * domain, dart_locality_scope_t scope, size_t n, size_t * nout, dart_group_t * gout) DART_NOTHROW;
dart_ret_t dart_team_get_group(dart_team_t teamid, dart_group_t * group) DART_NOTHROW;
dart_ret_t dart_team_create(dart_team_t teamid, const dart_group_t group, dart_team_t * newteam) DART_NOTHROW;
dart_ret_t dart_team_destroy(dart_team_t * teamid) DART_NOTHROW;
dart_ret_t dart_team_clone(dart_team_t team, dart_team_t * newteam) DART_NOTHROW;
dart_ret_t dart_team_myid(dart_team_t teamid, dart_team_unit_t * myid) DART_NOTHROW;
dart_ret_t dart_team_size(dart_team_t teamid, size_t * size) DART_NOTHROW;
dart_ret_t dart_myid(dart_global_unit_t * myid) DART_NOTHROW;
dart_ret_t dart_size(size_t * size) DART_NOTHROW;
dart_ret_t dart_team_unit_l2g(dart_team_t team, dart_team_unit_t localid, dart_global_unit_t * globalid) DART_NOTHROW;
dart_ret_t dart_team_unit_g2l(dart_team_t team, dart_global_unit_t globalid, dart_team_unit_t * localid) DART_NOTHROW;
#ifdef __cplusplus
#define DART_GPTR_NULL (dart_gptr_t { -1, 0, 0, DART_TEAM_NULL, { 0 } })
#else
#define DART_GPTR_NULL  (dart_gptr_t){ .unitid = -1,                 .flags  =  0,                 .segid  =  0,                 .teamid  =  DART_TEAM_NULL,                 .addr_or_offs.offset = 0 }
#endif
#define DART_GPTR_ISNULL(gptr_)            (gptr_.unitid<0 && gptr_.segid==0 &&      gptr_.teamid==DART_TEAM_NULL   &&        gptr_.addr_or_offs.addr==0)
#define DART_GPTR_EQUAL(gptr1_, gptr2_ )       ((gptr1_.unitid == gptr2_.unitid) &&          (gptr1_.segid  == gptr2_.segid)  &&          (gptr1_.teamid == gptr2_.teamid) &&          (gptr1_.addr_or_offs.offset ==                gptr2_.addr_or_offs.offset) )
#define DART_SEGMENT_LOCAL ((int16_t)0)
dart_ret_t dart_gptr_getaddr(const dart_gptr_t gptr, void ** addr) DART_NOTHROW;
dart_ret_t dart_gptr_setaddr(dart_gptr_t * gptr, void * addr) DART_NOTHROW;
DART_INLINE DART_NOTHROW dart_ret_t dart_gptr_incaddr(dart_gptr_t * gptr, int64_t offs);
DART_INLINE DART_NOTHROW dart_ret_t dart_gptr_setunit(dart_gptr_t * gptr, dart_team_unit_t unit);
dart_ret_t dart_gptr_getflags(dart_gptr_t gptr, uint16_t * flags) DART_NOTHROW;
dart_ret_t dart_gptr_setflags(dart_gptr_t * gptr, uint16_t flags) DART_NOTHROW;
dart_ret_t dart_allocator_new(size_t pool_size, dart_team_t team, dart_allocator_t * new_allocator);
dart_ret_t dart_allocator_alloc(size_t nelem, dart_datatype_t dtype, dart_gptr_t * gptr, dart_allocator_t allocator);
dart_ret_t dart_allocator_free(dart_gptr_t * gptr, dart_allocator_t allocator);
dart_ret_t dart_allocator_destroy(dart_allocator_t * allocator);
dart_ret_t dart_memalloc(size_t nelem, dart_datatype_t dtype, dart_gptr_t * gptr) DART_NOTHROW;
dart_ret_t dart_memfree(dart_gptr_t gptr) DART_NOTHROW;
dart_ret_t dart_team_memalloc_aligned(dart_team_t teamid, size_t nelem, dart_datatype_t dtype, dart_gptr_t * gptr) DART_NOTHROW;
dart_ret_t dart_team_memfree(dart_gptr_t gptr) DART_NOTHROW;
dart_ret_t dart_team_memregister_aligned(dart_team_t teamid, size_t nelem, dart_datatype_t dtype, void * addr, dart_gptr_t * gptr) DART_NOTHROW;
dart_ret_t dart_team_memregister(dart_team_t teamid, size_t nlelem, dart_datatype_t dtype, void * addr, dart_gptr_t * gptr) DART_NOTHROW;
dart_ret_t dart_team_memderegister(dart_gptr_t gptr) DART_NOTHROW;
#define DART_HANDLE_NULL (dart_handle_t)NULL
dart_ret_t dart_barrier(dart_team_t team) DART_NOTHROW;
dart_ret_t dart_bcast(void * buf, size_t nelem, dart_datatype_t dtype, dart_team_unit_t root, dart_team_t team) DART_NOTHROW;
dart_ret_t dart_scatter(const void * sendbuf, void * recvbuf, size_t nelem, dart_datatype_t dtype, dart_team_unit_t root, dart_team_t team) DART_NOTHROW;
dart_ret_t dart_gather(const void * sendbuf, void * recvbuf, size_t nelem, dart_datatype_t dtype, dart_team_unit_t root, dart_team_t team) DART_NOTHROW;
dart_ret_t dart_allgather(const void * sendbuf, void * recvbuf, size_t nelem, dart_datatype_t dtype, dart_team_t team) DART_NOTHROW;
dart_ret_t dart_allgatherv(const void * sendbuf, size_t nsendelem, dart_datatype_t dtype, void * recvbuf, const size_t * nrecvelem, const size_t * recvdispls, dart_team_t teamid) DART_NOTHROW;
dart_ret_t dart_allreduce(const void * sendbuf, void * recvbuf, size_t nelem, dart_datatype_t dtype, dart_operation_t op, dart_team_t team) DART_NOTHROW;
dart_ret_t dart_alltoall(const void * sendbuf, void * recvbuf, size_t nelem, dart_datatype_t dtype, dart_team_t team) DART_NOTHROW;
dart_ret_t dart_reduce(const void * sendbuf, void * recvbuf, size_t nelem, dart_datatype_t dtype, dart_operation_t op, dart_team_unit_t root, dart_team_t team) DART_NOTHROW;
dart_ret_t dart_accumulate(dart_gptr_t gptr, const void * values, size_t nelem, dart_datatype_t dtype, dart_operation_t op) DART_NOTHROW;
dart_ret_t dart_accumulate_blocking_local(dart_gptr_t gptr, const void * values, size_t nelem, dart_datatype_t dtype, dart_operation_t op) DART_NOTHROW;
dart_ret_t dart_fetch_and_op(dart_gptr_t gptr, const void * value, void * result, dart_datatype_t dtype, dart_operation_t op) DART_NOTHROW;
dart_ret_t dart_compare_and_swap(dart_gptr_t gptr, const void * value, const void * compare, void * result, dart_datatype_t dtype) DART_NOTHROW;
dart_ret_t dart_get(void * dest, dart_gptr_t gptr, size_t nelem, dart_datatype_t src_type, dart_datatype_t dst_type) DART_NOTHROW;
dart_ret_t dart_put(dart_gptr_t gptr, const void * src, size_t nelem, dart_datatype_t src_type, dart_datatype_t dst_type) DART_NOTHROW;
dart_ret_t dart_flush(dart_gptr_t gptr) DART_NOTHROW;
dart_ret_t dart_flush_all(dart_gptr_t gptr) DART_NOTHROW;
dart_ret_t dart_flush_local(dart_gptr_t gptr) DART_NOTHROW;
dart_ret_t dart_flush_local_all(dart_gptr_t gptr) DART_NOTHROW;
dart_ret_t dart_get_handle(void * dest, dart_gptr_t gptr, size_t nelem, dart_datatype_t src_type, dart_datatype_t dst_type, dart_handle_t * handle) DART_NOTHROW;
dart_ret_t dart_put_handle(dart_gptr_t gptr, const void * src, size_t nelem, dart_datatype_t src_type, dart_datatype_t dst_type, dart_handle_t * handle) DART_NOTHROW;
dart_ret_t dart_wait(dart_handle_t * handle) DART_NOTHROW;
dart_ret_t dart_waitall(dart_handle_t handles[], size_t n) DART_NOTHROW;
dart_ret_t dart_wait_local(dart_handle_t * handle) DART_NOTHROW;
dart_ret_t dart_waitall_local(dart_handle_t handles[], size_t n) DART_NOTHROW;
dart_ret_t dart_test_local(dart_handle_t * handle, int32_t * result) DART_NOTHROW;
dart_ret_t dart_test(dart_handle_t * handleptr, int32_t * is_finished);
dart_ret_t dart_testall_local(dart_handle_t handles[], size_t n, int32_t * result) DART_NOTHROW;
dart_ret_t dart_testall(dart_handle_t handles[], size_t n, int32_t * is_finished);
dart_ret_t dart_handle_free(dart_handle_t * handle) DART_NOTHROW;
dart_ret_t dart_get_blocking(void * dest, dart_gptr_t gptr, size_t nelem, dart_datatype_t src_type, dart_datatype_t dst_type) DART_NOTHROW;
dart_ret_t dart_put_blocking(dart_gptr_t gptr, const void * src, size_t nelem, dart_datatype_t src_type, dart_datatype_t dst_type) DART_NOTHROW;
dart_ret_t dart_send(const void * sendbuf, size_t nelem, dart_datatype_t dtype, int tag, dart_global_unit_t unit) DART_NOTHROW;
dart_ret_t dart_recv(void * recvbuf, size_t nelem, dart_datatype_t dtype, int tag, dart_global_unit_t unit) DART_NOTHROW;
dart_ret_t dart_sendrecv(const void * sendbuf, size_t send_nelem, dart_datatype_t send_dtype, int send_tag, dart_global_unit_t dest, void * recvbuf, size_t recv_nelem, dart_datatype_t recv_dtype, int recv_tag, dart_global_unit_t src) DART_NOTHROW;
#define DART_LOCK_NULL ((dart_lock_t)NULL)
dart_ret_t dart_team_lock_init(dart_team_t teamid, dart_lock_t * lock) DART_NOTHROW;
dart_ret_t dart_team_lock_destroy(dart_lock_t * lock) DART_NOTHROW;
dart_ret_t dart_lock_acquire(dart_lock_t lock) DART_NOTHROW;
dart_ret_t dart_lock_try_acquire(dart_lock_t lock, int32_t * result) DART_NOTHROW;
dart_ret_t dart_lock_release(dart_lock_t lock) DART_NOTHROW;
bool dart_lock_initialized(struct dart_lock_struct const * lock) DART_NOTHROW;
dart_ret_t dart_team_locality_init(dart_team_t team) DART_NOTHROW;
dart_ret_t dart_team_locality_finalize(dart_team_t team) DART_NOTHROW;
dart_ret_t dart_domain_team_locality(dart_team_t team, const char * domain_tag, dart_domain_locality_t ** team_domain_out) DART_NOTHROW;
dart_ret_t dart_domain_create(dart_domain_locality_t ** domain_out) DART_NOTHROW;
dart_ret_t dart_domain_clone(const dart_domain_locality_t * domain_in, dart_domain_locality_t ** domain_out) DART_NOTHROW;
dart_ret_t dart_domain_destroy(dart_domain_locality_t * domain) DART_NOTHROW;
dart_ret_t dart_domain_assign(dart_domain_locality_t * domain_lhs, const dart_domain_locality_t * domain_rhs) DART_NOTHROW;
dart_ret_t dart_domain_find(const dart_domain_locality_t * domain_in, const char * domain_tag, dart_domain_locality_t ** subdomain_out) DART_NOTHROW;
dart_ret_t dart_domain_select(dart_domain_locality_t * domain_in, int num_subdomain_tags, const char ** subdomain_tags) DART_NOTHROW;
dart_ret_t dart_domain_exclude(dart_domain_locality_t * domain_in, int num_subdomain_tags, const char ** subdomain_tags) DART_NOTHROW;
dart_ret_t dart_domain_add_subdomain(dart_domain_locality_t * domain, dart_domain_locality_t * subdomain, int subdomain_rel_id) DART_NOTHROW;
dart_ret_t dart_domain_move_subdomain(dart_domain_locality_t * domain, dart_domain_locality_t * new_parent_domain, int new_domain_rel_id) DART_NOTHROW;
dart_ret_t dart_domain_split_scope(const dart_domain_locality_t * domain_in, dart_locality_scope_t scope, int num_parts, dart_domain_locality_t * split_domain_out) DART_NOTHROW;
dart_ret_t dart_domain_scope_tags(const dart_domain_locality_t * domain_in, dart_locality_scope_t scope, int * num_domains_out, char *** domain_tags_out) DART_NOTHROW;
dart_ret_t dart_domain_scope_domains(const dart_domain_locality_t * domain_in, dart_locality_scope_t scope, int * num_domains_out, dart_domain_locality_t *** domains_out) DART_NOTHROW;
dart_ret_t dart_domain_group(dart_domain_locality_t * domain_in, int num_group_subdomains, const char ** group_subdomain_tags, char * group_domain_tag_out) DART_NOTHROW;
dart_ret_t dart_unit_locality(dart_team_t team, dart_team_unit_t unit, dart_unit_locality_t ** loc) DART_NOTHROW;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DART_TEST_SPEC_DECLARATIONS_H */
