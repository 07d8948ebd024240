/*
 * pmix_common.h -- types, constants and helpers of the PMIx IOF shim.
 *
 * Names, type layouts and numeric values follow the PMIx Standard (as
 * shipped by OpenPMIx 4.2), so code written against PMIx compiles against
 * the shim unchanged for the subset provided here.
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
#include <sys/types.h>

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
 * PMIx_server_IOF_flow_control in pmix_server.h).  Not a failure.  Defined
 * in the range PMIx reserves for codes outside the Standard, so it collides
 * with no PMIx code, current or future. */
#define PMIX_ERR_IOF_XOFF (PMIX_EXTERNAL_ERR_BASE - 172)

/* ---- Data ------------------------------------------------------------- */

typedef uint16_t pmix_data_type_t;
#define PMIX_UNDEF 0
#define PMIX_BOOL 1
#define PMIX_BYTE 2
#define PMIX_STRING 3
#define PMIX_SIZE 4
#define PMIX_PID 5
#define PMIX_INT 6
#define PMIX_INT32 9
#define PMIX_INT64 10
#define PMIX_UINT32 14
#define PMIX_UINT64 15
#define PMIX_STATUS 20
#define PMIX_PROC 22
#define PMIX_BYTE_OBJECT 27
#define PMIX_PROC_RANK 40
#define PMIX_IOF_CHANNEL 45

typedef struct pmix_byte_object {
    char *bytes;
    size_t size;
} pmix_byte_object_t;

/* The value union carries the members the shim interprets; it is a prefix
 * of the Standard's, with the same member names. */
typedef struct pmix_value {
    pmix_data_type_t type;
    union {
        bool flag;
        uint8_t byte;
        char *string;
        size_t size;
        pid_t pid;
        int integer;
        int32_t int32;
        int64_t int64;
        uint32_t uint32;
        uint64_t uint64;
        pmix_status_t status;
        pmix_rank_t rank;
        pmix_proc_t *proc;
        pmix_byte_object_t bo;
        void *ptr;
    } data;
} pmix_value_t;

typedef uint32_t pmix_info_directives_t;
#define PMIX_INFO_REQD 0x00000001

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

/* ---- Link-name mapping ------------------------------------------------ */

#define PMIx_Error_string pmixshim_error_string
#define PMIx_Get_version pmixshim_get_version

/* ---- Helpers ---------------------------------------------------------- */

/* Human-readable name of a status code (static storage, never NULL). */
PMIXSHIM_EXPORT const char *PMIx_Error_string(pmix_status_t status);
/* "PMIx shim 1.0 (PMIx API 4.2.2)" (static storage). */
PMIXSHIM_EXPORT const char *PMIx_Get_version(void);

/* Fill *p with nspace (truncated to PMIX_MAX_NSLEN; NULL = "") and rank. */
PMIXSHIM_EXPORT void pmixshim_load_procid(pmix_proc_t *p, const char *nspace, pmix_rank_t rank);
/* Load key and a copy of *data of the given type into *info.  Strings are
 * referenced, not copied: the caller keeps them alive while info is used. */
PMIXSHIM_EXPORT void pmixshim_info_load(pmix_info_t *info, const char *key, const void *data,
                                        pmix_data_type_t type);

#define PMIX_LOAD_PROCID(p, ns, rk) pmixshim_load_procid((p), (ns), (rk))
#define PMIX_INFO_LOAD(i, k, d, t) pmixshim_info_load((i), (k), (d), (t))

#ifdef __cplusplus
}
#endif

#endif
