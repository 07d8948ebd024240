// Two-sided messages of dart_communication.h: dart_send, dart_recv and
// dart_sendrecv. They take global unit ids and run on DART_TEAM_ALL's
// p2p_comm(), a communicator that carries nothing but the users' messages,
// so no user tag can ever match a message of the runtime or vice versa.
// Counts are capped at INT_MAX elements by the spec; types are basic or
// custom (coll/elements.hpp), as for the collectives.
#include <dash/dart/if/dart_communication.h>

#include "coll/elements.hpp"
#include "coll/types.hpp"
#include "core/error.hpp"
#include "core/runtime.hpp"

#include <climits>
#include <string>

using namespace dart;
using namespace dart::coll;

namespace {

// DART_TEAM_ALL's message communicator; its ranks are global unit ids.
MPI_Comm message_comm() { return rt().world().p2p_comm(); }

int peer_of(dart_global_unit_t unit) {
  const int size = rt().size();
  if (unit.id < 0 || unit.id >= size)
    invalid("unit " + std::to_string(unit.id) + " is outside [0, " + std::to_string(size) + ")");
  return unit.id;
}

void check_tag(int tag) {
  if (tag < 0) invalid("tag " + std::to_string(tag) + " is negative (there are no wildcards)");
  // MPI_TAG_UB is attached to MPI_COMM_WORLD (not necessarily to duplicates).
  int* ub = nullptr;
  int flag = 0;
  mpi_check(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag), "MPI_Comm_get_attr");
  if (flag && ub && tag > *ub) invalid("tag " + std::to_string(tag) + " exceeds MPI_TAG_UB " + std::to_string(*ub));
}

int message_count(std::size_t nelem) {
  if (nelem > static_cast<std::size_t>(INT_MAX))
    invalid("two-sided messages carry at most INT_MAX elements, not " + std::to_string(nelem));
  return static_cast<int>(nelem);
}

// A message longer than the receive buffer is the caller's error.
void check_receive(int rc, const char* call) {
  if (rc == MPI_SUCCESS) return;
  int cls = MPI_SUCCESS;
  MPI_Error_class(rc, &cls);
  if (cls == MPI_ERR_TRUNCATE) invalid("the message is longer than the receive buffer");
  mpi_check(rc, call);
}

struct Message {
  int count;
  Elem elem;
  int tag;
  int peer;
};

Message message(const void* buf, std::size_t nelem, dart_datatype_t dtype, int tag, dart_global_unit_t unit,
                const char* what) {
  Message m{message_count(nelem), elem_of(dtype), tag, peer_of(unit)};
  check_tag(tag);
  require_buf(buf, nelem, checked_bytes(nelem, m.elem.bytes), what);
  return m;
}

}  // namespace

extern "C" {

dart_ret_t dart_send(const void* sendbuf, size_t nelem, dart_datatype_t dtype, int tag, dart_global_unit_t unit) {
  return entry("dart_send", [&] {
    const Message m = message(sendbuf, nelem, dtype, tag, unit, "sendbuf");
    activity::InMpi in_mpi;
    mpi_check(MPI_Send(sendbuf, m.count, m.elem.type, m.peer, m.tag, message_comm()), "MPI_Send");
  });
}

dart_ret_t dart_recv(void* recvbuf, size_t nelem, dart_datatype_t dtype, int tag, dart_global_unit_t unit) {
  return entry("dart_recv", [&] {
    const Message m = message(recvbuf, nelem, dtype, tag, unit, "recvbuf");
    activity::InMpi in_mpi;
    check_receive(MPI_Recv(recvbuf, m.count, m.elem.type, m.peer, m.tag, message_comm(), MPI_STATUS_IGNORE),
                  "MPI_Recv");
  });
}

dart_ret_t dart_sendrecv(const void* sendbuf, size_t send_nelem, dart_datatype_t send_dtype, int send_tag,
                         dart_global_unit_t dest, void* recvbuf, size_t recv_nelem, dart_datatype_t recv_dtype,
                         int recv_tag, dart_global_unit_t src) {
  return entry("dart_sendrecv", [&] {
    const Message out = message(sendbuf, send_nelem, send_dtype, send_tag, dest, "sendbuf");
    const Message in = message(recvbuf, recv_nelem, recv_dtype, recv_tag, src, "recvbuf");
    activity::InMpi in_mpi;
    check_receive(MPI_Sendrecv(sendbuf, out.count, out.elem.type, out.peer, out.tag, recvbuf, in.count, in.elem.type,
                               in.peer, in.tag, message_comm(), MPI_STATUS_IGNORE),
                  "MPI_Sendrecv");
  });
}

}  // extern "C"
