// Unit 0's side of dartrun's TCP rendezvous (docs/stdin.md "stdin path and
// dartrun"). dartrun listens on TCP and names its addresses and port in
// DART_STDIN_RENDEZVOUS ("tcp:A1,A2,...:PORT"); unit 0 connects to the first
// that answers, starts its stdin server on the local address of that
// connection (an address dartrun can reach, wherever the launcher placed
// unit 0), and tells dartrun the server's URI together with the job's
// secret. dartrun then connects to the server as a shim tool.
#pragma once

#include <string>

namespace dart {

class StdinRendezvous {
 public:
  StdinRendezvous() = default;
  StdinRendezvous(const StdinRendezvous&) = delete;
  StdinRendezvous& operator=(const StdinRendezvous&) = delete;
  ~StdinRendezvous();

  // Connects to the first reachable address of `spec`; false (logged) when
  // the spec is malformed or no address answers.
  bool connect(const char* spec);
  // This end's address of the connection: where to listen for dartrun.
  const std::string& local_address() const { return local_; }
  // Sends the hello line (secret and the server's URI) and closes.
  bool announce(const std::string& secret, const std::string& uri);

 private:
  int fd_ = -1;
  std::string local_;
};

}  // namespace dart
