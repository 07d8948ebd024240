/*
 * pmix_server.h -- the server side of the PMIx IOF shim.
 *
 * A host (resource manager, launcher daemon, or the DART runtime) starts the
 * server with PMIx_server_init and a module whose push_stdin upcall receives
 * every chunk of stdin the library collects: from descriptors it reads on the
 * process's own behalf (pmixshim_server_read_stdin) and from tools that
 * connect and push (pmix_tool.h).  PMIx_server_IOF_flow_control suspends and
 * resumes those producers at their source.
 */
#ifndef PMIX_SHIM_SERVER_H
#define PMIX_SHIM_SERVER_H

#include "pmix_common.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PMIx_server_init pmixshim_server_init
#define PMIx_server_finalize pmixshim_server_finalize
#define PMIx_server_IOF_flow_control pmixshim_server_IOF_flow_control

/* push_stdin upcall: the library hands the host one chunk of stdin.
 *
 *   source      the producer (a tool's identity, or this server's own for
 *               descriptors it reads itself)
 *   targets     the recipients the producer named (may be empty: the host
 *               decides)
 *   directives  PMIX_SHIM_IOF_ABNORMAL_END on an abnormal end of stream
 *   bo          the bytes; bo->size == 0 means end of this source's stream
 *
 * bo->bytes stays valid until cbfunc is called; the library reads nothing
 * more from that producer until then (one chunk in flight per stream).
 * Complete it by calling cbfunc(status, cbdata) exactly once, from any
 * thread, or by returning a status other than PMIX_SUCCESS:
 *   PMIX_SUCCESS (via cbfunc) / PMIX_OPERATION_SUCCEEDED (returned): taken;
 *   PMIX_ERR_IOF_XOFF (either way): taken, and suspend this stream exactly as
 *     PMIx_server_IOF_flow_control(source, PMIX_FWD_STDIN_CHANNEL, true)
 *     would; no error reaches the producer; only that function resumes it;
 *   any other error: not taken; the stream is closed and its producer sees
 *     PMIX_ERR_IOF_FAILURE.
 * The upcall runs on the progress thread: blocking PMIx calls made from it
 * (or from cbfunc when called there) return PMIX_ERR_WOULD_BLOCK. */
typedef pmix_status_t (*pmix_server_stdin_fn_t)(const pmix_proc_t *source,
                                                const pmix_proc_t targets[], size_t ntargets,
                                                const pmix_info_t directives[], size_t ndirs,
                                                const pmix_byte_object_t *bo,
                                                pmix_op_cbfunc_t cbfunc, void *cbdata);

/* The host module.  Only push_stdin is used by the shim; a NULL push_stdin
 * makes the library discard stdin (and never suspend). */
typedef struct pmix_server_module {
    pmix_server_stdin_fn_t push_stdin;
} pmix_server_module_t;

/* Start the server: progress thread (shared with the tool side if that is
 * active) and the listening socket.  info: PMIX_SERVER_NSPACE,
 * PMIX_SERVER_RANK, PMIX_SHIM_LISTEN, PMIX_SHIM_SECRET.
 * Returns PMIX_SUCCESS, PMIX_ERR_INIT if already initialised, PMIX_ERR_BAD_PARAM,
 * PMIX_ERR_WOULD_BLOCK (called on the progress thread), or the reason the
 * socket could not be set up.  Not collective. */
PMIXSHIM_EXPORT pmix_status_t PMIx_server_init(pmix_server_module_t *module, pmix_info_t info[],
                                               size_t ninfo);

/* Stop the server: every suspended producer still connected is sent XON and
 * every suspended own read counted resumed (so XOFF and XON counts match),
 * connections and the socket are closed, descriptors read on the process's
 * behalf get their original flags back, the progress thread is stopped and
 * joined (unless the tool side still uses it).  Pending operations complete
 * first.  Returns PMIX_SUCCESS, PMIX_ERR_INIT, or PMIX_ERR_WOULD_BLOCK when
 * called on the progress thread (nothing is done). */
PMIXSHIM_EXPORT pmix_status_t PMIx_server_finalize(void);

