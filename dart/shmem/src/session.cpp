// OpenSHMEM 1.6 sessions: shmem_ctx_session_start and _stop.
//
// A session is a hint and changes no completion or ordering. On a context
// DART already defers everything it can to the context's quiet: small
// puts and atomics through MPI are staged and issued without a flush,
// node mates' are stores; nothing per operation is left to batch. What a
// SHMEM_CTX_SESSION_BATCH session adds is where the batch's completion
// happens: its stop completes, once, what the context issued through MPI
// during the session (dart_ctx_quiet), so the batch leaves the network
// while the program goes on to compute (the specification asks programs
// to stop a session before a long computation), and the staging memory it
// held is released there instead of at some later quiet. A session
// without the batch option only records its hints. total_ops is kept and
// has no effect: DART's stage grows as the batch needs.
#include "internal.hpp"

using namespace dshmem;

namespace {

// A context that may carry a session: SHMEM_CTX_INVALID is no action (the
// specification says so), anything else must be a live context.
bool session_ctx(const char* call, shmem_ctx_t ctx) {
  if (ctx == SHMEM_CTX_INVALID) return false;
  if (!require_init(call)) return false;
  return valid_ctx(call, ctx);
}

}  // namespace

extern "C" {

void shmem_ctx_session_start(shmem_ctx_t ctx, long options, const shmem_ctx_session_config_t* config,
                             long config_mask) {
  constexpr const char* call = "shmem_ctx_session_start";
  if (!session_ctx(call, ctx)) return;
  if (options & ~SHMEM_CTX_SESSION_BATCH)
    return fail(call, SHMEMX_ERR_ARG, "unknown session options " + std::to_string(options));
  if (config_mask & ~SHMEM_CTX_SESSION_TOTAL_OPS)
    return fail(call, SHMEMX_ERR_ARG, "unknown configuration mask " + std::to_string(config_mask));
  if (config_mask && !config) return fail(call, SHMEMX_ERR_ARG, "config is NULL with a nonzero config_mask");
  // A second start adds its options to the first, and the fields it
  // names replace the earlier values.
  if (!ctx->in_session) {
    ctx->session_options = 0;
    ctx->session_total_ops = SIZE_MAX;
  }
  ctx->in_session = true;
  ctx->session_options |= options;
  if (config_mask & SHMEM_CTX_SESSION_TOTAL_OPS) ctx->session_total_ops = config->total_ops;
}

void shmem_ctx_session_stop(shmem_ctx_t ctx) {
  constexpr const char* call = "shmem_ctx_session_stop";
  if (!session_ctx(call, ctx)) return;
  if (!ctx->in_session) return;
  const bool batch = ctx->session_options & SHMEM_CTX_SESSION_BATCH;
  ctx->in_session = false;
  ctx->session_options = 0;
  ctx->session_total_ops = SIZE_MAX;
  if (batch) quiet(call, ctx);
}

}  // extern "C"
