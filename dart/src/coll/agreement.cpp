// The agreement packet's MPI side (agreement.hpp): its type and
// operation, and combining it over a team.
#include "coll/agreement.hpp"

#include "coll/reduction.hpp"
#include "coll/types.hpp"
#include "core/activity.hpp"
#include "core/runtime.hpp"
#include "team/team.hpp"

#include <mpi.h>

namespace dart::coll {

namespace {

// Header fields of a fused reduction.
Kind kind_of(const std::uint64_t* w) { return static_cast<Kind>(w[1] & 0xff); }
bool reduces_payload(const std::uint64_t* w) { return ((w[1] >> 40) & 1) != 0; }
dart_operation_t op_of(const std::uint64_t* w) { return static_cast<dart_operation_t>(w[1] >> 48); }

// The MPI operation on packets (one MPI element is a whole packet, so MPI
// never splits one). Commutative: OR is, and so are the predefined
// operations a fused reduction applies.
void combine_packets(void* invec, void* inoutvec, int* len, MPI_Datatype*) {
  for (int k = 0; k < *len; ++k) {
    const auto* a = static_cast<const std::uint64_t*>(invec) + static_cast<std::size_t>(k) * kPacketWords;
    auto* b = static_cast<std::uint64_t*>(inoutvec) + static_cast<std::size_t>(k) * kPacketWords;
    const bool same = std::memcmp(a, b, kHeaderWords * sizeof(std::uint64_t)) == 0;
    if (same && b[0] == 0 && reduces_payload(b) && (kind_of(b) == Kind::Allreduce || kind_of(b) == Kind::Reduce)) {
      const auto t = static_cast<dart_datatype_t>(b[5]);
      const std::size_t n = static_cast<std::size_t>(b[3]);
      if (is_basic_type(t) && n * basic_type_size(t) <= kPayloadBytes)
        combine_payload(t, op_of(b), reinterpret_cast<const unsigned char*>(a + kHeaderWords),
                        reinterpret_cast<unsigned char*>(b + kHeaderWords), n);
      continue;
    }
    for (std::size_t i = 0; i < kPacketWords; ++i) b[i] |= a[i];
  }
}

// The packet's MPI type and operation, made on first use and freed when
// MPI is finalised (delete callback of an attribute on MPI_COMM_SELF).
struct PacketMpi {
  MPI_Datatype type = MPI_DATATYPE_NULL;
  MPI_Op op = MPI_OP_NULL;
};

int free_packet_mpi(MPI_Comm, int, void* attr, void*) {
  auto* p = static_cast<PacketMpi*>(attr);
  if (p->type != MPI_DATATYPE_NULL) MPI_Type_free(&p->type);
  if (p->op != MPI_OP_NULL) MPI_Op_free(&p->op);
  return MPI_SUCCESS;
}

const PacketMpi& packet_mpi() {
  static PacketMpi* made = [] {
    auto* p = new PacketMpi;  // lives until the process ends; its MPI objects until MPI_Finalize
    mpi_check(MPI_Type_contiguous(static_cast<int>(kPacketWords), MPI_UINT64_T, &p->type), "MPI_Type_contiguous");
    mpi_check(MPI_Type_commit(&p->type), "MPI_Type_commit");
    mpi_check(MPI_Op_create(&combine_packets, 1, &p->op), "MPI_Op_create");
    int key = MPI_KEYVAL_INVALID;
    mpi_check(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, &free_packet_mpi, &key, nullptr), "MPI_Comm_create_keyval");
    mpi_check(MPI_Comm_set_attr(MPI_COMM_SELF, key, p), "MPI_Comm_set_attr");
    return p;
  }();
  return *made;
}

}  // namespace

bool checks_on(const Team& team) { return team.size() > 1 && rt().config().collective_checks; }

void allreduce_packet(Team& team, Packet& pk) {
  const PacketMpi& m = packet_mpi();
  NodeSync* hs = node_step_sync(team);
  if (!hs) {
    activity::InMpi in_mpi;
    mpi_check(MPI_Allreduce(MPI_IN_PLACE, pk.w, 1, m.type, m.op, team.comm()), "MPI_Allreduce");
    return;
  }
  constexpr std::size_t kBytes = sizeof pk.w;
  std::memcpy(hs->out(kBytes), pk.w, kBytes);
  (void)hs->meet(Call::NodeStep, Fingerprint{}, true);
  if (hs->leaders() != MPI_COMM_NULL) {
    std::uint64_t node[kPacketWords];
    std::memcpy(node, hs->in(0, kBytes), kBytes);
    for (int i = 1; i < hs->size(); ++i) {
      std::uint64_t other[kPacketWords];
      std::memcpy(other, hs->in(i, kBytes), kBytes);
      int one = 1;
      combine_packets(other, node, &one, nullptr);
    }
    activity::InMpi in_mpi;
    mpi_check(MPI_Allreduce(MPI_IN_PLACE, node, 1, m.type, m.op, hs->leaders()), "MPI_Allreduce");
    std::memcpy(hs->out(kBytes), node, kBytes);
  }
  (void)hs->meet(Call::NodeStep, Fingerprint{}, true);
  std::memcpy(pk.w, hs->in(0, kBytes), kBytes);  // node rank 0 speaks for the node
}

}  // namespace dart::coll
