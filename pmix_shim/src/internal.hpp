// Functions shared by the parts of the shim (server.cpp, tool.cpp, api.cpp).
// Unless noted, they run on the progress thread.
#pragma once

#include <functional>
#include <memory>

#include "core.hpp"

namespace pmixshim {

// The state owned by the progress thread.
Core &core();
// The running engine's event base (progress thread only).
event_base *engine_base();
// Posts fn to the running engine from any thread; false if there is none
// or it stopped accepting.
bool post_to_engine(std::function<void()> fn);

// server.cpp
void srv_install(std::unique_ptr<ServerState> s);
void srv_teardown();
// Reads fd on this process's behalf.  done is finished once the read is
// set up, or (at_end) at the end of the stream.
pmix_status_t srv_read_stdin(int fd, size_t chunk, std::vector<pmix_proc_t> targets, Completion done, bool at_end);
// Hands one buffer (size 0: the end of the stream) to the host as this
// server's own stdin; done is finished when the host has taken it.
void srv_push_data(const std::vector<pmix_proc_t> &targets, const char *data, size_t size, Completion done);
bool srv_matches(const pmix_proc_t &src, const pmix_proc_t *sel);
void srv_flow_control(const pmix_proc_t *source, bool xoff);
void srv_relay(bool xoff);

// tool.cpp
void tool_install(std::unique_ptr<ToolState> t);
void tool_teardown();
void tool_push(std::unique_ptr<PushReq> r, bool at_end);
// PMIx_server_IOF_flow_control on a tool: suspends or resumes the tool's
// own reads of a descriptor when source selects the tool.
void tool_flow_control(const pmix_proc_t *source, bool xoff);
// Any thread: connects and completes the handshake synchronously.
pmix_status_t tool_connect(const std::string &uri, const std::string &secret, const pmix_proc_t &me, bool flow,
                           unsigned timeout_ms, int *fd_out, bool *server_flow, bool *server_ack);

}  // namespace pmixshim
