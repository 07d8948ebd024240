/*
 * pmix_common.h -- types, constants and helpers of the PMIx IOF shim.
 *
 * Names, type layouts, numeric values and the behaviour of the helpers
 * (loaders copy, destructors free, a NULL boolean means true) follow
 * OpenPMIx 7.0, the first release with PMIx_server_IOF_flow_control, so a
 * program written against OpenPMIx's IOF and flow-control API compiles
 * against the shim unchanged and means the same.  Every constant defined
 * here that OpenPMIx 4.2 also has carries the same value there
 * (test_pmix_compat compares them against the installed 4.2 headers).
 *
 * Link names.  Open MPI loads the real libpmix into every MPI process, so
 * no symbol of the shim may carry a PMIx name: every PMIx function declared
 * by these headers is mapped by a macro to a "pmixshim_" link name (e.g.
 * PMIx_server_init -> pmixshim_server_init), and libpmix_shim.so exports
 * only pmixshim_* symbols (version script src/libpmix_shim.map).  A
 * translation unit includes either these headers or the real PMIx ones,
 * never both; a program may link both libraries.
 *
 * Thread safety: every function may be called from any thread unless its
 * documentation says otherwise.
 */
#ifndef PMIX_SHIM_COMMON_H
#define PMIX_SHIM_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h> /* PMIX_VALUE_XFER allocates with malloc */
#include <sys/time.h>
#include <sys/types.h>
#include <time.h>

#include "pmix_version.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PMIXSHIM_EXPORT __attribute__((visibility("default")))

/* ---- Identifiers ------------------------------------------------------ */

#define PMIX_MAX_NSLEN 255
#define PMIX_MAX_KEYLEN 511

typedef char pmix_nspace_t[PMIX_MAX_NSLEN + 1];
typedef char pmix_key_t[PMIX_MAX_KEYLEN + 1];
typedef uint32_t pmix_rank_t;

#define PMIX_RANK_UNDEF UINT32_MAX
#define PMIX_RANK_WILDCARD (UINT32_MAX - 1)
#define PMIX_RANK_LOCAL_NODE (UINT32_MAX - 2)
#define PMIX_RANK_INVALID (UINT32_MAX - 3)
/* Ranks below this are real process ranks (PMIx_Rank_valid). */
#define PMIX_RANK_VALID (UINT32_MAX - 50)

typedef struct pmix_proc {
    pmix_nspace_t nspace;
    pmix_rank_t rank;
} pmix_proc_t;

/* ---- Status codes (PMIx Standard values) ------------------------------ */

typedef int pmix_status_t;

#define PMIX_SUCCESS 0
#define PMIX_ERROR -1
#define PMIX_ERR_EXISTS -11
#define PMIX_ERR_INVALID_CRED -12
#define PMIX_ERR_WOULD_BLOCK -15
#define PMIX_ERR_UNPACK_FAILURE -20
#define PMIX_ERR_NO_PERMISSIONS -23
#define PMIX_ERR_TIMEOUT -24
#define PMIX_ERR_UNREACH -25
#define PMIX_ERR_BAD_PARAM -27
#define PMIX_ERR_RESOURCE_BUSY -28
#define PMIX_ERR_OUT_OF_RESOURCE -29
#define PMIX_ERR_INIT -31
#define PMIX_ERR_NOMEM -32
#define PMIX_ERR_NOT_FOUND -46
#define PMIX_ERR_NOT_SUPPORTED -47
#define PMIX_ERR_COMM_FAILURE -49
#define PMIX_ERR_LOST_CONNECTION -61
#define PMIX_ERR_NOT_AVAILABLE -64
#define PMIX_OPERATION_IN_PROGRESS -156
#define PMIX_OPERATION_SUCCEEDED -157
#define PMIX_ERR_IOF_FAILURE -172
#define PMIX_ERR_IOF_COMPLETE -173

/* Negative values beyond PMIX_EXTERNAL_ERR_BASE are guaranteed by the PMIx
 * Standard never to be used by PMIx itself. */
#define PMIX_EXTERNAL_ERR_BASE -3000

/* "I have taken this data, now stop sending" -- the completion status of a
 * push_stdin upcall that suspends the producing stream (see
 * PMIx_server_IOF_flow_control in pmix_server.h).  Not a failure.  OpenPMIx
 * 7 introduced it with this value, so a host written for OpenPMIx returns
 * the same number to either library. */
