// A unit's end of dartrun's job channel (DART_JOB_CHANNEL,
// "tcp:A1,A2,...:PORT"; the protocol is in pmix_shim/tools/dartrun/channel.hpp):
// how units that run on another host than dartrun still reach it, for the
// stdin rendezvous, their exit codes and their host's clean-up.
#pragma once

#include <string>
#include <vector>

#include <netinet/in.h>

namespace dart {

// The addresses of a "tcp:A1,A2,...:PORT" spec, in order; false when the
// spec is malformed.
bool parse_channel_spec(const std::string& spec, std::vector<sockaddr_in>* out);

// Connects to the first address of `spec` that answers within `per_address_ms`;
// the (blocking) socket, or -1. `local` gets this end's address.
int dial_channel(const std::string& spec, int per_address_ms, std::string* local = nullptr);

// Sends `line` (which ends in a newline) and waits up to `timeout_ms` for
// dartrun's "ok". True when dartrun said it.
bool send_and_await_ok(int fd, const std::string& line, int timeout_ms);

}  // namespace dart
