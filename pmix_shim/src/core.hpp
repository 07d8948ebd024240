// Library state of the PMIx shim.  Everything in Core is owned by the
// progress thread: only code running there (requests posted through the
// Engine, event callbacks) may touch it.
#pragma once

#include <pmix_server.h>
#include <pmix_tool.h>

#include <atomic>
#include <cstdint>
#include <deque>
#include <future>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine.hpp"
#include "wire.hpp"

namespace pmixshim {

// Counters behind pmixshim_get_iof_stats: written on the progress thread,
// read anywhere.
struct Stats {
  std::atomic<uint64_t> xoff{0}, xon{0}, xon_on_close{0}, xoff_sent{0}, xon_sent{0};
  std::atomic<uint64_t> streams_opened{0}, streams_closed{0}, bytes_delivered{0}, chunks_delivered{0};
  std::atomic<uint64_t> peers_refused{0}, peers_malformed{0}, legacy_peers{0};
  std::atomic<uint64_t> xoff_received{0}, xon_received{0}, bytes_pushed{0}, bytes_acked{0}, relayed_xoff{0},
      relayed_xon{0};
  std::atomic<uint32_t> engine_running{0};
  void reset();
};
extern Stats g_stats;

// How a finished operation is reported: the caller's cbfunc (non-blocking
// form) or the promise a blocked caller waits on.
struct Completion {
  pmix_op_cbfunc_t fn = nullptr;
  void *cbdata = nullptr;
  std::shared_ptr<std::promise<pmix_status_t>> waiter;
  // Reports st (PMIX_SUCCESS or an error) exactly once.  A blocked caller
  // sees PMIX_OPERATION_SUCCEEDED for success.
  void finish(pmix_status_t st);
  [[nodiscard]] bool empty() const { return !fn && !waiter; }
};

// A descriptor this process reads itself (own stdin on the server; the
// tool's input).  Files that epoll refuses (regular files, /dev/null,
// /dev/zero: poll(2) calls them always readable) get a manually activated
// event instead of a read event; the rule is the same: armed only when a
// read is wanted.
struct Input {
  int fd = -1;
  int saved_flags = -1;
  bool pollable = true;
  bool armed = false;
  event *ev = nullptr;
  std::vector<unsigned char> buf;
  bool open(event_base *base, int fd_in, size_t chunk, event_callback_fn cb, void *arg);
  void arm(bool want);
  void retry();  // after EAGAIN on a file that cannot be polled
  void close();  // restores the descriptor's flags; never closes it
};

// One stream feeding the server: its own read of a descriptor, or a tool
// connection.
struct Producer {
  uint64_t id = 0;
  bool own = false;
  pmix_proc_t source{};
  std::vector<pmix_proc_t> targets;
  bool flow = true;        // flow-control capable (own reads always are)
  bool ack = false;        // the tool asked for ACK frames
  uint64_t accepted = 0;   // DATA bytes the host has taken from this stream
  size_t inflight = 0;     // bytes of the chunk now with the host
  bool host_off = false;   // suspended by the host (API or XOFF status)
  bool relay_off = false;  // suspended because our own server suspended us
  bool pending = false;    // a chunk is with the host
  bool eof_in_flight = false;
  bool ended = false;  // end of stream delivered (or being delivered)
  bool close_when_done = false;
  // Closed: its events and descriptor are released and it is out of the
  // server's table, but the object lives until the current callback has
  // unwound (ServerState::retired), so a caller further up the stack that
  // still holds a reference reads this flag instead of freed memory.
  bool closed = false;
  [[nodiscard]] bool suspended() const { return flow && (host_off || relay_off); }

  // own read
  Input in;
  Completion done;

  // tool connection
  int fd = -1;
  event *rev = nullptr;
  event *wev = nullptr;
  bool read_armed = false;
  bool hello = false;
  event *hello_timer = nullptr;  // drops a peer that never completes its handshake
  std::vector<unsigned char> rx;
  size_t rx_off = 0, rx_len = 0;
  std::string tx;
  size_t tx_off = 0;
  bool close_after_tx = false;
};

struct ServerState {
  pmix_server_module_t module{};
  pmix_proc_t me{};
  std::string secret;
  int listen_fd = -1;
  bool listen_unix = false;
  event *accept_ev = nullptr;
  std::string unix_path, unix_dir;
  bool upstream_off = false;  // our tool side is suspended: relay to new producers too
  std::map<uint64_t, std::unique_ptr<Producer>> producers;
  // Producers closed during the current callback.  Any step of delivery
  // (an XON that pumps buffered frames, a host that refuses a chunk at
  // once, finalize resuming a producer) can close the producer a caller
  // is still working on; freeing it then would leave that caller with a
  // dangling reference.  They are freed by `reaper`, an event activated
  // on the first close, which libevent runs only after the callback that
  // closed them has returned.
  std::vector<std::unique_ptr<Producer>> retired;
  event *reaper = nullptr;
};

struct PushReq {
  enum class Kind { buffer, end, input } kind = Kind::buffer;
  std::vector<pmix_proc_t> targets;
  const char *data = nullptr;
  size_t size = 0, off = 0;
  Input in;
  bool eof_seen = false;
  bool end_sent = false;
  // Written, waiting for the server's ACK: complete once the host has
  // taken every DATA byte up to end_offset (and the END, if it sent one).
  uint64_t end_offset = 0;
  bool await_end = false;
  Completion done;
};

struct ToolState {
  int fd = -1;
  event *rev = nullptr;
  event *wev = nullptr;
  bool connected = false;
  // Why the connection ended: PMIX_ERR_IOF_COMPLETE when the server said
  // its host takes no more (the job is done with its stdin), else a
  // failure. Pushes posted after the end complete with it.
  pmix_status_t end_status = PMIX_ERR_IOF_FAILURE;
  bool flow = true;
  bool server_flow = true;
  bool suspended = false;
  bool server_ack = false;  // the server sends ACK frames
  bool local_off = false;   // PMIx_server_IOF_flow_control on this tool: its own reads stop
  pmix_proc_t me{};
  std::deque<std::unique_ptr<PushReq>> queue;
  std::deque<std::unique_ptr<PushReq>> awaiting;  // written, not yet acknowledged
  uint64_t pushed = 0;      // DATA bytes whose frames were started
  uint64_t acked = 0;       // DATA bytes the server's host has taken
  bool end_acked = false;
  bool targets_sent = false;
  std::vector<pmix_proc_t> sent_targets;
  // The frame being written: control bytes (header, small payload) then
  // an optional external payload (a caller's buffer or an Input's chunk).
  std::vector<unsigned char> txc;
  const char *txp = nullptr;
  size_t txp_len = 0;
  size_t tx_done = 0;
  bool tx_active = false;
  bool in_pump = false;
  unsigned char rx[64];  // control frames only: the largest is an ACK
  size_t rx_len = 0;
};

struct Core {
  std::unique_ptr<ServerState> server;
  std::unique_ptr<ToolState> tool;
};

}  // namespace pmixshim