#define PMIX_ERR_IOF_XOFF -405

/* ---- Data ------------------------------------------------------------- */

typedef uint16_t pmix_data_type_t;
#define PMIX_UNDEF 0
#define PMIX_BOOL 1
#define PMIX_BYTE 2
#define PMIX_STRING 3
#define PMIX_SIZE 4
#define PMIX_PID 5
#define PMIX_INT 6
#define PMIX_INT8 7
#define PMIX_INT16 8
#define PMIX_INT32 9
#define PMIX_INT64 10
#define PMIX_UINT 11
#define PMIX_UINT8 12
#define PMIX_UINT16 13
#define PMIX_UINT32 14
#define PMIX_UINT64 15
#define PMIX_FLOAT 16
#define PMIX_DOUBLE 17
#define PMIX_TIMEVAL 18
#define PMIX_TIME 19
#define PMIX_STATUS 20
#define PMIX_PROC 22
#define PMIX_BYTE_OBJECT 27
#define PMIX_POINTER 31
#define PMIX_PROC_RANK 40
#define PMIX_IOF_CHANNEL 45

typedef struct pmix_byte_object {
    char *bytes;
    size_t size;
} pmix_byte_object_t;

/* The value union has a member for each type above, with OpenPMIx's names
 * and in its order.  Types the shim does not know (data arrays,
 * topologies ...) have none, so code using them fails to compile rather
 * than misbehave. */
typedef struct pmix_value {
    pmix_data_type_t type;
    union {
        bool flag;
        uint8_t byte;
        char *string;
        size_t size;
        pid_t pid;
        int integer;
        int8_t int8;
        int16_t int16;
        int32_t int32;
        int64_t int64;
        unsigned int uint;
        uint8_t uint8;
        uint16_t uint16;
        uint32_t uint32;
        uint64_t uint64;
        float fval;
        double dval;
        struct timeval tv;
        time_t time;
        pmix_status_t status;
        pmix_rank_t rank;
        pmix_proc_t *proc;
        pmix_byte_object_t bo;
        void *ptr;
    } data;
} pmix_value_t;

typedef uint32_t pmix_info_directives_t;
#define PMIX_INFO_REQD 0x00000001
/* The info does not own its value: PMIx_Info_destruct leaves it alone and
 * PMIx_Info_xfer copies the reference, not the data. */
#define PMIX_INFO_PERSISTENT 0x00000010

typedef struct pmix_info {
    pmix_key_t key;
    pmix_info_directives_t flags;
    pmix_value_t value;
} pmix_info_t;

/* ---- IOF channels ----------------------------------------------------- */

typedef uint16_t pmix_iof_channel_t;
#define PMIX_FWD_NO_CHANNELS 0x0000
#define PMIX_FWD_STDIN_CHANNEL 0x0001
#define PMIX_FWD_STDOUT_CHANNEL 0x0002
#define PMIX_FWD_STDERR_CHANNEL 0x0004
#define PMIX_FWD_STDDIAG_CHANNEL 0x0008
#define PMIX_FWD_ALL_CHANNELS 0x00ff

/* ---- Callbacks -------------------------------------------------------- */

/* Completion of a non-blocking operation.  The library calls it exactly once,
 * on its progress thread: a blocking PMIx call made from inside it returns
 * PMIX_ERR_WOULD_BLOCK. */
typedef void (*pmix_op_cbfunc_t)(pmix_status_t status, void *cbdata);

/* ---- Attribute keys (Standard names) ---------------------------------- */

#define PMIX_SERVER_NSPACE "pmix.srv.nspace" /* (char*) nspace of this server */
#define PMIX_SERVER_RANK "pmix.srv.rank"     /* (pmix_rank_t) rank of this server */
#define PMIX_TOOL_NSPACE "pmix.tool.nspace"  /* (char*) nspace of this tool */
#define PMIX_TOOL_RANK "pmix.tool.rank"      /* (uint32_t) rank of this tool */
#define PMIX_SERVER_URI "pmix.srvr.uri"      /* (char*) URI of the server to contact */
#define PMIX_IOF_PUSH_STDIN "pmix.iof.stdin" /* (bool) collect the caller's stdin and push it */

/* ---- Shim attribute keys (not in the Standard) ------------------------ */

/* Server init: where to listen.  "unix" (default: a fresh 0700 directory
 * under $TMPDIR holding a 0600 socket), "unix:/path/to/socket", "tcp"
 * (127.0.0.1, ephemeral port), "tcp:HOST:PORT", or "none". (char*) */
