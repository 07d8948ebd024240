/*
 * pmix_tool.h -- the tool side of the PMIx IOF shim: connect to a server
 * and push stdin to it, obeying its XOFF/XON.
 *
 * A tool holds at most one server connection.  A process may be a tool and
 * a server at once (a relay): flow-control requests its server sends it are
 * then passed on to its own producers (see PMIx_server_IOF_flow_control).
 */
#ifndef PMIX_SHIM_TOOL_H
#define PMIX_SHIM_TOOL_H

#include "pmix_common.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PMIx_tool_init pmixshim_tool_init
#define PMIx_tool_finalize pmixshim_tool_finalize
#define PMIx_IOF_push pmixshim_iof_push

/* Start the tool side and connect to a server.
 *
 *   proc  if non-NULL, receives the tool's identity
 *   info  PMIX_SERVER_URI (else $PMIX_SHIM_SERVER_URI), PMIX_SHIM_SECRET
 *         (else $PMIX_SHIM_SECRET), PMIX_TOOL_NSPACE (default
 *         "pmixshim-tool-<pid>"), PMIX_TOOL_RANK (default 0),
 *         PMIX_SHIM_NO_FLOW_CONTROL, PMIX_SHIM_CONNECT_TIMEOUT_MS
 *
 * Blocks until the handshake completed.  Returns PMIX_SUCCESS,
 * PMIX_ERR_INIT (already initialised), PMIX_ERR_BAD_PARAM (no or bad URI),
 * PMIX_ERR_UNREACH (cannot connect), PMIX_ERR_INVALID_CRED (refused by the
 * server), PMIX_ERR_WOULD_BLOCK (called on the progress thread). */
PMIXSHIM_EXPORT pmix_status_t PMIx_tool_init(pmix_proc_t *proc, pmix_info_t info[], size_t ninfo);

/* Close the connection (pending pushes complete with
 * PMIX_ERR_IOF_FAILURE; a push from a descriptor stops and restores its
 * flags) and stop the progress thread unless the server side uses it.
 * Returns PMIX_SUCCESS, PMIX_ERR_INIT, PMIX_ERR_WOULD_BLOCK. */
PMIXSHIM_EXPORT pmix_status_t PMIx_tool_finalize(void);

/* Push stdin to the connected server.
 *
 *   targets/ntargets  recipients named to the server's host (may be empty)
 *   bo != NULL, size > 0  push these bytes (not copied: keep them until
 *                     completion); completes when all are written
 *   bo != NULL, size 0 or bo == NULL without PMIX_IOF_PUSH_STDIN: send EOF
 *   bo == NULL with PMIX_IOF_PUSH_STDIN true: read descriptor 0 (or
 *                     PMIX_SHIM_IOF_FD) until EOF and push everything, then
 *                     EOF; completes at the end
 *
 * While the server holds this tool suspended (XOFF), nothing new is read or
 * written: the descriptor's read is un-armed and queued buffers wait; the
 * chunk already being written is finished.  Pushes are applied in call
 * order.  Completion: cbfunc(PMIX_SUCCESS) / blocking return
 * PMIX_OPERATION_SUCCEEDED; PMIX_ERR_IOF_FAILURE if the connection was lost
 * or the server refused the data.  Other returns: PMIX_ERR_INIT,
 * PMIX_ERR_BAD_PARAM, PMIX_ERR_NOT_AVAILABLE, PMIX_ERR_WOULD_BLOCK. */
PMIXSHIM_EXPORT pmix_status_t PMIx_IOF_push(const pmix_proc_t targets[], size_t ntargets,
                                            pmix_byte_object_t *bo,
                                            const pmix_info_t directives[], size_t ndirs,
                                            pmix_op_cbfunc_t cbfunc, void *cbdata);

#ifdef __cplusplus
}
#endif

#endif
