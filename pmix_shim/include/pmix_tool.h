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

/* Shim directive of PMIx_IOF_push (not in PMIx): complete at the end of
 * the stream instead of once the read is set up, i.e. when the server's
 * host has taken every byte and the end of the stream (see below). (bool) */
#define PMIX_SHIM_IOF_COMPLETE_AT_END "pmixshim.iof.atend"

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

/* Push stdin.  In a tool (or a relay, which is tool and server) it goes to
 * the connected server; in a server that is not a tool it goes to this
 * server's own host (push_stdin, with the server's identity as source), as
 * OpenPMIx does.
 *
 *   targets/ntargets  recipients named to the host (may be empty)
 *   bo != NULL, size > 0  push these bytes (not copied: keep them until
 *                     completion); completes when the host has taken them
 *   bo != NULL, size 0 or bo == NULL without PMIX_IOF_PUSH_STDIN: the end
 *                     of the stream; completes when the host has taken it
 *   bo == NULL with PMIX_IOF_PUSH_STDIN true (a NULL value means true):
 *                     read descriptor 0 (or PMIX_SHIM_IOF_FD) until EOF
 *                     and push everything, then the end of the stream.
 *                     Completes once the read is set up (OpenPMIx's rule);
 *                     with PMIX_SHIM_IOF_COMPLETE_AT_END, at the end, when
 *                     the host has taken every byte and the end.
 *
 * "Taken" is what the server acknowledges: a tool's success means the
 * server's host accepted the data, not that it was written to a socket.  A
 * server that predates acknowledgements gives only the latter.
 *
 * While the server holds this tool suspended (XOFF), nothing new is read or
 * written: the descriptor's read is un-armed and queued buffers wait; the
 * chunk already being written is finished.  PMIx_server_IOF_flow_control
 * called in a tool suspends its descriptor reads the same way.  Pushes are
 * applied in call order.  Completion: cbfunc(PMIX_SUCCESS) / blocking
 * return PMIX_OPERATION_SUCCEEDED; PMIX_ERR_IOF_FAILURE if the connection
 * was lost before the server confirmed everything or the server refused
 * the data (the error log names how many bytes its host took); a server
 * host's own refusal status in the server role.  Other returns, in this
 * order of checks: PMIX_ERR_INIT, PMIX_ERR_NOT_AVAILABLE,
 * PMIX_ERR_WOULD_BLOCK, PMIX_ERR_BAD_PARAM, PMIX_ERR_NOMEM; in the server
 * role a host without push_stdin completes with PMIX_ERR_NOT_SUPPORTED. */
PMIXSHIM_EXPORT pmix_status_t PMIx_IOF_push(const pmix_proc_t targets[], size_t ntargets,
                                            pmix_byte_object_t *bo,
                                            const pmix_info_t directives[], size_t ndirs,
                                            pmix_op_cbfunc_t cbfunc, void *cbdata);

#ifdef __cplusplus
}
#endif

#endif