#define PMIX_SHIM_LISTEN "pmixshim.listen"
/* Server and tool init: the per-job secret a tool presents in the handshake
 * (printable, 8..128 characters).  The server generates one when absent;
 * the tool falls back to $PMIX_SHIM_SECRET. (char*) */
#define PMIX_SHIM_SECRET "pmixshim.secret"
/* Tool init: announce no flow-control capability, i.e. behave as a
 * producer that predates PMIx_server_IOF_flow_control. (bool) */
#define PMIX_SHIM_NO_FLOW_CONTROL "pmixshim.noflow"
/* Tool init: how long to retry connecting while the server's socket does
 * not exist yet, in milliseconds (default 0: one attempt). (uint32_t) */
#define PMIX_SHIM_CONNECT_TIMEOUT_MS "pmixshim.conn.tmo"
/* PMIx_IOF_push with PMIX_IOF_PUSH_STDIN, and pmixshim_server_read_stdin:
 * read this descriptor instead of 0. (int) */
#define PMIX_SHIM_IOF_FD "pmixshim.iof.fd"
/* Bytes per chunk read from a descriptor and handed on (default 131072,
 * at most 1 MiB).  It bounds what is held per stream. (size_t) */
#define PMIX_SHIM_CHUNK_SIZE "pmixshim.chunk"
/* Set (true) in the directives of the zero-length push_stdin upcall that
 * ends a stream when the producer vanished without sending EOF. (bool) */
#define PMIX_SHIM_IOF_ABNORMAL_END "pmixshim.iof.abnormal"

/* Answer of PMIx_Info_true / PMIx_Value_true. */
typedef enum { PMIX_BOOL_TRUE, PMIX_BOOL_FALSE, PMIX_NON_BOOL } pmix_boolean_t;

/* ---- Link-name mapping ------------------------------------------------ */

#define PMIx_Error_string pmixshim_error_string
#define PMIx_Get_version pmixshim_get_version

#define PMIx_Load_key pmixshim_load_key
#define PMIx_Check_key pmixshim_check_key
#define PMIx_Load_nspace pmixshim_load_nspace
#define PMIx_Check_nspace pmixshim_check_nspace
#define PMIx_Nspace_invalid pmixshim_nspace_invalid
#define PMIx_Load_procid pmixshim_load_procid
#define PMIx_Xfer_procid pmixshim_xfer_procid
#define PMIx_Check_procid pmixshim_check_procid
#define PMIx_Check_rank pmixshim_check_rank
#define PMIx_Rank_valid pmixshim_rank_valid
#define PMIx_Procid_invalid pmixshim_procid_invalid

#define PMIx_Proc_construct pmixshim_proc_construct
#define PMIx_Proc_destruct pmixshim_proc_destruct
#define PMIx_Proc_create pmixshim_proc_create
#define PMIx_Proc_free pmixshim_proc_free
#define PMIx_Proc_load pmixshim_proc_load

#define PMIx_Byte_object_construct pmixshim_byte_object_construct
#define PMIx_Byte_object_destruct pmixshim_byte_object_destruct
#define PMIx_Byte_object_create pmixshim_byte_object_create
#define PMIx_Byte_object_free pmixshim_byte_object_free
#define PMIx_Byte_object_load pmixshim_byte_object_load

#define PMIx_Value_construct pmixshim_value_construct
#define PMIx_Value_destruct pmixshim_value_destruct
#define PMIx_Value_create pmixshim_value_create
#define PMIx_Value_free pmixshim_value_free
#define PMIx_Value_true pmixshim_value_true
#define PMIx_Value_load pmixshim_value_load
#define PMIx_Value_xfer pmixshim_value_xfer

#define PMIx_Info_construct pmixshim_info_construct
#define PMIx_Info_destruct pmixshim_info_destruct
#define PMIx_Info_create pmixshim_info_create
#define PMIx_Info_free pmixshim_info_free
#define PMIx_Info_true pmixshim_info_true
#define PMIx_Info_load pmixshim_info_load
#define PMIx_Info_xfer pmixshim_info_xfer
#define PMIx_Info_required pmixshim_info_required
#define PMIx_Info_optional pmixshim_info_optional
#define PMIx_Info_is_required pmixshim_info_is_required
#define PMIx_Info_is_optional pmixshim_info_is_optional
#define PMIx_Info_persistent pmixshim_info_persistent
#define PMIx_Info_is_persistent pmixshim_info_is_persistent