/* Suspend (xoff) or resume (!xoff) the processes feeding stdin to this
 * server, as specified by the seed man page (PMIx_server_IOF_flow_control).
 *
 *   source   NULL: every producer.  Otherwise producers are selected as
 *            PMIx compares process names: an empty nspace matches every
 *            nspace, PMIX_RANK_WILDCARD every rank, so {ns, WILDCARD} is
 *            every producer of ns (none: no-op).  In a tool, its own reads
 *            of a descriptor (PMIx_IOF_push with PMIX_IOF_PUSH_STDIN) are
 *            the producer, with the tool's identity.
 *   channel  must include PMIX_FWD_STDIN_CHANNEL.
 *   cbfunc   non-NULL: non-blocking; returns PMIX_SUCCESS and calls cbfunc
 *            on the progress thread once the request has been applied.
 *            NULL: blocking; returns PMIX_OPERATION_SUCCEEDED once applied.
 *
 * Applied means: own reads are un-armed/re-armed, and every
 * flow-control-capable tool has been sent XOFF/XON (which it obeys by
 * un-arming its own read; a relay passes it to its producers).  Producers
 * that announced no flow-control capability are never sent anything.  An
 * XOFF holds a stream until an XON; XON of a never-suspended stream is a
 * no-op.  It applies to the producers there are when it is applied: one
 * that connects later starts running (OpenPMIx's rule), so a host that
 * wants it held answers its first chunk with PMIX_ERR_IOF_XOFF.
 *
 * Returns, in this order of checks: PMIX_ERR_INIT (neither a server nor a
 * tool is initialised), PMIX_ERR_NOT_AVAILABLE (progress engine stopped or
 * stopping), PMIX_ERR_NOT_SUPPORTED (channel lacks stdin),
 * PMIX_ERR_BAD_PARAM (ndirs > 0 with NULL directives), PMIX_ERR_NOMEM,
 * PMIX_ERR_WOULD_BLOCK (blocking form on the progress thread: nothing done,
 * no callback); else PMIX_SUCCESS (non-blocking) or
 * PMIX_OPERATION_SUCCEEDED (blocking, applied).  directives must stay valid
 * until cbfunc runs. */
PMIXSHIM_EXPORT pmix_status_t PMIx_server_IOF_flow_control(const pmix_proc_t *source,
                                                           pmix_iof_channel_t channel, bool xoff,
                                                           const pmix_info_t directives[],
                                                           size_t ndirs, pmix_op_cbfunc_t cbfunc,
                                                           void *cbdata);

/* Shim extension: read descriptor fd (usually 0) on this process's own
 * behalf and hand each chunk to push_stdin with this server's identity as
 * source.  The descriptor is switched to non-blocking (its flags are
 * restored at the end) and is not closed.  Regular files are read too.
 * The read is armed only while the stream is not suspended and the host has
 * completed the previous chunk.  Completion (cbfunc, or the return of the
 * blocking form) comes at the end of the stream: PMIX_SUCCESS/
 * PMIX_OPERATION_SUCCEEDED at EOF, PMIX_ERR_IOF_FAILURE on a read error or
 * a refused chunk, PMIX_ERR_NOT_AVAILABLE when the server finalized first.
 * directives: PMIX_SHIM_CHUNK_SIZE.  Same error returns as above, plus
 * PMIX_ERR_EXISTS when fd is already being read. */
PMIXSHIM_EXPORT pmix_status_t pmixshim_server_read_stdin(int fd, const pmix_info_t directives[],
                                                         size_t ndirs, pmix_op_cbfunc_t cbfunc,
                                                         void *cbdata);

/* Shim extension: where tools reach this server.  Copies the URI
 * ("unix:/path" or "tcp:HOST:PORT") and the secret, NUL-terminated.
 * Returns PMIX_SUCCESS, PMIX_ERR_INIT, PMIX_ERR_NOT_AVAILABLE (listening
 * disabled), PMIX_ERR_BAD_PARAM (buffer too small).  Non-blocking. */
PMIXSHIM_EXPORT pmix_status_t pmixshim_server_contact(char *uri, size_t urilen, char *secret,
                                                      size_t secretlen);

/* Shim extension: counters for tests and diagnostics.  Cumulative since the
 * last start of the progress engine; readable from any thread at any time
 * (also after finalize), never blocks. */
typedef struct pmixshim_iof_stats {
    /* server side: stream transitions running -> suspended and back.  Own
     * reads and tool streams alike; a stream counts once however many
     * reasons (host, upstream relay) hold it. */
    uint64_t xoff;
    uint64_t xon;
    /* the part of xon released because the stream ended while suspended
     * (producer died, server finalized) rather than by an XON request */
    uint64_t xon_on_close;
    uint64_t xoff_sent;          /* XOFF frames sent to tools */
    uint64_t xon_sent;           /* XON frames sent to tools */
    uint64_t streams_opened;     /* own reads + accepted tools */
    uint64_t streams_closed;
    uint64_t bytes_delivered;    /* bytes handed to push_stdin */
    uint64_t chunks_delivered;
    uint64_t peers_refused;      /* failed authentication or handshake */
    uint64_t peers_malformed;    /* connections closed for a malformed message */
    uint64_t legacy_peers;       /* tools without flow control */
    /* tool side */
    uint64_t xoff_received;
    uint64_t xon_received;
    uint64_t bytes_pushed;
    uint64_t bytes_acked;        /* of those, taken by the server's host */
    /* relays: flow-control requests this process passed to its own
     * producers because its upstream server asked */
    uint64_t relayed_xoff;
    uint64_t relayed_xon;
    /* 1 while the progress engine accepts requests */
    uint32_t engine_running;
} pmixshim_iof_stats_t;

/* Copies the counters above into *stats; a NULL stats does nothing. Any
 * thread, any time. */
PMIXSHIM_EXPORT void pmixshim_get_iof_stats(pmixshim_iof_stats_t *stats);

#ifdef __cplusplus
}
#endif

#endif