/* ---- Helpers ---------------------------------------------------------- */
/* None of these touches library state: any thread may call them at any
 * time, before init and after finalize.  A NULL object pointer is ignored
 * (or answered with PMIX_ERR_BAD_PARAM / false / NULL), never dereferenced. */

/* Human-readable name of a status code (static storage, never NULL). */
PMIXSHIM_EXPORT const char *PMIx_Error_string(pmix_status_t status);
/* "PMIx shim 1.1 (OpenPMIx 7.0.0 API)" (static storage). */
PMIXSHIM_EXPORT const char *PMIx_Get_version(void);

/* Keys and nspaces are copied truncated to their maximum length and
 * NUL-padded; NULL loads the empty string. */
PMIXSHIM_EXPORT void PMIx_Load_key(pmix_key_t key, const char *src);
/* Same key (up to PMIX_MAX_KEYLEN); false if either is NULL. */
PMIXSHIM_EXPORT bool PMIx_Check_key(const char *key, const char *str);
PMIXSHIM_EXPORT void PMIx_Load_nspace(pmix_nspace_t nspace, const char *str);
/* PMIx's matching rule: an empty (or NULL) nspace matches every nspace. */
PMIXSHIM_EXPORT bool PMIx_Check_nspace(const char *ns1, const char *ns2);
PMIXSHIM_EXPORT bool PMIx_Nspace_invalid(const char *nspace);
PMIXSHIM_EXPORT void PMIx_Load_procid(pmix_proc_t *p, const char *nspace, pmix_rank_t rank);
/* Copies *src (NULL: clears *dst). */
PMIXSHIM_EXPORT void PMIx_Xfer_procid(pmix_proc_t *dst, const pmix_proc_t *src);
/* Same process under PMIx's rule: empty nspace and PMIX_RANK_WILDCARD
 * match anything; two NULLs are equal, one NULL is not. */
PMIXSHIM_EXPORT bool PMIx_Check_procid(const pmix_proc_t *a, const pmix_proc_t *b);
PMIXSHIM_EXPORT bool PMIx_Check_rank(pmix_rank_t a, pmix_rank_t b);
PMIXSHIM_EXPORT bool PMIx_Rank_valid(pmix_rank_t rank);
/* NULL, an empty nspace or PMIX_RANK_INVALID. */
PMIXSHIM_EXPORT bool PMIx_Procid_invalid(const pmix_proc_t *p);

/* Procs own nothing: construct gives {"", PMIX_RANK_UNDEF}, destruct
 * resets to that.  create(0) is NULL; free releases what create made. */
PMIXSHIM_EXPORT void PMIx_Proc_construct(pmix_proc_t *p);
PMIXSHIM_EXPORT void PMIx_Proc_destruct(pmix_proc_t *p);
PMIXSHIM_EXPORT pmix_proc_t *PMIx_Proc_create(size_t n);
PMIXSHIM_EXPORT void PMIx_Proc_free(pmix_proc_t *p, size_t n);
PMIXSHIM_EXPORT void PMIx_Proc_load(pmix_proc_t *p, const char *nspace, pmix_rank_t rank);

/* A byte object owns bytes (malloc'ed): destruct frees them. */
PMIXSHIM_EXPORT void PMIx_Byte_object_construct(pmix_byte_object_t *b);
PMIXSHIM_EXPORT void PMIx_Byte_object_destruct(pmix_byte_object_t *b);
PMIXSHIM_EXPORT pmix_byte_object_t *PMIx_Byte_object_create(size_t n);
PMIXSHIM_EXPORT void PMIx_Byte_object_free(pmix_byte_object_t *b, size_t n);
/* Hands d (malloc'ed, or NULL) to b without copying: b owns it now. */
PMIXSHIM_EXPORT void PMIx_Byte_object_load(pmix_byte_object_t *b, char *d, size_t size);

/* A value owns what its loader allocated: the string of PMIX_STRING, the
 * bytes of PMIX_BYTE_OBJECT, the proc of PMIX_PROC; destruct frees it and
 * leaves PMIX_UNDEF.  PMIX_POINTER is a reference, never freed. */
PMIXSHIM_EXPORT void PMIx_Value_construct(pmix_value_t *v);
PMIXSHIM_EXPORT void PMIx_Value_destruct(pmix_value_t *v);
PMIXSHIM_EXPORT pmix_value_t *PMIx_Value_create(size_t n);
PMIXSHIM_EXPORT void PMIx_Value_free(pmix_value_t *v, size_t n);
/* PMIX_UNDEF is true (a key without a value asserts it); PMIX_BOOL its
 * flag; PMIX_STRING "true"/"yes"/"t"/"y"/"enable"/non-zero number (or
 * empty) is true, "false"/"no"/"f"/"n"/"disable"/0 false; anything else
 * (and NULL) PMIX_NON_BOOL, except that a NULL value is PMIX_BOOL_FALSE. */
PMIXSHIM_EXPORT pmix_boolean_t PMIx_Value_true(const pmix_value_t *v);
/* Copy *data of the given type into *v (whatever v held before is
 * overwritten, not freed).  data NULL: the value is zero, except that a
 * PMIX_BOOL is true -- the presence of a flag asserts it.  Returns
 * PMIX_SUCCESS, PMIX_ERR_BAD_PARAM (v NULL, or a byte object with bytes
 * NULL and size > 0), PMIX_ERR_NOMEM, or PMIX_ERR_NOT_SUPPORTED (a type
 * the shim does not know: the value keeps the type with zero data). */
PMIXSHIM_EXPORT pmix_status_t PMIx_Value_load(pmix_value_t *v, const void *data,
                                              pmix_data_type_t type);
/* Deep copy of *src into *dest (same returns). */
PMIXSHIM_EXPORT pmix_status_t PMIx_Value_xfer(pmix_value_t *dest, const pmix_value_t *src);

/* Infos own their value as values do (unless PMIX_INFO_PERSISTENT). */
PMIXSHIM_EXPORT void PMIx_Info_construct(pmix_info_t *i);
PMIXSHIM_EXPORT void PMIx_Info_destruct(pmix_info_t *i);
PMIXSHIM_EXPORT pmix_info_t *PMIx_Info_create(size_t n);
PMIXSHIM_EXPORT void PMIx_Info_free(pmix_info_t *i, size_t n);
/* PMIx_Value_true of its value; PMIX_BOOL_FALSE for NULL. */
PMIXSHIM_EXPORT pmix_boolean_t PMIx_Info_true(const pmix_info_t *i);
/* Construct *info, copy key, then PMIx_Value_load.  Same returns, plus
 * PMIX_ERR_BAD_PARAM for a NULL key (info then stays constructed). */
PMIXSHIM_EXPORT pmix_status_t PMIx_Info_load(pmix_info_t *info, const char *key,
                                             const void *data, pmix_data_type_t type);
PMIXSHIM_EXPORT pmix_status_t PMIx_Info_xfer(pmix_info_t *dest, const pmix_info_t *src);
PMIXSHIM_EXPORT void PMIx_Info_required(pmix_info_t *i);
PMIXSHIM_EXPORT void PMIx_Info_optional(pmix_info_t *i);
PMIXSHIM_EXPORT bool PMIx_Info_is_required(const pmix_info_t *i);
PMIXSHIM_EXPORT bool PMIx_Info_is_optional(const pmix_info_t *i);
PMIXSHIM_EXPORT void PMIx_Info_persistent(pmix_info_t *i);
PMIXSHIM_EXPORT bool PMIx_Info_is_persistent(const pmix_info_t *i);

/* ---- Macro forms (as OpenPMIx 7 defines them: thin wrappers) ---------- */

#define PMIX_LOAD_KEY(a, b) PMIx_Load_key(a, b)
#define PMIX_CHECK_KEY(a, b) PMIx_Check_key((a)->key, b)
#define PMIX_LOAD_NSPACE(a, b) PMIx_Load_nspace(a, b)
#define PMIX_CHECK_NSPACE(a, b) PMIx_Check_nspace(a, b)
#define PMIX_NSPACE_INVALID(a) PMIx_Nspace_invalid(a)
#define PMIX_LOAD_PROCID(a, b, c) PMIx_Load_procid(a, b, c)
#define PMIX_XFER_PROCID(a, b) PMIx_Xfer_procid(a, b)
#define PMIX_PROCID_XFER(a, b) PMIX_XFER_PROCID(a, b)
#define PMIX_CHECK_PROCID(a, b) PMIx_Check_procid(a, b)
#define PMIX_CHECK_RANK(a, b) PMIx_Check_rank(a, b)
#define PMIX_PROCID_INVALID(a) PMIx_Procid_invalid(a)

#define PMIX_PROC_CONSTRUCT(m) PMIx_Proc_construct(m)
#define PMIX_PROC_DESTRUCT(m) PMIx_Proc_destruct(m)
#define PMIX_PROC_CREATE(m, n) (m) = PMIx_Proc_create(n)
#define PMIX_PROC_FREE(m, n) \
    do {                     \
        PMIx_Proc_free(m, n); \
        (m) = NULL;          \
    } while (0)
#define PMIX_PROC_RELEASE(m) PMIX_PROC_FREE(m, 1)
#define PMIX_PROC_LOAD(m, n, r) PMIx_Proc_load(m, n, r)

#define PMIX_BYTE_OBJECT_CONSTRUCT(m) PMIx_Byte_object_construct(m)
#define PMIX_BYTE_OBJECT_DESTRUCT(m) PMIx_Byte_object_destruct(m)
#define PMIX_BYTE_OBJECT_CREATE(m, n) (m) = PMIx_Byte_object_create(n)
#define PMIX_BYTE_OBJECT_FREE(m, n)    \
    do {                               \
        PMIx_Byte_object_free(m, n);   \
        (m) = NULL;                    \
    } while (0)
/* Moves d into b: the caller's d and s are cleared. */
#define PMIX_BYTE_OBJECT_LOAD(b, d, s)  \
    do {                                \
        PMIx_Byte_object_load(b, d, s); \
        (d) = NULL;                     \
        (s) = 0;                        \
    } while (0)

#define PMIX_VALUE_CONSTRUCT(m) PMIx_Value_construct(m)
#define PMIX_VALUE_DESTRUCT(m) PMIx_Value_destruct(m)
#define PMIX_VALUE_CREATE(m, n) (m) = PMIx_Value_create(n)
#define PMIX_VALUE_FREE(m, n)     \
    do {                          \
        PMIx_Value_free(m, n);    \
        (m) = NULL;               \
    } while (0)
#define PMIX_VALUE_RELEASE(m) PMIX_VALUE_FREE(m, 1)
#define PMIX_VALUE_LOAD(v, d, t) PMIx_Value_load((v), (d), (t))
/* v NULL: allocates the destination (release it with PMIX_VALUE_RELEASE). */
#define PMIX_VALUE_XFER(r, v, s)                                          \
    do {                                                                  \
        if (NULL == (v)) (v) = (pmix_value_t *)malloc(sizeof(pmix_value_t)); \
        (r) = (NULL == (v)) ? PMIX_ERR_NOMEM : PMIx_Value_xfer((v), (s)); \
    } while (0)
#define PMIX_VALUE_XFER_DIRECT(r, v, s) (r) = PMIx_Value_xfer((v), (s))
#define PMIX_CHECK_TRUE(a) (PMIX_BOOL_TRUE == PMIx_Value_true(a) ? true : false)
#define PMIX_CHECK_BOOL(a) (PMIX_NON_BOOL == PMIx_Value_true(a) ? false : true)

#define PMIX_INFO_CONSTRUCT(m) PMIx_Info_construct(m)
#define PMIX_INFO_DESTRUCT(m) PMIx_Info_destruct(m)
#define PMIX_INFO_CREATE(m, n) (m) = PMIx_Info_create(n)
#define PMIX_INFO_FREE(m, n)     \
    do {                         \
        PMIx_Info_free(m, n);    \
        (m) = NULL;              \
    } while (0)
#define PMIX_INFO_LOAD(i, k, d, t) (void)PMIx_Info_load(i, k, d, t)
#define PMIX_INFO_XFER(d, s) (void)PMIx_Info_xfer(d, s)
#define PMIX_INFO_TRUE(m) (PMIX_BOOL_TRUE == PMIx_Info_true(m) ? true : false)
#define PMIX_INFO_REQUIRED(m) PMIx_Info_required(m)
#define PMIX_INFO_OPTIONAL(m) PMIx_Info_optional(m)
#define PMIX_INFO_IS_REQUIRED(m) PMIx_Info_is_required(m)
#define PMIX_INFO_IS_OPTIONAL(m) PMIx_Info_is_optional(m)
#define PMIX_INFO_SET_PERSISTENT(m) PMIx_Info_persistent(m)
#define PMIX_INFO_IS_PERSISTENT(m) PMIx_Info_is_persistent(m)

#ifdef __cplusplus
}
#endif

#endif
