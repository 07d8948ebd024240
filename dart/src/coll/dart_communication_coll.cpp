// Collectives (dart_barrier, dart_bcast ... dart_reduce) of
// dart_communication.h; its two-sided messages are in
// dart_communication_p2p.cpp, the element helpers both share in elements.hpp.
//
// Collectives run on the team's communicator, Team::comm(), with roots and
// block positions in team order, which is that communicator's rank order.
//
// Types. Collectives and messages take contiguous types (basic or custom);
// a custom type is one MPI element of its size (a contiguous run of bytes)
// so that counts stay in DART elements and MPI hands a user reduction
// whole elements. dart_alltoall accepts custom types too, although DASH
// takes only basic ones (the spec allows the superset).
//
// Counts. DART counts are size_t, MPI-3 counts int (Open MPI 4.1 has no
// MPI-4 large-count calls). Every collective is cut into pieces by one
// function, for_each_piece, small enough that no MPI call moves more than
// INT_MAX bytes in total, which also keeps us off the large-message paths
// of MPI libraries. A piece of per-unit blocks (scatter, gather, allgather,
// alltoall) is one element of a resized type whose extent is the whole
// block, so piece k of every unit's block travels in one call. allgatherv,
// whose per-unit counts and displacements can exceed int independently,
// falls back to one (cut) broadcast per member when its receive buffer
// spans more than INT_MAX bytes. So every call supports any count; the
// exceptions are two-sided messages, capped at INT_MAX elements by the spec.
//
// Teams on one node. A team whose members share a node (and
// DART_SHARED_MEMORY=1) does not use the agreement packet below: each call
// is a meeting in shared memory (coll/node_sync.hpp, "collectives of a team
// on one node" below) that carries the same checks and the data. Teams across nodes combine the packet hierarchically
// where their units share nodes (allreduce_packet).
//
// Bad arguments. With DART_COLLECTIVE_CHECKS=1 (Config::collective_checks,
// the default) every collective but dart_barrier on a team of two or more
// members starts with one MPI_Allreduce of a 128-byte Packet (see
// "agreement" below): each member's validity flag and a fingerprint of
// what must match (collective, root, counts, type, operation; a hash of
// allgatherv's counts), combined by OR. A member whose arguments were bad
// returns DART_ERR_INVAL with its own reason; every other member returns
// DART_ERR_INVAL with "another member passed invalid arguments"; arguments
// that are valid but differ between members fail on all of them too. The
// packet's 64-byte payload carries calls that small (bcast, scatter,
// gather, allgather(v), alltoall by OR of disjoint slots; reductions of
// basic types with predefined operations by the operation itself), so for
// them the agreement is the whole collective: one MPI call, as without
// checks. Larger calls pay one small allreduce more (a few µs on a shared
// node; measured by tests/perf/bench_collectives.cpp). A non-member or a
// unit that does not know the team cannot take part and fails alone.
// DART_COLLECTIVE_CHECKS=0 calls MPI directly: then a mistake only one unit
// can see makes that unit return DART_ERR_INVAL without entering MPI while
// the others wait in the collective, as in MPI. Nothing crashes: every
// pointer is checked before MPI sees it.
#include <dash/dart/if/dart_communication.h>

#include "abort.hpp"
#include "coll/elements.hpp"
#include "coll/node_sync.hpp"
#include "coll/ops.hpp"
#include "coll/types.hpp"
#include "core/error.hpp"
#include "core/log.hpp"
#include "core/runtime.hpp"
#include "team/team.hpp"

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdint>
#include <cerrno>
#include <cstring>
#include <exception>
#include <new>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <sys/mman.h>
#include <unistd.h>

using namespace dart;
using namespace dart::coll;

namespace {

// ---- owners of the MPI objects a call creates -------------------------------------

using mpi::Datatype;
using mpi::Op;

Op create_op(MPI_User_function* fn, bool commute) {
  Op owned;
  mpi_check(MPI_Op_create(fn, commute ? 1 : 0, owned.out()), "MPI_Op_create");
  return owned;
}

// ---- pieces, buffers ------------------------------------------------------

// Elements per block that one MPI call may carry when it moves `blocks`
// blocks (one per member for scatter, gather, allgather and alltoall; one
// for broadcasts and reductions): the most for which every count and the
// call's byte total fit in an int, and at least one.
std::size_t piece_limit(const Elem& e, int blocks) {
  return std::max<std::size_t>(1, static_cast<std::size_t>(INT_MAX) / (e.bytes * static_cast<std::size_t>(blocks)));
}

// The one place counts are cut: fn(first, n) for consecutive pieces
// [first, first + n) that cover [0, count), with 0 < n <= limit <= INT_MAX.
// Every member computes the same pieces from the same count and limit.
template <class Fn>
void for_each_piece(std::size_t count, std::size_t limit, Fn&& fn) {
  for (std::size_t first = 0; first < count; first += limit)
    fn(first, static_cast<int>(std::min(limit, count - first)));
}

// Element `first` of a buffer; NULL stays NULL (buffers MPI ignores on
// this unit may be NULL). Offsets stay inside buffers whose byte size was
// checked for overflow.
char* at(void* buf, std::size_t first, const Elem& e) {
  return buf ? static_cast<char*>(buf) + first * e.bytes : nullptr;
}
const char* at(const void* buf, std::size_t first, const Elem& e) {
  return buf ? static_cast<const char*>(buf) + first * e.bytes : nullptr;
}

// Piece [first, first + n) of each of the consecutive per-member blocks of
// `block` elements in a buffer, as `count` elements of `type` starting at
// element `first`. A piece that is the whole block is n plain elements; a
// partial one is one element of a type holding its n elements, resized to
// the block's extent so that MPI finds member i's piece i blocks further on.
struct BlockPiece {
  int count = 0;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  Datatype owned;
};

BlockPiece block_piece(const Elem& e, std::size_t block, int n) {
  BlockPiece p;
  if (static_cast<std::size_t>(n) == block) {
    p.count = n;
    p.type = e.type;
    return p;
  }
  MPI_Datatype run = MPI_DATATYPE_NULL;
  MPI_Datatype resized = MPI_DATATYPE_NULL;
  mpi_check(MPI_Type_contiguous(n, e.type, &run), "MPI_Type_contiguous");
  const int rc = MPI_Type_create_resized(run, 0, static_cast<MPI_Aint>(block * e.bytes), &resized);
  MPI_Type_free(&run);
  mpi_check(rc, "MPI_Type_create_resized");
  p.owned = commit_type(resized);
  p.count = 1;
  p.type = p.owned.get();
  return p;
}

// A piece of this unit's own block: n plain elements.
BlockPiece plain_piece(const Elem& e, int n) {
  BlockPiece p;
  p.count = n;
  p.type = e.type;
  return p;
}

int root_of(const Team& team, dart_team_unit_t root) {
  if (root.id < 0 || root.id >= team.size())
    invalid("root " + std::to_string(root.id) + " is outside [0, " + std::to_string(team.size()) + ") of team " +
            std::to_string(team.id()));
  return root.id;
}

// Bytes of `blocks` blocks of `nelem` elements, checked for overflow.
std::size_t blocks_bytes(std::size_t nelem, int blocks, const Elem& e) {
  return checked_bytes(checked_bytes(nelem, static_cast<std::size_t>(blocks)), e.bytes);
}

// ---- agreement on the arguments ------------------------------------------------------
//
// With checks on (Config::collective_checks) and more than one member, a
// collective starts with one MPI_Allreduce of a Packet of fixed size: a
// header with this unit's validity and a fingerprint of what must match
// across the members, and a payload that carries the data of small calls,
// so that for them the agreement IS the collective (one MPI call, as
// without checks). Everything a member validates before it communicates
// is in the packet, so a bad argument on any member fails the call on all
// of them, and arguments that differ between members (root, counts, type,
// operation, even the collective called) fail it too, instead of hanging.

using Kind = Call;  // the fingerprint names the call as the node engine does

constexpr std::size_t kHeaderWords = 8;
constexpr std::size_t kPayloadBytes = 64;  // a 128-byte packet costs what an 8-byte allreduce does
constexpr std::size_t kPacketWords = kHeaderWords + kPayloadBytes / 8;

// Header: w[0] bit 0 = some member's arguments were invalid; w[1..6] = three
// fingerprint words f and their complements ~f, combined by OR: f | f' and
// ~f | ~f' share a set bit exactly when f != f' (as team creation does).
// fp0 = kind | (root + 1) << 8 | payload mode << 40 | operation << 48,
// fp1 = bytes (per block; reductions: elements), fp2 = type (reductions) or
// a hash of allgatherv's counts. The payload is combined by OR, except in a
// fused reduction, whose members all sent the same header (mode 1): then
// with the operation on the type named by the header.
struct alignas(16) Packet {
  std::uint64_t w[kPacketWords] = {};

  unsigned char* payload() noexcept { return reinterpret_cast<unsigned char*>(w + kHeaderWords); }
  void fingerprint(Kind kind, int root, bool reduce_payload, std::uint64_t op, std::uint64_t f1, std::uint64_t f2) {
    const std::uint64_t f0 = static_cast<std::uint64_t>(kind) | (static_cast<std::uint64_t>(root + 1) << 8) |
                             (static_cast<std::uint64_t>(reduce_payload ? 1 : 0) << 40) | (op << 48);
    const std::uint64_t f[3] = {f0, f1, f2};
    for (int i = 0; i < 3; ++i) {
      w[1 + 2 * i] = f[i];
      w[2 + 2 * i] = ~f[i];
    }
  }
  void mark_invalid() noexcept {
    std::memset(w, 0, sizeof w);
    w[0] = 1;
  }
};

constexpr std::uint64_t kUserOpCode = 0xffff;  // a dart_op_create operation in fp0

// Header fields of a fused reduction.
Kind kind_of(const std::uint64_t* w) { return static_cast<Kind>(w[1] & 0xff); }
bool reduces_payload(const std::uint64_t* w) { return ((w[1] >> 40) & 1) != 0; }
dart_operation_t op_of(const std::uint64_t* w) { return static_cast<dart_operation_t>(w[1] >> 48); }

// The fold loops compiled for the widest vector unit the CPU has, chosen
// once when the library is loaded (an ifunc): a default build targets the
// baseline x86-64 ISA, whose SSE2 adds two doubles at a time. On the
// root of a 1 MiB dart_reduce of doubles (2 units, AVX-512 CPU) the SSE2
// fold held 37% of the samples, where Open MPI's AVX-512 operation held
// 22% of MPI_Reduce's; the call as a whole gained 1-4% at 1 MiB and 3-9%
// at 64 KiB (the rest is reading the other's data and writing the
// result). Each element is still a op b on its own, so every clone gives
// the same bits. Not under the sanitizers: their instrumented ifunc
// resolver runs while the library is relocated, before their runtime is
// set up (a ThreadSanitizer build crashed at load).
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__) && \
    !defined(__SANITIZE_THREAD__)
// The loops below are inlined into each clone, which compiles them for its
// target.
#define DART_FOLD_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#define DART_FOLD_INLINE __attribute__((always_inline)) inline
#else
#define DART_FOLD_CLONES
#define DART_FOLD_INLINE inline
#endif

// One step of a predefined operation on n scalars of T, unaligned.
// Integer arithmetic wraps (as in MPI), so it runs in the unsigned type.
template <class T, bool = std::is_integral<T>::value>
struct Arith {
  using type = T;
};
template <class T>
struct Arith<T, true> {
  using type = unsigned long long;  // wraps; truncating the result is exact
};

// out = a op b element-wise over n scalars of T, a from `in` and b from
// `from` (unaligned; a fold calls it with b the running result, usually
// from == out). The operation is chosen once per call, not per element,
// so the loops vectorise.
template <class T, class F>
DART_FOLD_INLINE void combine_each(const unsigned char* in, const unsigned char* from, unsigned char* out,
                                   std::size_t n, F f) {
  // Element i reads in[i] and from[i] and writes out[i] only; each of
  // `in` and `from` is `out` or apart from it.
#pragma omp simd
  for (std::size_t i = 0; i < n; ++i) {
    T a, b;
    std::memcpy(&a, in + i * sizeof(T), sizeof(T));
    std::memcpy(&b, from + i * sizeof(T), sizeof(T));
    b = f(a, b);
    std::memcpy(out + i * sizeof(T), &b, sizeof(T));
  }
}

template <class T>
DART_FOLD_INLINE void combine_scalars(dart_operation_t op, const unsigned char* in, const unsigned char* from,
                                      unsigned char* io, std::size_t n) {
  using A = typename Arith<T>::type;
  switch (op) {
    case DART_OP_MIN: combine_each<T>(in, from, io, n, [](T a, T b) { return a < b ? a : b; }); return;
    case DART_OP_MAX: combine_each<T>(in, from, io, n, [](T a, T b) { return a > b ? a : b; }); return;
    case DART_OP_SUM:
      combine_each<T>(in, from, io, n, [](T a, T b) { return static_cast<T>(static_cast<A>(a) + static_cast<A>(b)); });
      return;
    case DART_OP_PROD:
      combine_each<T>(in, from, io, n, [](T a, T b) { return static_cast<T>(static_cast<A>(a) * static_cast<A>(b)); });
      return;
    case DART_OP_LAND: combine_each<T>(in, from, io, n, [](T a, T b) { return static_cast<T>((a != 0) && (b != 0)); }); return;
    case DART_OP_LOR: combine_each<T>(in, from, io, n, [](T a, T b) { return static_cast<T>((a != 0) || (b != 0)); }); return;
    case DART_OP_LXOR: combine_each<T>(in, from, io, n, [](T a, T b) { return static_cast<T>((a != 0) != (b != 0)); }); return;
    case DART_OP_MINMAX:
      // Pairs: the first component reduces with min, the second with max.
      for (std::size_t i = 0; i + 1 < n; i += 2) {
        combine_each<T>(in + (i + DART_OP_MINMAX_MIN) * sizeof(T), from + (i + DART_OP_MINMAX_MIN) * sizeof(T),
                        io + (i + DART_OP_MINMAX_MIN) * sizeof(T), 1,
                        [](T a, T b) { return a < b ? a : b; });
        combine_each<T>(in + (i + DART_OP_MINMAX_MAX) * sizeof(T), from + (i + DART_OP_MINMAX_MAX) * sizeof(T),
                        io + (i + DART_OP_MINMAX_MAX) * sizeof(T), 1,
                        [](T a, T b) { return a > b ? a : b; });
      }
      return;
    default: break;
  }
  if constexpr (std::is_integral<T>::value) {
    switch (op) {
      case DART_OP_BAND: combine_each<T>(in, from, io, n, [](T a, T b) { return static_cast<T>(a & b); }); return;
      case DART_OP_BOR: combine_each<T>(in, from, io, n, [](T a, T b) { return static_cast<T>(a | b); }); return;
      case DART_OP_BXOR: combine_each<T>(in, from, io, n, [](T a, T b) { return static_cast<T>(a ^ b); }); return;
      default: break;
    }
  }
}

// io = in op from, element-wise over n scalars of basic type t (either of
// in and from may be io itself: see the overload below, and fold_in_order,
// which copies a part into the result before folding it there).
DART_FOLD_CLONES void combine_payload(dart_datatype_t t, dart_operation_t op, const unsigned char* in,
                                      const unsigned char* from, unsigned char* io, std::size_t n) {
  switch (t) {
    case DART_TYPE_BYTE: combine_scalars<unsigned char>(op, in, from, io, n); return;
    case DART_TYPE_SHORT: combine_scalars<short>(op, in, from, io, n); return;
    case DART_TYPE_INT: combine_scalars<int>(op, in, from, io, n); return;
    case DART_TYPE_UINT: combine_scalars<unsigned int>(op, in, from, io, n); return;
    case DART_TYPE_LONG: combine_scalars<long>(op, in, from, io, n); return;
    case DART_TYPE_ULONG: combine_scalars<unsigned long>(op, in, from, io, n); return;
    case DART_TYPE_LONGLONG: combine_scalars<long long>(op, in, from, io, n); return;
    case DART_TYPE_ULONGLONG: combine_scalars<unsigned long long>(op, in, from, io, n); return;
    case DART_TYPE_FLOAT: combine_scalars<float>(op, in, from, io, n); return;
    case DART_TYPE_DOUBLE: combine_scalars<double>(op, in, from, io, n); return;
    case DART_TYPE_LONG_DOUBLE: combine_scalars<long double>(op, in, from, io, n); return;
    default: return;
  }
}

void combine_payload(dart_datatype_t t, dart_operation_t op, const unsigned char* in, unsigned char* io,
                     std::size_t n) {
  combine_payload(t, op, in, io, io, n);
}

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

bool checks_on(const Team& team) { return team.size() > 1 && rt().config().collective_checks; }

// The packet combined over the whole team. On a team across nodes whose
// units share nodes, the units of a node meet in shared memory, the first
// of them combines their packets and combines the node's with the other
// nodes' in one MPI_Allreduce among one unit per node, and its node meets
// again to read the result: one message across the network per node
// instead of one per unit (measured across the rig's hosts with
// tests/perf/bench_collectives). Elsewhere one MPI_Allreduce over the team.
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

// Runs `prepare` (validation; with `agreeing` it also fills the packet),
// then, with `agreeing`, the agreement: every member leaves with the same
// verdict. A member whose own arguments were bad throws its own error;
// the others throw DART_ERR_INVAL.
template <class Prepare>
void agree(Team& team, bool agreeing, Packet& pk, Prepare&& prepare) {
  if (!agreeing) {
    prepare();
    return;
  }
  std::exception_ptr mine;
  try {
    prepare();
  } catch (...) {
    mine = std::current_exception();
    pk.mark_invalid();
  }
  allreduce_packet(team, pk);
  if (mine) std::rethrow_exception(mine);
  if (pk.w[0] & 1) invalid("another member passed invalid arguments");
  if ((pk.w[1] & pk.w[2]) | (pk.w[3] & pk.w[4]) | (pk.w[5] & pk.w[6]))
    invalid("the members passed different roots, counts, types or operations (or called different collectives)");
}

// ---- collectives without reduction ----------------------------------------------------

void bcast_pieces(MPI_Comm comm, void* buf, std::size_t nelem, const Elem& e, int root) {
  for_each_piece(nelem, piece_limit(e, 1), [&](std::size_t first, int n) {
    activity::InMpi in_mpi;
    mpi_check(MPI_Bcast(at(buf, first, e), n, e.type, root, comm), "MPI_Bcast");
  });
}

void copy_bytes(void* to, const void* from, std::size_t bytes) {
  if (bytes > 0 && to != from) std::memmove(to, from, bytes);
}

// ---- the MPI data paths --------------------------------------------------------------
//
// Shared by both ways of agreeing: MPI's agreement packet and the node
// engine, which hands large calls to MPI after its meeting.

void scatter_mpi(const Team& team, const void* sendbuf, void* recvbuf, std::size_t nelem, const Elem& e, int r,
                 bool in_place) {
  const bool at_root = team.myid() == r;
  for_each_piece(nelem, piece_limit(e, team.size()), [&](std::size_t first, int n) {
    const BlockPiece src = at_root ? block_piece(e, nelem, n) : plain_piece(e, n);
    activity::InMpi in_mpi;
    mpi_check(MPI_Scatter(at(sendbuf, first, e), src.count, src.type, in_place ? MPI_IN_PLACE : at(recvbuf, first, e),
                          n, e.type, r, team.comm()),
              "MPI_Scatter");
  });
}

void gather_mpi(const Team& team, const void* sendbuf, void* recvbuf, std::size_t nelem, const Elem& e, int r,
                bool in_place) {
  const bool at_root = team.myid() == r;
  for_each_piece(nelem, piece_limit(e, team.size()), [&](std::size_t first, int n) {
    const BlockPiece dst = at_root ? block_piece(e, nelem, n) : plain_piece(e, n);
    activity::InMpi in_mpi;
    mpi_check(MPI_Gather(in_place ? MPI_IN_PLACE : at(sendbuf, first, e), n, e.type, at(recvbuf, first, e), dst.count,
                         dst.type, r, team.comm()),
              "MPI_Gather");
  });
}

// In place: every member's own block is already in recvbuf.
void allgather_mpi(const Team& team, void* recvbuf, std::size_t nelem, const Elem& e) {
  for_each_piece(nelem, piece_limit(e, team.size()), [&](std::size_t first, int n) {
    const BlockPiece dst = block_piece(e, nelem, n);
    activity::InMpi in_mpi;
    mpi_check(MPI_Allgather(MPI_IN_PLACE, n, e.type, at(recvbuf, first, e),
                            dst.count, dst.type, team.comm()),
              "MPI_Allgather");
  });
}

void alltoall_mpi(const Team& team, const void* sendbuf, void* recvbuf, std::size_t nelem, const Elem& e) {
  for_each_piece(nelem, piece_limit(e, team.size()), [&](std::size_t first, int n) {
    const BlockPiece blk = block_piece(e, nelem, n);
    activity::InMpi in_mpi;
    mpi_check(MPI_Alltoall(at(sendbuf, first, e), blk.count, blk.type, at(recvbuf, first, e),
                           blk.count, blk.type, team.comm()),
              "MPI_Alltoall");
  });
}

// FNV-1a over allgatherv's counts, which must be the same on every member
// (the displacements are each member's own layout).
std::uint64_t counts_hash(const std::size_t* counts, int size) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (int i = 0; i < size; ++i) {
    h ^= static_cast<std::uint64_t>(counts[i]);
    h *= 0x100000001b3ull;
  }
  return h;
}

void allgatherv_mpi(const Team& team, const void* sendbuf, std::size_t nsendelem, const Elem& e, void* recvbuf,
                    const std::size_t* nrecvelem, const std::size_t* recvdispls, std::size_t span) {
  const int size = team.size();
  const auto me = static_cast<std::size_t>(team.myid());
  char* own = at(recvbuf, recvdispls[me], e);
  const bool in_place = !sendbuf || sendbuf == recvbuf || sendbuf == own;
  // MPI wants MPI_IN_PLACE on all members or none, DART lets each choose:
  // every member puts its block in place first.
  if (!in_place && nsendelem > 0) std::memmove(own, sendbuf, nsendelem * e.bytes);
  if (span <= piece_limit(e, 1)) {
    // Every count and displacement fits in int: one MPI call.
    std::vector<int> counts(static_cast<std::size_t>(size));
    std::vector<int> displs(static_cast<std::size_t>(size));
    for (std::size_t i = 0; i < counts.size(); ++i) {
      counts[i] = static_cast<int>(nrecvelem[i]);
      displs[i] = nrecvelem[i] == 0 ? 0 : static_cast<int>(recvdispls[i]);
    }
    activity::InMpi in_mpi;
    mpi_check(MPI_Allgatherv(MPI_IN_PLACE, counts[me], e.type, recvbuf, counts.data(),
                             displs.data(), e.type, team.comm()),
              "MPI_Allgatherv");
    return;
  }
  // Beyond int, MPI-3's allgatherv cannot address the blocks: every member
  // broadcasts its block in turn, each broadcast cut into pieces.
  for (int i = 0; i < size; ++i) {
    const auto u = static_cast<std::size_t>(i);
    if (nrecvelem[u] > 0) bcast_pieces(team.comm(), at(recvbuf, recvdispls[u], e), nrecvelem[u], e, i);
  }
}

// ---- collectives of a team on one node ----------------------------------------------
//
// A team whose members share a node meets through shared memory
// (coll/node_sync.hpp): a collective is one meeting, which carries the
// agreement and the first slot's worth of data, and as many further
// meetings as the data need (NodeSync::slot(), up to 256 KiB per member
// and meeting); the rounds overlap one member's copy into its slot with
// the others' copies out of the last round. Blocks from 16 KiB on skip the
// slots where the node allows single copy (kSingleCopyFrom below): the
// first meeting carries buffer addresses, and a second one ends the call.
// Reductions take single copy too (reduce_direct), from 16 KiB of vector.
// Measured with tests/perf/bench_collectives on 2 units under Open MPI,
// 1 KiB calls take 0.4-0.6x MPI's time and 64 KiB and 1 MiB calls
// 0.78-1.0x, but for dart_reduce of 1 MiB (1.1-1.2x).
// Reductions fold every element of the members' parts in team order, one
// member per element, so every unit gets the same bits, those of a
// left-to-right evaluation (user operations: right to left,
// c0 op (c1 op ...)). With DART_COLLECTIVE_CHECKS=0 a member whose own
// arguments are bad returns without taking part, as with MPI; everything
// else is the same.

// Bytes of one element of a contiguous type (without making its MPI type).
std::size_t elem_bytes(dart_datatype_t dtype) {
  const TypeDesc& d = type_desc(dtype);
  if (!d.contiguous())
    invalid("data type " + type_name(dtype) + " is not contiguous (only basic and custom types are allowed here)");
  return d.elem_size;
}

// Runs `prepare` (validation; it fills the fingerprint and writes this
// member's payload into ns.out()) and then the meeting; throws what this
// member must report.
template <class Prepare>
void meet(NodeSync& ns, Call call, Prepare&& prepare) {
  Fingerprint fp;
  std::exception_ptr mine;
  try {
    prepare(fp);
  } catch (...) {
    if (!rt().config().collective_checks) throw;
    mine = std::current_exception();
  }
  const NodeSync::Verdict v = ns.meet(call, fp, !mine);
  if (mine) {
    (void)ns.break_on(v);  // as the others do in throw_on
    std::rethrow_exception(mine);
  }
  ns.throw_on(v, call);
}

std::uint64_t root_word(int root, std::size_t extra = 0) { return static_cast<std::uint64_t>(root + 1) | (extra << 32); }

// A further round of a collective whose data take several meetings: the
// first meeting agreed on everything, so the later ones only carry data.
void next_round(NodeSync& ns, Call call) { (void)ns.meet(call, Fingerprint{}, true); }

// Single copy (NodeSync::single_copy): from this many bytes per block on,
// a collective's first meeting carries each sending member's buffer
// address instead of data, every receiver copies what it needs straight
// from the senders' buffers (process_vm_readv), and a second meeting holds
// the senders until every copy is done: two meetings whatever the size,
// one copy, and no cache line that one core has just written read by
// another. The slots copy twice and pass every byte from core to core;
// with 2 units on 2 CPUs whose cache-line hand-off cost 0.31 us, a 1 MiB
// bcast took 413 us through them against MPI's single-copy 81 us
// (tests/perf/bench_collectives; 95 us where the hand-off cost 0.07 us).
constexpr std::size_t kSingleCopyFrom = std::size_t(16) << 10;

bool single_copy(const NodeSync& ns, std::size_t block) {
  return ns.single_copy() && block >= kSingleCopyFrom;
}

// This member's buffer address, for the others to copy from.
void publish(NodeSync& ns, const void* p) {
  const auto a = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(p));
  std::memcpy(ns.out(sizeof a), &a, sizeof a);
}

// The address member m published in the last meeting, plus `offset` bytes.
const char* published(const NodeSync& ns, int m, std::size_t offset = 0) {
  std::uint64_t a = 0;
  std::memcpy(&a, ns.in(m, sizeof a), sizeof a);
  return reinterpret_cast<const char*>(static_cast<std::uintptr_t>(a)) + offset;
}

// Copies of one single-copy collective on one member. A failed copy is
// remembered, so the call still reaches its second meeting, where every
// member learns of it.
struct SingleCopy {
  NodeSync& ns;
  int err = 0;
  int refused_by = -1;  // the member whose buffer this member could not read, or -1
  void from(int m, const char* remote, void* local, std::size_t bytes) {
    if (err == 0 && bytes > 0 && !ns.read_from(m, remote, local, bytes)) {
      err = errno;
      refused_by = m;
    }
  }
  // This member cannot go on by single copy for a reason of its own (no
  // memory for its scratch blocks): as a refusal, the call goes through
  // the slots.
  void give_up(int e) {
    if (err == 0) err = e;
  }
  // The second meeting: senders may reuse their buffers after it. False
  // when some member's copy was refused: the probe passed, but the kernel
  // can still refuse (a seccomp filter installed after the probe, a
  // ptrace policy changed), or a member ran out of memory. Every member
  // sees it in the same meeting, turns single copy off for the team's
  // later calls, and runs the call again through the slots (plain loads
  // and stores); no member has written anything a sender reads. A copy
  // that faulted (EFAULT: a range not mapped, such as a buffer shorter
  // than the call says, or memory the kernel will not pin, such as some
  // device mappings; the two look alike) fails the call on every member
  // instead: the slots would read the same range with loads.
  [[nodiscard]] bool finish(Call call) {
    constexpr std::uint64_t kRefused = 1, kFaulted = 2;
    Fingerprint fp;
    fp.w[0] = err == 0 ? 0 : err == EFAULT ? kFaulted : kRefused;
    const NodeSync::Verdict v = ns.meet(call, fp, err == 0);
    if (v.other_call_member >= 0) ns.throw_on(v, call);
    if (!v.someone_invalid) return true;
    if ((v.first_words & kFaulted) != 0) {
      if (err != 0) fail(DART_ERR_OTHER, std::string("copying from another member's buffer failed: ") + std::strerror(err));
      fail(DART_ERR_OTHER, "another member could not copy from a member's buffer");
    }
    if (err != 0) {
      const std::string why = refused_by >= 0 ? "process_vm_readv from member " + std::to_string(refused_by) + ": " +
                                                    std::strerror(err)
                                              : std::string(std::strerror(err));
      log(LogLevel::Warn, call_name(call),
          "single copy failed (%s): team %d copies its large collectives through shared memory from now on",
          why.c_str(), static_cast<int>(ns.team_id()));
    }
    ns.stop_single_copy();
    return false;
  }
};

// A broadcast of `bytes` among the members of a node engine from member
// `src`, in rounds of one slot (none if bytes is 0); `dst` is the one
// member that takes the data (the others only take part), or -1 for all.
// The source fills the next round while the others still copy out of the
// last one.
void slot_bcast(NodeSync& ns, Call call, char* buf, std::size_t bytes, int src, int dst = -1) {
  const std::size_t chunk = ns.slot();
  const bool takes = ns.me() != src && (dst < 0 || dst == ns.me());
  for (std::size_t off = 0; off < bytes; off += chunk) {
    const std::size_t c = std::min(chunk, bytes - off);
    if (ns.me() == src) std::memcpy(ns.out(c), buf + off, c);
    next_round(ns, call);
    if (takes) std::memcpy(buf + off, ns.in(src, c), c);
  }
}

void bcast_node(NodeSync& ns, Team& team, void* buf, std::size_t nelem, dart_datatype_t dtype,
                dart_team_unit_t root) {
  int r = 0;
  std::size_t bytes = 0;
  const std::size_t chunk = ns.slot();
  auto* b = static_cast<char*>(buf);
  bool direct = false;
  meet(ns, Call::Bcast, [&](Fingerprint& fp) {
    r = root_of(team, root);
    bytes = checked_bytes(nelem, elem_bytes(dtype));
    require_buf(buf, nelem, bytes, "buf");
    fp.w[0] = root_word(r);
    fp.w[1] = bytes;
    direct = single_copy(ns, bytes);
    if (ns.me() != r) return;
    if (direct) publish(ns, buf);
    else std::memcpy(ns.out(std::min(bytes, chunk)), buf, std::min(bytes, chunk));
  });
  if (direct) {
    SingleCopy copy{ns};
    if (ns.me() != r) copy.from(r, published(ns, r), b, bytes);
    if (copy.finish(Call::Bcast)) return;
    return bcast_node(ns, team, buf, nelem, dtype, root);
  }
  // The first chunk came with the agreement; the rest in rounds.
  const std::size_t first = std::min(chunk, bytes);
  if (ns.me() != r && first > 0) std::memcpy(b, ns.in(r, first), first);
  slot_bcast(ns, Call::Bcast, b + first, bytes - first, r);
}

// Rounds of a collective that moves a piece of each of n blocks of `block`
// bytes per member and meeting: piece [off, off + c) of every block, the
// pieces of one member side by side at multiples of `step` in its slot.
struct BlockRounds {
  std::size_t block = 0;  // bytes per block
  std::size_t step = 0;   // bytes of one block's piece per round

  [[nodiscard]] std::size_t rounds() const noexcept { return block == 0 ? 1 : (block + step - 1) / step; }
  [[nodiscard]] std::size_t off(std::size_t k) const noexcept { return k * step; }
  [[nodiscard]] std::size_t len(std::size_t k) const noexcept { return std::min(step, block - k * step); }
};

// Per-block pieces of `blocks` blocks in one slot of `slot` bytes. Blocks
// that fit sit side by side, so small calls travel inline in the header's
// cache lines (NodeSync::kInline).
BlockRounds block_rounds(std::size_t block, std::size_t blocks, std::size_t slot) {
  return BlockRounds{block, std::max<std::size_t>(1, std::min(block, slot / blocks))};
}

void scatter_node(NodeSync& ns, Team& team, const void* sendbuf, void* recvbuf, std::size_t nelem,
                  dart_datatype_t dtype, dart_team_unit_t root) {
  const auto n = static_cast<std::size_t>(ns.size());
  const auto me = static_cast<std::size_t>(ns.me());
  int r = 0;
  bool at_root = false, in_place = false;
  // A scatter that fits one meeting goes through the root's slot (small
  // ones inline in its header). A larger one has the root write each
  // member's piece into that member's own slot, which a scatter leaves
  // unused: n times the room per meeting, so a quarter of the rounds on
  // 4 units (each round is a trip through the scheduler on a busy node).
  bool spread = false, direct = false;
  BlockRounds br;
  const auto* src = static_cast<const char*>(sendbuf);
  auto fill = [&](std::size_t k) {
    const std::size_t c = br.len(k);
    if (c == 0) return;
    if (spread) {
      for (std::size_t i = 0; i < n; ++i)
        if (i != me || !in_place) std::memcpy(ns.slot_of(static_cast<int>(i)), src + i * br.block + br.off(k), c);
      return;
    }
    unsigned char* out = ns.out(n * br.step);
    for (std::size_t i = 0; i < n; ++i) std::memcpy(out + i * br.step, src + i * br.block + br.off(k), c);
  };
  meet(ns, Call::Scatter, [&](Fingerprint& fp) {
    r = root_of(team, root);
    const std::size_t block = checked_bytes(nelem, elem_bytes(dtype));
    const std::size_t total = checked_bytes(block, n);
    at_root = ns.me() == r;
    if (at_root) require_buf(sendbuf, nelem, total, "sendbuf (at the root)");
    in_place = at_root && recvbuf && block > 0 && recvbuf == src + static_cast<std::size_t>(r) * block;
    require_buf(recvbuf, nelem, block, "recvbuf");
    fp.w[0] = root_word(r);
    fp.w[1] = block;
    spread = total > ns.slot();
    br = spread ? BlockRounds{block, ns.slot()} : block_rounds(block, n, ns.slot());
    direct = single_copy(ns, block);
    if (!at_root) return;
    if (direct) publish(ns, sendbuf);
    else fill(0);
  });
  if (direct) {
    SingleCopy copy{ns};
    if (at_root && !in_place) std::memmove(recvbuf, src + me * br.block, br.block);
    else if (!at_root) copy.from(r, published(ns, r, me * br.block), recvbuf, br.block);
    if (copy.finish(Call::Scatter)) return;
    return scatter_node(ns, team, sendbuf, recvbuf, nelem, dtype, root);
  }
  for (std::size_t k = 0, rounds = br.rounds(); k < rounds; ++k) {
    if (k > 0) {
      if (at_root) fill(k);
      next_round(ns, Call::Scatter);
    }
    const std::size_t c = br.len(k);
    if (in_place || c == 0) continue;
    const unsigned char* piece = spread ? ns.own_slot() : ns.in(r, n * br.step) + me * br.step;
    std::memcpy(static_cast<char*>(recvbuf) + br.off(k), piece, c);
  }
}

// gather (root >= 0) and allgather (root < 0): every member's block, in
// rounds of one slot; `own` is the caller's block as it sends it.
void gather_rounds(NodeSync& ns, Call call, int root, const char* own, char* recv, std::size_t block,
                   bool skip_own) {
  const auto n = static_cast<std::size_t>(ns.size());
  const std::size_t step = ns.slot();
  const std::size_t rounds = block == 0 ? 1 : (block + step - 1) / step;
  const bool receives = root < 0 || ns.me() == root;
  for (std::size_t k = 0; k < rounds; ++k) {
    const std::size_t off = k * step, c = std::min(step, block - off);
    if (k > 0) {
      if (c > 0) std::memcpy(ns.out(c), own + off, c);
      next_round(ns, call);
    }
    if (!receives || c == 0) continue;
    for (std::size_t i = 0; i < n; ++i) {
      if (i == static_cast<std::size_t>(ns.me())) {
        if (!skip_own) std::memmove(recv + i * block + off, own + off, c);
        continue;
      }
      std::memcpy(recv + i * block + off, ns.in(static_cast<int>(i), c), c);
    }
  }
}

// gather and allgather by single copy: every member's block from the
// address it published, this member's own from `own` unless in place.
void gather_direct(SingleCopy& copy, const char* own, char* recv, std::size_t block, bool in_place) {
  const int me = copy.ns.me();
  for (int i = 0; i < copy.ns.size(); ++i) {
    char* to = recv + static_cast<std::size_t>(i) * block;
    if (i != me) copy.from(i, published(copy.ns, i), to, block);
    else if (!in_place) std::memmove(to, own, block);
  }
}

void gather_node(NodeSync& ns, Team& team, const void* sendbuf, void* recvbuf, std::size_t nelem,
                 dart_datatype_t dtype, dart_team_unit_t root) {
  int r = 0;
  std::size_t block = 0;
  bool in_place = false, direct = false;
  meet(ns, Call::Gather, [&](Fingerprint& fp) {
    r = root_of(team, root);
    block = checked_bytes(nelem, elem_bytes(dtype));
    const std::size_t total = checked_bytes(block, static_cast<std::size_t>(ns.size()));
    const bool at_root = ns.me() == r;
    if (at_root) require_buf(recvbuf, nelem, total, "recvbuf (at the root)");
    in_place = at_root && sendbuf && block > 0 &&
               sendbuf == static_cast<const char*>(recvbuf) + static_cast<std::size_t>(r) * block;
    require_buf(sendbuf, nelem, block, "sendbuf");
    fp.w[0] = root_word(r);
    fp.w[1] = block;
    direct = single_copy(ns, block);
    if (at_root) return;
    if (direct) publish(ns, sendbuf);
    else if (const std::size_t c = std::min(block, ns.slot()); c > 0) std::memcpy(ns.out(c), sendbuf, c);
  });
  if (direct) {
    SingleCopy copy{ns};
    if (ns.me() == r) gather_direct(copy, static_cast<const char*>(sendbuf), static_cast<char*>(recvbuf), block, in_place);
    if (copy.finish(Call::Gather)) return;
    return gather_node(ns, team, sendbuf, recvbuf, nelem, dtype, root);
  }
  gather_rounds(ns, Call::Gather, r, static_cast<const char*>(sendbuf), static_cast<char*>(recvbuf), block, in_place);
}

void allgather_node(NodeSync& ns, Team& team, const void* sendbuf, void* recvbuf, std::size_t nelem,
                    dart_datatype_t dtype) {
  std::size_t block = 0;
  bool in_place = false, direct = false;
  const char* own = nullptr;
  const auto me = static_cast<std::size_t>(ns.me());
  meet(ns, Call::Allgather, [&](Fingerprint& fp) {
    block = checked_bytes(nelem, elem_bytes(dtype));
    const std::size_t total = checked_bytes(block, static_cast<std::size_t>(ns.size()));
    require_buf(recvbuf, nelem, total, "recvbuf");
    const char* mine = static_cast<const char*>(recvbuf) + me * block;
    in_place = !sendbuf || sendbuf == recvbuf || sendbuf == mine;
    own = in_place ? mine : static_cast<const char*>(sendbuf);
    fp.w[1] = block;
    direct = single_copy(ns, block);
    if (direct) publish(ns, own);
    else if (const std::size_t c = std::min(block, ns.slot()); c > 0) std::memcpy(ns.out(c), own, c);
  });
  if (direct) {
    SingleCopy copy{ns};
    gather_direct(copy, own, static_cast<char*>(recvbuf), block, in_place);
    if (copy.finish(Call::Allgather)) return;
    return allgather_node(ns, team, sendbuf, recvbuf, nelem, dtype);
  }
  gather_rounds(ns, Call::Allgather, -1, own, static_cast<char*>(recvbuf), block, in_place);
}

// Elements from recvbuf to the end of the furthest non-empty block of an
// allgatherv, checking the sums; `largest` receives the largest block,
// `total` (if given) the elements of all blocks.
std::size_t allgatherv_span(const std::size_t* nrecvelem, const std::size_t* recvdispls, int size,
                            std::size_t* largest, std::size_t* total_out = nullptr) {
  std::size_t span = 0, total = 0;
  *largest = 0;
  for (std::size_t i = 0; i < static_cast<std::size_t>(size); ++i) {
    if (nrecvelem[i] == 0) continue;
    std::size_t end = 0;
    if (__builtin_add_overflow(recvdispls[i], nrecvelem[i], &end) ||
        __builtin_add_overflow(total, nrecvelem[i], &total))
      invalid("recvdispls[" + std::to_string(i) + "] + nrecvelem[" + std::to_string(i) + "] overflows size_t");
    span = std::max(span, end);
    *largest = std::max(*largest, nrecvelem[i]);
  }
  if (total_out) *total_out = total;
  return span;
}

void allgatherv_node(NodeSync& ns, Team& team, const void* sendbuf, std::size_t nsendelem, dart_datatype_t dtype,
                     void* recvbuf, const std::size_t* nrecvelem, const std::size_t* recvdispls) {
  const auto me = static_cast<std::size_t>(ns.me());
  const auto n = static_cast<std::size_t>(ns.size());
  const std::size_t step = ns.slot();
  std::size_t eb = 0, largest = 0;
  bool in_place = false, direct = false;
  const char* own = nullptr;
  auto fill = [&](std::size_t off) {
    const std::size_t mine = nsendelem * eb;
    if (off < mine) std::memcpy(ns.out(std::min(step, mine - off)), own + off, std::min(step, mine - off));
  };
  meet(ns, Call::Allgatherv, [&](Fingerprint& fp) {
    eb = elem_bytes(dtype);
    require(nrecvelem, "nrecvelem");
    require(recvdispls, "recvdispls");
    if (nsendelem != nrecvelem[me])
      invalid("nsendelem " + std::to_string(nsendelem) + " differs from nrecvelem[" + std::to_string(me) + "] " +
              std::to_string(nrecvelem[me]));
    const std::size_t span = allgatherv_span(nrecvelem, recvdispls, ns.size(), &largest);
    require_buf(recvbuf, span, checked_bytes(span, eb), "recvbuf");
    const char* mine = static_cast<const char*>(recvbuf) + recvdispls[me] * eb;
    in_place = !sendbuf || sendbuf == recvbuf || sendbuf == mine;
    own = in_place ? mine : static_cast<const char*>(sendbuf);
    fp.w[1] = eb;
    fp.w[2] = counts_hash(nrecvelem, ns.size());
    direct = single_copy(ns, largest * eb);
    if (direct) publish(ns, own);
    else fill(0);
  });
  auto* dst = static_cast<char*>(recvbuf);
  if (direct) {
    SingleCopy copy{ns};
    for (std::size_t i = 0; i < n; ++i) {
      char* to = dst + recvdispls[i] * eb;
      const std::size_t b = nrecvelem[i] * eb;
      if (i != me) copy.from(static_cast<int>(i), published(ns, static_cast<int>(i)), to, b);
      else if (!in_place && b > 0) std::memmove(to, own, b);
    }
    if (copy.finish(Call::Allgatherv)) return;
    return allgatherv_node(ns, team, sendbuf, nsendelem, dtype, recvbuf, nrecvelem, recvdispls);
  }
  const std::size_t most = largest * eb;
  const std::size_t rounds = most == 0 ? 1 : (most + step - 1) / step;
  for (std::size_t k = 0; k < rounds; ++k) {
    const std::size_t off = k * step;
    if (k > 0) {
      fill(off);
      next_round(ns, Call::Allgatherv);
    }
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t b = nrecvelem[i] * eb;
      if (off >= b) continue;
      const std::size_t c = std::min(step, b - off);
      char* to = dst + recvdispls[i] * eb + off;
      if (i == me) {
        if (!in_place) std::memmove(to, own + off, c);
      } else {
        std::memcpy(to, ns.in(static_cast<int>(i), c), c);
      }
    }
  }
}

void alltoall_node(NodeSync& ns, Team& team, const void* sendbuf, void* recvbuf, std::size_t nelem,
                   dart_datatype_t dtype) {
  const auto n = static_cast<std::size_t>(ns.size());
  const auto me = static_cast<std::size_t>(ns.me());
  // A member's own block never passes through its slot (it is copied
  // straight across, or already in place), so a slot holds the n - 1
  // pieces for the others: member j's piece for member i sits at
  // i < j ? i : i - 1. On 2 units that halves both the staged copies and
  // the rounds.
  auto place = [](std::size_t i, std::size_t j) { return i < j ? i : i - 1; };
  BlockRounds br;
  const char* row = nullptr;
  bool in_place = false, direct = false;
  std::vector<char> staged;  // single copy in place: the blocks received, moved in after the others have read
  auto fill = [&](std::size_t k) {
    const std::size_t c = br.len(k);
    if (c == 0) return;
    unsigned char* out = ns.out((n - 1) * br.step);
    for (std::size_t i = 0; i < n; ++i)
      if (i != me) std::memcpy(out + place(i, me) * br.step, row + i * br.block + br.off(k), c);
  };
  meet(ns, Call::Alltoall, [&](Fingerprint& fp) {
    const std::size_t block = checked_bytes(nelem, elem_bytes(dtype));
    const std::size_t total = checked_bytes(block, n);
    require_buf(recvbuf, nelem, total, "recvbuf");
    // In place, round k reads piece k of every block of recvbuf before
    // pieces k of the received blocks overwrite it.
    in_place = !sendbuf || sendbuf == recvbuf;
    row = in_place ? static_cast<const char*>(recvbuf) : static_cast<const char*>(sendbuf);
    fp.w[1] = block;
    br = block_rounds(block, n - 1, ns.slot());
    // The path may not depend on in_place, which each member chooses for
    // itself: in place, the blocks received wait in `staged` (allocated
    // before the meeting) until the others have copied theirs out of
    // recvbuf.
    direct = single_copy(ns, block);
    if (direct && in_place) staged.resize(total);
    if (direct) publish(ns, row);
    else fill(0);
  });
  auto* dst = static_cast<char*>(recvbuf);
  if (direct) {
    SingleCopy copy{ns};
    char* to = in_place ? staged.data() : dst;
    for (std::size_t j = 0; j < n; ++j) {
      if (j != me) copy.from(static_cast<int>(j), published(ns, static_cast<int>(j), me * br.block), to + j * br.block, br.block);
      else if (!in_place) std::memmove(dst + me * br.block, row + me * br.block, br.block);
    }
    if (!copy.finish(Call::Alltoall)) return alltoall_node(ns, team, sendbuf, recvbuf, nelem, dtype);
    if (in_place)
      for (std::size_t j = 0; j < n; ++j)
        if (j != me) std::memcpy(dst + j * br.block, staged.data() + j * br.block, br.block);
    return;
  }
  if (!in_place && br.block > 0) std::memcpy(dst + me * br.block, row + me * br.block, br.block);
  for (std::size_t k = 0, rounds = br.rounds(); k < rounds; ++k) {
    if (k > 0) {
      fill(k);
      next_round(ns, Call::Alltoall);
    }
    const std::size_t c = br.len(k);
    if (c == 0) continue;
    for (std::size_t j = 0; j < n; ++j)
      if (j != me)
        std::memcpy(dst + j * br.block + br.off(k),
                    ns.in(static_cast<int>(j), (n - 1) * br.step) + place(me, j) * br.step, c);
  }
}

// ---- teams across nodes: data through the node leaders -------------------------------
//
// A team across nodes has a node engine per node (node_step_sync) and a
// communicator of one unit per node (its leaders).
// Its agreement already meets that way (allreduce_packet). Its data can
// too: on each node the units meet in shared memory, and only the leaders
// call MPI, so each node sends its data across the network once instead of
// once per unit. Whether that beats one MPI call over the whole team
// depends on the call and the size (and needs some node to hold more than
// one unit of the team); through_leaders decides.

// Whether a call of `bytes` (bcast: the buffer; reductions: the whole
// vector) on a team across nodes moves its data through the leaders.
// Measured with tests/perf/bench_collectives on the rig (scripts/rig: 2
// hosts x 2 units on this 2-core machine, Open MPI over UCX's TCP, with
// --mca mpi_yield_when_idle 1), DART_COLLECTIVE_CHECKS=0 so that only the
// data path differs: µs per call, median of 4 runs (each best of 5 or 11
// rounds), the whole team's MPI call / through the leaders
// (DART_COLLECTIVE_HIERARCHY=off / on):
//
//   call          8 B          1 KiB        64 KiB        1 MiB
//   bcast      8.6 / 15.1   9.4 / 20.0   226 / 147     663 / 978
//   allreduce 42.4 / 35.2  41.2 / 37.5   266 / 237    1932 / 1958
//   reduce    13.7 / 18.2  15.1 / 22.0   106 / 144    1122 / 1263
//
// MPI's own figures on the rig vary up to 10x between runs (4 busy units
// on 2 shared cores), so only a clear difference decides: the leaders
// carry a bcast of 64 KiB (0.65x, faster in every pair of runs), where
// one crossing per node beats MPI's tree; at 1 MiB the node rounds and the
// leaders' call run one after the other while MPI pipelines, and small
// rooted calls lose the root's early return. An allreduce through the
// leaders was 0.83-1.01x, but not faster in every pair of runs; a reduce
// 1.13-1.46x (the root's early return again): both stay with MPI. Between
// measured sizes the boundary is their geometric middle, so the leaders
// carry broadcasts from 8 KiB to below 256 KiB. Small calls with checks on travel in the agreement
// packet, which is combined through the leaders anyway.
bool through_leaders(const NodeSync* hs, Call call, std::size_t bytes) {
  // With one unit of the team per node, the leaders are the whole team.
  if (!hs || !hs->nodes_shared()) return false;
  switch (rt().config().collective_hierarchy) {
    case Config::Hierarchy::On: return true;
    case Config::Hierarchy::Off: return false;
    case Config::Hierarchy::Auto: break;
  }
  constexpr std::size_t kBcastFrom = std::size_t(8) << 10, kBcastBelow = std::size_t(256) << 10;
  return call == Call::Bcast && bytes >= kBcastFrom && bytes < kBcastBelow;
}

// dart_bcast through the leaders, after the agreement: root's node first
// (the root hands the data to its node, leader included), then the leaders
// from the root's node, then every other node from its leader.
void bcast_leaders(NodeSync& hs, const Team& team, void* buf, std::size_t nelem, const Elem& e, int root) {
  auto* b = static_cast<char*>(buf);
  const std::size_t bytes = nelem * e.bytes;
  const int root_node = hs.node_of(root);
  const bool on_root_node = hs.node_of(team.myid()) == root_node;
  if (on_root_node) slot_bcast(hs, Call::NodeStep, b, bytes, hs.rank_on_node(root));
  if (hs.leaders() != MPI_COMM_NULL) bcast_pieces(hs.leaders(), buf, nelem, e, root_node);
  if (!on_root_node) slot_bcast(hs, Call::NodeStep, b, bytes, 0);
}

void bcast(void* buf, std::size_t nelem, dart_datatype_t dtype, dart_team_unit_t root, dart_team_t teamid) {
  Team& team = rt().team(teamid);
  if (NodeSync* ns = node_sync(team)) return bcast_node(*ns, team, buf, nelem, dtype, root);
  const bool agreeing = checks_on(team);
  Packet pk;
  int r = 0;
  Elem e;
  std::size_t bytes = 0;
  bool fused = false;
  agree(team, agreeing, pk, [&] {
    r = root_of(team, root);
    e = elem_of(dtype);
    bytes = checked_bytes(nelem, e.bytes);
    require_buf(buf, nelem, bytes, "buf");
    if (!agreeing) return;
    fused = bytes <= kPayloadBytes;
    pk.fingerprint(Kind::Bcast, r, false, 0, bytes, 0);
    if (fused && team.myid() == r) copy_bytes(pk.payload(), buf, bytes);
  });
  if (fused) {
    if (team.myid() != r) copy_bytes(buf, pk.payload(), bytes);
    return;
  }
  if (NodeSync* hs = node_step_sync(team); through_leaders(hs, Call::Bcast, bytes))
    return bcast_leaders(*hs, team, buf, nelem, e, r);
  bcast_pieces(team.comm(), buf, nelem, e, r);
}

void scatter(const void* sendbuf, void* recvbuf, std::size_t nelem, dart_datatype_t dtype, dart_team_unit_t root,
             dart_team_t teamid) {
  Team& team = rt().team(teamid);
  if (NodeSync* ns = node_sync(team)) return scatter_node(*ns, team, sendbuf, recvbuf, nelem, dtype, root);
  const bool agreeing = checks_on(team);
  Packet pk;
  int r = 0;
  Elem e;
  bool at_root = false, in_place = false, fused = false;
  std::size_t block = 0;
  agree(team, agreeing, pk, [&] {
    r = root_of(team, root);
    e = elem_of(dtype);
    const std::size_t total = blocks_bytes(nelem, team.size(), e);
    block = nelem * e.bytes;
    at_root = team.myid() == r;
    // sendbuf is read at the root only. A root whose recvbuf is its own
    // block of sendbuf receives in place (MPI rejects aliased buffers).
    if (at_root) require_buf(sendbuf, nelem, total, "sendbuf (at the root)");
    in_place = at_root && recvbuf && recvbuf == at(sendbuf, static_cast<std::size_t>(r) * nelem, e);
    require_buf(recvbuf, nelem, block, "recvbuf");
    if (!agreeing) return;
    fused = total <= kPayloadBytes;
    pk.fingerprint(Kind::Scatter, r, false, 0, block, 0);
    if (fused && at_root) copy_bytes(pk.payload(), sendbuf, total);
  });
  if (fused) {
    if (!in_place) copy_bytes(recvbuf, pk.payload() + static_cast<std::size_t>(team.myid()) * block, block);
    return;
  }
  scatter_mpi(team, sendbuf, recvbuf, nelem, e, r, in_place);
}

void gather(const void* sendbuf, void* recvbuf, std::size_t nelem, dart_datatype_t dtype, dart_team_unit_t root,
            dart_team_t teamid) {
  Team& team = rt().team(teamid);
  if (NodeSync* ns = node_sync(team)) return gather_node(*ns, team, sendbuf, recvbuf, nelem, dtype, root);
  const bool agreeing = checks_on(team);
  Packet pk;
  int r = 0;
  Elem e;
  bool at_root = false, in_place = false, fused = false;
  std::size_t block = 0, total = 0;
  agree(team, agreeing, pk, [&] {
    r = root_of(team, root);
    e = elem_of(dtype);
    total = blocks_bytes(nelem, team.size(), e);
    block = nelem * e.bytes;
    at_root = team.myid() == r;
    // recvbuf is written at the root only. A root whose sendbuf is its own
    // block of recvbuf sends in place.
    if (at_root) require_buf(recvbuf, nelem, total, "recvbuf (at the root)");
    in_place = at_root && sendbuf && sendbuf == at(recvbuf, static_cast<std::size_t>(r) * nelem, e);
    require_buf(sendbuf, nelem, block, "sendbuf");
    if (!agreeing) return;
    fused = total <= kPayloadBytes;
    pk.fingerprint(Kind::Gather, r, false, 0, block, 0);
    if (fused && !in_place) copy_bytes(pk.payload() + static_cast<std::size_t>(team.myid()) * block, sendbuf, block);
  });
  if (fused) {
    // The root's own block is in place or was copied from its sendbuf.
    if (at_root) {
      for (int i = 0; i < team.size(); ++i) {
        const std::size_t off = static_cast<std::size_t>(i) * block;
        if (i != r || !in_place) copy_bytes(static_cast<char*>(recvbuf) + off, pk.payload() + off, block);
      }
    }
    return;
  }
  gather_mpi(team, sendbuf, recvbuf, nelem, e, r, in_place);
}

void allgather(const void* sendbuf, void* recvbuf, std::size_t nelem, dart_datatype_t dtype, dart_team_t teamid) {
  Team& team = rt().team(teamid);
  if (NodeSync* ns = node_sync(team)) return allgather_node(*ns, team, sendbuf, recvbuf, nelem, dtype);
  const bool agreeing = checks_on(team);
  Packet pk;
  Elem e;
  bool in_place = false, fused = false;
  std::size_t block = 0, total = 0;
  const auto me = static_cast<std::size_t>(team.myid());
  agree(team, agreeing, pk, [&] {
    e = elem_of(dtype);
    total = blocks_bytes(nelem, team.size(), e);
    block = nelem * e.bytes;
    require_buf(recvbuf, nelem, total, "recvbuf");
    // In place (spec): sendbuf NULL or recvbuf; also when it is the caller's
    // own block of recvbuf, which MPI would reject as aliased.
    in_place = !sendbuf || sendbuf == recvbuf || sendbuf == at(recvbuf, me * nelem, e);
    if (!agreeing) return;
    fused = total <= kPayloadBytes;
    pk.fingerprint(Kind::Allgather, -1, false, 0, block, 0);
    if (fused) copy_bytes(pk.payload() + me * block, in_place ? at(recvbuf, me * nelem, e) : sendbuf, block);
  });
  if (fused) {
    copy_bytes(recvbuf, pk.payload(), total);
    return;
  }
  // MPI wants MPI_IN_PLACE on all members or none, DART lets each choose:
  // every member puts its block in place first.
  if (!in_place) copy_bytes(at(recvbuf, me * nelem, e), sendbuf, block);
  allgather_mpi(team, recvbuf, nelem, e);
}

void allgatherv(const void* sendbuf, std::size_t nsendelem, dart_datatype_t dtype, void* recvbuf,
                const std::size_t* nrecvelem, const std::size_t* recvdispls, dart_team_t teamid) {
  Team& team = rt().team(teamid);
  if (NodeSync* ns = node_sync(team))
    return allgatherv_node(*ns, team, sendbuf, nsendelem, dtype, recvbuf, nrecvelem, recvdispls);
  const bool agreeing = checks_on(team);
  const int size = team.size();
  const auto me = static_cast<std::size_t>(team.myid());
  Packet pk;
  Elem e;
  std::size_t span = 0, total = 0;
  bool fused = false;
  agree(team, agreeing, pk, [&] {
    e = elem_of(dtype);
    require(nrecvelem, "nrecvelem");
    require(recvdispls, "recvdispls");
    if (nsendelem != nrecvelem[me])
      invalid("nsendelem " + std::to_string(nsendelem) + " differs from nrecvelem[" + std::to_string(me) + "] " +
              std::to_string(nrecvelem[me]));
    std::size_t largest = 0;
    span = allgatherv_span(nrecvelem, recvdispls, size, &largest, &total);
    require_buf(recvbuf, span, checked_bytes(span, e.bytes), "recvbuf");
    if (!agreeing) return;
    const std::size_t total_bytes = checked_bytes(total, e.bytes);
    fused = total_bytes <= kPayloadBytes;
    pk.fingerprint(Kind::Allgatherv, -1, false, 0, total_bytes, counts_hash(nrecvelem, size) ^ e.bytes);
    if (!fused) return;
    // Packed in team order, whatever the displacements.
    std::size_t off = 0;
    for (std::size_t i = 0; i < me; ++i) off += nrecvelem[i];
    const bool in_place = !sendbuf || sendbuf == recvbuf;
    copy_bytes(pk.payload() + off * e.bytes, in_place ? at(recvbuf, recvdispls[me], e) : sendbuf, nsendelem * e.bytes);
  });
  if (fused) {
    std::size_t off = 0;
    for (std::size_t i = 0; i < static_cast<std::size_t>(size); ++i) {
      if (nrecvelem[i] > 0)
        copy_bytes(at(recvbuf, recvdispls[i], e), pk.payload() + off * e.bytes, nrecvelem[i] * e.bytes);
      off += nrecvelem[i];
    }
    return;
  }
  if (span == 0) return;  // every block is empty, on every member
  allgatherv_mpi(team, sendbuf, nsendelem, e, recvbuf, nrecvelem, recvdispls, span);
}

void alltoall(const void* sendbuf, void* recvbuf, std::size_t nelem, dart_datatype_t dtype, dart_team_t teamid) {
  Team& team = rt().team(teamid);
  if (NodeSync* ns = node_sync(team)) return alltoall_node(*ns, team, sendbuf, recvbuf, nelem, dtype);
  const bool agreeing = checks_on(team);
  const auto size = static_cast<std::size_t>(team.size());
  const auto me = static_cast<std::size_t>(team.myid());
  Packet pk;
  Elem e;
  bool in_place = false, fused = false;
  std::size_t block = 0;
  // MPI wants MPI_IN_PLACE on all members or none, DART lets each choose:
  // a member in place sends from a copy of recvbuf instead (made before
  // the agreement, so running out of memory fails the call everywhere).
  std::vector<char> staged;
  agree(team, agreeing, pk, [&] {
    e = elem_of(dtype);
    const std::size_t total = blocks_bytes(nelem, team.size(), e);
    block = nelem * e.bytes;
    require_buf(recvbuf, nelem, total, "recvbuf");
    in_place = !sendbuf || sendbuf == recvbuf;
    if (in_place && !(agreeing && total <= kPayloadBytes / size))
      staged.assign(static_cast<const char*>(recvbuf), static_cast<const char*>(recvbuf) + total);
    if (!agreeing) return;
    fused = total <= kPayloadBytes / size;  // size x size blocks
    pk.fingerprint(Kind::Alltoall, -1, false, 0, block, 0);
    // Row `me` of the matrix of blocks: block j goes to member j.
    if (fused) copy_bytes(pk.payload() + me * total, in_place ? recvbuf : sendbuf, total);
  });
  if (fused) {
    // Block i of recvbuf: what member i sent to me, row i, column me.
    for (std::size_t i = 0; i < size; ++i)
      copy_bytes(static_cast<char*>(recvbuf) + i * block, pk.payload() + (i * size + me) * block, block);
    return;
  }
  alltoall_mpi(team, in_place ? staged.data() : sendbuf, recvbuf, nelem, e);
}

// ---- reductions ------------------------------------------------------------------------

bool is_integer_type(dart_datatype_t t) { return t >= DART_TYPE_BYTE && t <= DART_TYPE_ULONGLONG; }

// DART_OP_MINMAX on pairs of T (spec 2.3): the first components reduce
// with min, the second with max. len counts pairs.
template <class T>
void minmax_pairs(void* in, void* inout, int* len, MPI_Datatype*) {
  const T* a = static_cast<const T*>(in);
  T* b = static_cast<T*>(inout);
  for (int i = 0; i < *len; ++i, a += 2, b += 2) {
    if (a[DART_OP_MINMAX_MIN] < b[DART_OP_MINMAX_MIN]) b[DART_OP_MINMAX_MIN] = a[DART_OP_MINMAX_MIN];
    if (a[DART_OP_MINMAX_MAX] > b[DART_OP_MINMAX_MAX]) b[DART_OP_MINMAX_MAX] = a[DART_OP_MINMAX_MAX];
  }
}

MPI_User_function* minmax_function(dart_datatype_t t) {
  switch (t) {
    case DART_TYPE_BYTE: return &minmax_pairs<unsigned char>;
    case DART_TYPE_SHORT: return &minmax_pairs<short>;
    case DART_TYPE_INT: return &minmax_pairs<int>;
    case DART_TYPE_UINT: return &minmax_pairs<unsigned int>;
    case DART_TYPE_LONG: return &minmax_pairs<long>;
    case DART_TYPE_ULONG: return &minmax_pairs<unsigned long>;
    case DART_TYPE_LONGLONG: return &minmax_pairs<long long>;
    case DART_TYPE_ULONGLONG: return &minmax_pairs<unsigned long long>;
    case DART_TYPE_FLOAT: return &minmax_pairs<float>;
    case DART_TYPE_DOUBLE: return &minmax_pairs<double>;
    case DART_TYPE_LONG_DOUBLE: return &minmax_pairs<long double>;
    default: break;
  }
  invalid("DART_OP_MINMAX needs a basic type, not data type " + type_name(t));
}

// User operations. MPI hands its user functions no context pointer, so the
// operation of the reduction in progress is found through a thread-local
// pointer that the reduction sets around its MPI calls (UserOpScope). MPI
// runs the reduction steps of a blocking collective on the thread that
// called it (Open MPI 4.1's coll/tuned and MPICH 4.0's algorithms combine
// data in the caller after each receive), so concurrent reductions on
// different threads each see their own operation, with no lock and no
// limit on their number. Should a library ever call the function from
// another thread, it finds no operation and the job aborts with a message
// rather than computing wrong results.
thread_local const UserOp* t_user_op = nullptr;

void apply_user_op(void* in, void* inout, int* len, MPI_Datatype*) {
  const UserOp* op = t_user_op;
  if (!op) {
    log(LogLevel::Error, "dart_reduce/dart_allreduce",
        "the MPI library called a user operation outside the thread of its reduction; aborting the job");
    mpifix::abort_job(MPI_COMM_WORLD, DART_EXIT_ABORT);
  }
  op->fn(in, inout, static_cast<std::size_t>(*len), op->userdata);
}

class UserOpScope {
 public:
  explicit UserOpScope(const UserOp* op) : saved_(std::exchange(t_user_op, op)) {}
  ~UserOpScope() { t_user_op = saved_; }
  UserOpScope(const UserOpScope&) = delete;
  UserOpScope& operator=(const UserOpScope&) = delete;

 private:
  const UserOp* saved_;
};

// An operation as MPI applies it, and the MPI view of what it combines.
struct Reduction {
  Elem elem;              // DART_OP_MINMAX: a pair of scalars
  std::size_t count = 0;  // in elem units
  MPI_Op op = MPI_OP_NULL;
  Op owned;     // MINMAX and user operations
  UserOp user;  // a copy (dart_op_destroy may run meanwhile); fn is NULL for predefined ones
};

// `with_mpi` false: validation and sizes only, no MPI objects (the node
// engine applies operations itself).
Reduction reduction_of(dart_datatype_t dtype, dart_operation_t op, std::size_t nelem, bool with_mpi = true) {
  Reduction red;
  if (op >= DART_OP_LAST) {
    const UserOp* u = find_user_op(op);
    if (!u) invalid("operation " + std::to_string(op) + " is neither predefined nor a live user operation");
    red.user = *u;
    if (red.user.dtype != dtype)
      invalid("user operation " + std::to_string(op) + " was created for data type " + type_name(red.user.dtype) +
              ", not " + type_name(dtype));
    red.count = nelem;
    if (!with_mpi) {
      red.elem.bytes = elem_bytes(dtype);
      return red;
    }
    red.elem = elem_of(dtype);
    red.owned = create_op(&apply_user_op, red.user.commute);
    red.op = red.owned.get();
    return red;
  }
  if (type_desc(dtype).kind != TypeDesc::Kind::Basic)
    invalid("predefined operations reduce basic types only, not data type " + type_name(dtype) +
            " (use dart_op_create)");
  switch (op) {
    case DART_OP_MIN: red.op = MPI_MIN; break;
    case DART_OP_MAX: red.op = MPI_MAX; break;
    case DART_OP_SUM: red.op = MPI_SUM; break;
    case DART_OP_PROD: red.op = MPI_PROD; break;
    case DART_OP_BAND: red.op = MPI_BAND; break;
    case DART_OP_LAND: red.op = MPI_LAND; break;
    case DART_OP_BOR: red.op = MPI_BOR; break;
    case DART_OP_LOR: red.op = MPI_LOR; break;
    case DART_OP_BXOR: red.op = MPI_BXOR; break;
    case DART_OP_LXOR: red.op = MPI_LXOR; break;
    case DART_OP_MINMAX: {
      if (nelem % 2 != 0) invalid("DART_OP_MINMAX reduces pairs, so nelem must be even, not " + std::to_string(nelem));
      (void)minmax_function(dtype);  // rejects types that are not basic
      red.elem.bytes = 2 * basic_type_size(dtype);
      red.count = nelem / 2;
      if (!with_mpi) return red;
      MPI_Datatype pair = MPI_DATATYPE_NULL;
      mpi_check(MPI_Type_contiguous(2, basic_mpi_type(dtype), &pair), "MPI_Type_contiguous");
      red.elem.owned = commit_type(pair);
      red.elem.type = red.elem.owned.get();
      red.elem.bytes = 2 * basic_type_size(dtype);
      red.count = nelem / 2;
      red.owned = create_op(minmax_function(dtype), true);
      red.op = red.owned.get();
      return red;
    }
    default: invalid("operation " + std::to_string(op) + " is not allowed in reductions");
  }
  if (op >= DART_OP_BAND && op <= DART_OP_LXOR && !is_integer_type(dtype))
    invalid("bitwise and logical operations need an integer type, not data type " + type_name(dtype));
  red.count = nelem;
  if (!with_mpi) {
    red.elem.bytes = basic_type_size(dtype);
    return red;
  }
  red.elem = elem_of(dtype);
  return red;
}

bool is_logical_op(dart_operation_t op) { return op == DART_OP_LAND || op == DART_OP_LOR || op == DART_OP_LXOR; }

template <class T>
void to_truth_values(void* buf, std::size_t n) {
  T* v = static_cast<T*>(buf);
  for (std::size_t i = 0; i < n; ++i) v[i] = v[i] != 0 ? T(1) : T(0);
}

// DART's logical operations yield 0 or 1 (spec 2.3). MPI applies no
// operation at all when the team has one member (the result is a copy of
// sendbuf), so there the result is mapped to truth values here.
void to_truth_values(void* buf, std::size_t n, dart_datatype_t t) {
  switch (t) {
    case DART_TYPE_BYTE: to_truth_values<unsigned char>(buf, n); return;
    case DART_TYPE_SHORT: to_truth_values<short>(buf, n); return;
    case DART_TYPE_INT: to_truth_values<int>(buf, n); return;
    case DART_TYPE_UINT: to_truth_values<unsigned int>(buf, n); return;
    case DART_TYPE_LONG: to_truth_values<long>(buf, n); return;
    case DART_TYPE_ULONG: to_truth_values<unsigned long>(buf, n); return;
    case DART_TYPE_LONGLONG: to_truth_values<long long>(buf, n); return;
    case DART_TYPE_ULONGLONG: to_truth_values<unsigned long long>(buf, n); return;
    default: break;
  }
  invalid("logical operations need an integer type, not data type " + type_name(t));
}

// The MPI reduction of every piece, for dart_reduce (root >= 0) and
// dart_allreduce (root < 0); `result` is NULL where MPI ignores it.
// MPICH 4.0 to 4.1.1 crash in MPI_Reduce with MPI_IN_PLACE at a root other
// than 0 from a few KiB on (pmodels/mpich#6540), so under MPICH such a
// root reduces from a copy of its contribution instead.
void mpi_reduce_pieces(MPI_Comm comm, const void* sendbuf, void* result, bool in_place, const Reduction& red,
                       int root) {
  const Elem& e = red.elem;
  std::vector<unsigned char> staged;
#ifdef MPICH_NUMVERSION
  if (in_place && root > 0) {
    const auto* r = static_cast<const unsigned char*>(result);
    staged.assign(r, r + red.count * e.bytes);
    sendbuf = staged.data();
    in_place = false;
  }
#endif
  const UserOpScope scope(red.user.fn ? &red.user : nullptr);
  for_each_piece(red.count, piece_limit(e, 1), [&](std::size_t first, int n) {
    const void* src = in_place ? MPI_IN_PLACE : at(sendbuf, first, e);
    activity::InMpi in_mpi;
    if (root < 0) mpi_check(MPI_Allreduce(src, at(result, first, e), n, e.type, red.op, comm), "MPI_Allreduce");
    else mpi_check(MPI_Reduce(src, at(result, first, e), n, e.type, red.op, root, comm), "MPI_Reduce");
  });
}

// The fold of one piece (cnt elements of red, c bytes) of the n members'
// parts into acc, in the one order every path uses, so every path gives
// the same bits: predefined operations left to right (combine_payload
// computes b = a op b with b the running result, from c0 on), user
// operations c0 op (c1 op (... op c(n-1))) (the function computes
// in op inout). part(m, into) gives member m's part, where it is or
// copied into `into` (acc while acc holds no running result, else
// `spare`); NULL stops the fold, and the operation is not called again.
// The first predefined step reads c0 where it is, so it is not copied
// first, and it copies c1 into acc: the copy (the kernel's, for single
// copy) then claims the result's cache lines, and the fold rewrites lines
// this core holds. Copied into `spare` instead, a 1 MiB dart_reduce on 2
// units took 123-125 us against 114-116 (MPI_Reduce 106-109), the fold
// then waiting for each line of the result to arrive before writing it.
template <class Part>
void fold_in_order(const Reduction& red, dart_datatype_t dtype, dart_operation_t op, int n, unsigned char* acc,
                   unsigned char* spare, std::size_t cnt, Part&& part) {
  const std::size_t c = cnt * red.elem.bytes;
  if (red.user.fn) {
    const unsigned char* last = part(n - 1, acc);
    if (!last) return;
    if (last != acc) std::memcpy(acc, last, c);
    for (int m = n - 2; m >= 0; --m) {
      const unsigned char* in = part(m, spare);
      if (!in) return;
      red.user.fn(in, acc, cnt, red.user.userdata);
    }
    return;
  }
  const std::size_t scalars = cnt * (red.elem.bytes / basic_size_or_zero(dtype));
  const unsigned char* run = part(0, acc);
  if (run && n == 1 && run != acc) std::memcpy(acc, run, c);
  for (int m = 1; m < n && run; ++m) {
    const unsigned char* in = part(m, run != acc ? acc : spare);
    if (!in) return;
    combine_payload(dtype, op, in, run, acc, scalars);
    run = acc;
  }
}

// The same over the parts of the last meeting (c bytes each).
void fold_slots(const NodeSync& ns, const Reduction& red, dart_datatype_t dtype, dart_operation_t op,
                unsigned char* acc, std::size_t cnt) {
  const std::size_t c = cnt * red.elem.bytes;
  fold_in_order(red, dtype, op, ns.size(), acc, nullptr, cnt,
                [&](int m, unsigned char*) { return ns.in(m, c); });
}

// Reductions by single copy (from kSingleCopyFrom bytes, predefined and
// user operations alike): every member publishes its contribution's
// address in the first meeting, and the contributions are folded from
// there in team order (fold_in_order), as through the slots, so every
// member gets the same bits either way. Two ways to share the folding
// (split_fold decides):
// - whole: each member that needs the result folds all of it, reading
//   the others' contributions; a second meeting releases them.
// - split: member j folds elements [lo(j), lo(j + 1)) of all contributions
//   and publishes its piece in a second meeting; the members that need the
//   result copy the others' pieces, and a third meeting releases them.
//   Each member reads (n - 1) / n of a vector to fold and, if it needs
//   the result, as much again, where `whole` reads (n - 1) vectors.
// Pieces of kFoldPiece bytes keep what is read across, this member's part
// and the result being folded in this core's cache (1 MiB of L2 here),
// and make few calls: one process_vm_readv costs about 1.5 us besides
// its bytes, so 1 MiB read in 16 KiB pieces took 175 us, in 64 KiB
// pieces 102 us, in 256 KiB pieces 84 us and in one call 79 us.
constexpr std::size_t kFoldPiece = std::size_t(256) << 10;

// Memory a reduction by single copy needs only during the call, kept per
// thread for the next one: a fresh block of these sizes comes from mmap,
// and every 4 KiB of it would fault at every call. Blocks above
// kScratchKeep are given back when the call ends.
class Scratch {
 public:
  Scratch(int which, std::size_t bytes) : buf_(pool()[which]) {
    if (buf_.size() < bytes) buf_.resize(bytes);
  }
  ~Scratch() {
    if (buf_.size() > kScratchKeep) std::vector<unsigned char>().swap(buf_);
  }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  [[nodiscard]] unsigned char* data() noexcept { return buf_.data(); }

 private:
  static constexpr std::size_t kScratchKeep = std::size_t(64) << 20;
  static std::vector<unsigned char>* pool() {
    thread_local std::vector<unsigned char> bufs[2];
    return bufs;
  }
  std::vector<unsigned char>& buf_;
};

// Elements [a, b) of the reduction into `out` (element a at out[0]). Stops
// at the first refused copy (finish then has the call run again).
void fold_direct(SingleCopy& copy, const Reduction& red, dart_datatype_t dtype, dart_operation_t op,
                 const char* own, unsigned char* out, std::size_t a, std::size_t b) {
  const NodeSync& ns = copy.ns;
  const int n = ns.size();
  const std::size_t eb = red.elem.bytes;
  const std::size_t per_piece = std::max<std::size_t>(1, kFoldPiece / eb);
  std::optional<Scratch> piece;
  try {
    piece.emplace(0, std::min(b - a, per_piece) * eb);
  } catch (const std::bad_alloc&) {
    return copy.give_up(ENOMEM);
  }
  for (std::size_t first = a; first < b && copy.err == 0; first += per_piece) {
    const std::size_t cnt = std::min(per_piece, b - first);
    const std::size_t c = cnt * eb, off = first * eb;
    unsigned char* acc = out + (first - a) * eb;
    // Member m's part of this piece: this member's where it is, another's
    // copied into `into`; NULL if a copy was refused.
    fold_in_order(red, dtype, op, n, acc, piece->data(), cnt, [&](int m, unsigned char* into) -> const unsigned char* {
      if (copy.err != 0) return nullptr;
      if (m == ns.me()) return reinterpret_cast<const unsigned char*>(own) + off;
      copy.from(m, published(ns, m, off), into, c);
      return copy.err == 0 ? into : nullptr;
    });
  }
}

// Whether a reduction of `bytes` folds split (see above) on `ns`.
// Measured with 2 units under Open MPI (dart_reduce of doubles against
// MPI_Reduce in the same run), µs per call, whole / split / MPI:
//   where a cache-line hand-off costs 0.07 us: 5.0-6.2 / 7.2-8.4 / 5.2-6.7
//   at 32 KiB, 29-30 / 36 / 26-27 at 256 KiB, 61-62 / 64-65 / 54-56 at
//   512 KiB, 123-166 / 108-136 / 106-136 at 1 MiB;
//   where it costs 0.28 us: 1 MiB split 413 against MPI's 110, since the
//   root then reads the piece the other core has just written.
// So 2 units fold whole. With more, whole reads n - 1 vectors at every
// member that needs the result, split less than 2 each: a dart_allreduce
// splits (whole would pass n (n - 1) vectors through the node's memory;
// 4 units on 2 CPUs, 1 MiB: 796 us whole, 402 split, MPI 450-500). A
// dart_reduce splits only where each unit has a CPU: whole is the least
// work in all (n - 1 vectors, at the root), which is what counts when the
// units share CPUs, and split's third meeting waits for the scheduler
// there (3 units on 2 CPUs, 1 MiB: 246 us whole, 318 split, MPI 208-227).
// Split dart_reduce with a CPU per unit is not measured here.
bool split_fold(const NodeSync& ns, bool rooted, std::size_t bytes) {
  constexpr std::size_t kSplitFrom = std::size_t(64) << 10;
  return ns.size() > 2 && bytes >= kSplitFrom && !(rooted && ns.oversubscribed());
}

// A reduction by single copy after the first meeting (see above): `result`
// holds the whole result on the members that need it (the root, or every
// member for dart_allreduce), NULL elsewhere. False if a copy was refused
// on some member: every member then runs the call again through the slots.
bool reduce_direct(SingleCopy& copy, Call call, const Reduction& red, dart_datatype_t dtype, dart_operation_t op,
                   const char* own, unsigned char* result) {
  NodeSync& ns = copy.ns;
  const auto n = static_cast<std::size_t>(ns.size());
  const auto me = static_cast<std::size_t>(ns.me());
  const std::size_t eb = red.elem.bytes;
  if (!split_fold(ns, call == Call::Reduce, red.count * eb)) {
    if (result) fold_direct(copy, red, dtype, op, own, result, 0, red.count);
    return copy.finish(call);
  }
  const std::size_t per = (red.count + n - 1) / n;
  auto lo = [&](std::size_t j) { return std::min(red.count, j * per); };
  // This member's piece: in the result where that is here.
  std::optional<Scratch> folded;
  unsigned char* mine = nullptr;
  try {
    folded.emplace(1, result ? 0 : (lo(me + 1) - lo(me)) * eb);
    mine = result ? result + lo(me) * eb : folded->data();
  } catch (const std::bad_alloc&) {
    copy.give_up(ENOMEM);
  }
  if (mine) fold_direct(copy, red, dtype, op, own, mine, lo(me), lo(me + 1));
  publish(ns, mine);
  if (!copy.finish(call)) return false;
  if (result) {
    for (std::size_t j = 0; j < n; ++j) {
      if (j == me) continue;
      copy.from(static_cast<int>(j), published(ns, static_cast<int>(j)), result + lo(j) * eb,
                (lo(j + 1) - lo(j)) * eb);
    }
  }
  return copy.finish(call);
}

// dart_reduce / dart_allreduce of a team on one node: every member's
// contribution in its slot, folded in team order where the result goes, in
// rounds of whole elements that fit a slot. An element larger than a slot
// (a custom type) is reduced by MPI after the agreement.
void reduce_node(NodeSync& ns, Team& team, const void* sendbuf, void* recvbuf, std::size_t nelem,
                 dart_datatype_t dtype, dart_operation_t op, const dart_team_unit_t* root_arg) {
  const Call call = root_arg ? Call::Reduce : Call::Allreduce;
  Reduction red;
  int root = -1;
  bool result_here = false, in_place = false, shm = false;
  std::size_t bytes = 0, per_round = 0;  // per_round: elements (red.elem) per meeting
  const char* src = nullptr;
  bool direct = false;
  std::vector<unsigned char> staged;  // single copy in place: the result, moved in after the others have read
  auto fill = [&](std::size_t first) {
    const std::size_t c = std::min(per_round, red.count - first) * red.elem.bytes;
    if (c > 0) std::memcpy(ns.out(c), src + first * red.elem.bytes, c);
  };
  meet(ns, call, [&](Fingerprint& fp) {
    if (root_arg) root = root_of(team, *root_arg);
    red = reduction_of(dtype, op, nelem, false);
    bytes = checked_bytes(red.count, red.elem.bytes);
    result_here = root < 0 || ns.me() == root;
    if (result_here) require_buf(recvbuf, nelem, bytes, root < 0 ? "recvbuf" : "recvbuf (at the root)");
    in_place = result_here && sendbuf == recvbuf;
    if (!in_place) require_buf(sendbuf, nelem, bytes, "sendbuf");
    src = static_cast<const char*>(sendbuf);
    shm = red.elem.bytes <= ns.slot();
    per_round = shm ? ns.slot() / red.elem.bytes : 0;
    const bool user = op >= DART_OP_LAST;
    fp.w[0] = root_word(root, user ? kUserOpCode : static_cast<std::uint64_t>(op));
    fp.w[1] = nelem;
    fp.w[2] = is_basic_type(dtype) ? static_cast<std::uint64_t>(dtype) : ((std::uint64_t{1} << 62) | red.elem.bytes);
    // The path may not depend on in_place, which each member chooses for
    // itself (see alltoall_node): an in-place member folds into `staged`,
    // allocated before the meeting.
    direct = single_copy(ns, bytes);
    if (direct && in_place) staged.resize(bytes);
    if (direct) publish(ns, src);
    else if (shm) fill(0);
  });
  if (direct) {
    SingleCopy copy{ns};
    unsigned char* result = !result_here ? nullptr : in_place ? staged.data() : static_cast<unsigned char*>(recvbuf);
    if (!reduce_direct(copy, call, red, dtype, op, src, result))
      return reduce_node(ns, team, sendbuf, recvbuf, nelem, dtype, op, root_arg);
    if (result_here && in_place && bytes > 0) std::memcpy(recvbuf, staged.data(), bytes);
    return;
  }
  if (!shm) {
    // The agreement is made; MPI reduces.
    const Reduction mred = reduction_of(dtype, op, nelem);
    mpi_reduce_pieces(team.comm(), sendbuf, result_here ? recvbuf : nullptr, in_place, mred, root);
    return;
  }
  for (std::size_t first = 0; first < red.count || first == 0; first += per_round) {
    if (first > 0) {
      fill(first);
      next_round(ns, call);
    }
    const std::size_t cnt = std::min(per_round, red.count - first);
    const std::size_t c = cnt * red.elem.bytes;
    if (result_here && c > 0) {
      // In place, the contribution was copied into the slot before the
      // result overwrites it.
      auto* acc = static_cast<unsigned char*>(recvbuf) + first * red.elem.bytes;
      fold_slots(ns, red, dtype, op, acc, cnt);
    }
    if (red.count == 0) break;
  }
}

// dart_reduce / dart_allreduce through the leaders, after the agreement,
// for predefined operations (user operations may not commute, and folding
// by node would reorder their operands): each node's contributions are
// folded at its leader in node order, in rounds of a slot; the leaders
// reduce the nodes' results with MPI; the result goes to every unit of
// every node (allreduce) or from the root node's leader to the root.
// Every unit gets the same bits: those of the leaders' MPI call.
void reduce_leaders(NodeSync& hs, const Team& team, const void* sendbuf, void* recvbuf, bool in_place,
                    const Reduction& red, dart_datatype_t dtype, dart_operation_t op, int root,
                    std::vector<unsigned char>& spare) {
  const std::size_t eb = red.elem.bytes;
  const std::size_t bytes = red.count * eb;
  const bool leader = hs.leaders() != MPI_COMM_NULL;
  const bool result_here = root < 0 || team.myid() == root;
  // The leader folds into the result where it has one, else into `spare`
  // (allocated by the caller before the agreement).
  unsigned char* acc = nullptr;
  if (leader) acc = result_here ? static_cast<unsigned char*>(recvbuf) : spare.data();
  const auto* src = static_cast<const unsigned char*>(in_place ? recvbuf : sendbuf);
  const std::size_t per_round = std::max<std::size_t>(1, hs.slot() / eb);
  for (std::size_t first = 0; first < red.count; first += per_round) {
    const std::size_t cnt = std::min(per_round, red.count - first);
    const std::size_t c = cnt * eb;
    // In place, the contribution is in the slot before the result overwrites it.
    std::memcpy(hs.out(c), src + first * eb, c);
    next_round(hs, Call::NodeStep);
    if (!leader) continue;
    fold_slots(hs, red, dtype, op, acc + first * eb, cnt);
  }
  const int root_node = root < 0 ? -1 : hs.node_of(root);
  if (leader) {
    const bool at_root_leader = root_node < 0 || hs.node_of(team.myid()) == root_node;
    mpi_reduce_pieces(hs.leaders(), acc, at_root_leader ? acc : nullptr, at_root_leader, red, root_node);
  }
  // The leader sends from what it folded; the others receive into recvbuf.
  auto* buf = reinterpret_cast<char*>(leader ? acc : static_cast<unsigned char*>(recvbuf));
  if (root < 0) slot_bcast(hs, Call::NodeStep, buf, bytes, 0);
  else if (hs.node_of(team.myid()) == root_node && hs.rank_on_node(root) != 0)
    slot_bcast(hs, Call::NodeStep, buf, bytes, 0, hs.rank_on_node(root));
}

// dart_reduce (root given) and dart_allreduce (root NULL).
void reduce(const void* sendbuf, void* recvbuf, std::size_t nelem, dart_datatype_t dtype, dart_operation_t op,
            const dart_team_unit_t* root_arg, dart_team_t teamid) {
  Team& team = rt().team(teamid);
  if (NodeSync* ns = node_sync(team)) return reduce_node(*ns, team, sendbuf, recvbuf, nelem, dtype, op, root_arg);
  const bool agreeing = checks_on(team);
  Packet pk;
  Reduction red;
  int root = -1;
  bool result_here = false, in_place = false, fused = false, via_leaders = false;
  std::size_t bytes = 0;
  NodeSync* hs = node_step_sync(team);
  std::vector<unsigned char> spare;  // a leader's partial result, if it has no recvbuf
  agree(team, agreeing, pk, [&] {
    if (root_arg) root = root_of(team, *root_arg);
    red = reduction_of(dtype, op, nelem);
    bytes = checked_bytes(red.count, red.elem.bytes);
    result_here = root < 0 || team.myid() == root;
    if (result_here) require_buf(recvbuf, nelem, bytes, root < 0 ? "recvbuf" : "recvbuf (at the root)");
    // The spec lets an implementation treat sendbuf == recvbuf as in place.
    in_place = result_here && sendbuf == recvbuf;
    if (!in_place) require_buf(sendbuf, nelem, bytes, "sendbuf");
    // Allocated here, so that running out of memory fails the call on
    // every member instead of leaving the leader's node waiting for it.
    via_leaders = op < DART_OP_LAST && through_leaders(hs, root_arg ? Call::Reduce : Call::Allreduce, bytes);
    if (via_leaders && hs->leaders() != MPI_COMM_NULL && !result_here) spare.resize(bytes);
    if (!agreeing) return;
    // Small reductions of basic types with predefined operations travel in
    // the packet: the agreement computes them.
    const bool user = op >= DART_OP_LAST;
    const bool basic = is_basic_type(dtype);
    fused = !user && basic && bytes <= kPayloadBytes;
    pk.fingerprint(root_arg ? Kind::Reduce : Kind::Allreduce, root, fused,
                   user ? kUserOpCode : static_cast<std::uint64_t>(op), nelem,
                   basic ? static_cast<std::uint64_t>(dtype) : ((std::uint64_t{1} << 62) | red.elem.bytes));
    if (fused) copy_bytes(pk.payload(), sendbuf, bytes);
  });
  if (fused) {
    if (result_here) copy_bytes(recvbuf, pk.payload(), bytes);
    return;
  }
  // MPI ignores recvbuf elsewhere; passing NULL keeps its alias checks quiet.
  void* result = result_here ? recvbuf : nullptr;
  if (via_leaders) return reduce_leaders(*hs, team, sendbuf, result, in_place, red, dtype, op, root, spare);
  mpi_reduce_pieces(team.comm(), sendbuf, result, in_place, red, root);
  if (result && team.size() == 1 && is_logical_op(op)) to_truth_values(result, nelem, dtype);
}

}  // namespace

extern "C" {

dart_ret_t dart_barrier(dart_team_t team) {
  return entry("dart_barrier", [&] {
    Team& t = rt().team(team);
    // Stores to the caller's own portion made before the barrier must be
    // visible to loads and gets of other units after it. On one node the
    // meeting's release store and acquire loads order them (a unit that
    // sees a member arrive sees that member's earlier stores); elsewhere
    // the MPI calls do not promise it for shared windows, hence the fences.
    if (NodeSync* ns = node_sync(t)) {
      ns->throw_on(ns->meet(Call::Barrier, Fingerprint{}, true), Call::Barrier);
      return;
    }
    std::atomic_thread_fence(std::memory_order_seq_cst);
    if (node_step_sync(t)) {
      // Across nodes: the barrier is an agreement with nothing to carry.
      Packet pk;
      agree(t, true, pk, [&] { pk.fingerprint(Kind::Barrier, -1, false, 0, 0, 0); });
    } else {
      activity::InMpi in_mpi;
      mpi_check(MPI_Barrier(t.comm()), "MPI_Barrier");
    }
    std::atomic_thread_fence(std::memory_order_seq_cst);
  });
}

dart_ret_t dart_bcast(void* buf, size_t nelem, dart_datatype_t dtype, dart_team_unit_t root, dart_team_t team) {
  return entry("dart_bcast", [&] { bcast(buf, nelem, dtype, root, team); });
}

dart_ret_t dart_scatter(const void* sendbuf, void* recvbuf, size_t nelem, dart_datatype_t dtype, dart_team_unit_t root,
                        dart_team_t team) {
  return entry("dart_scatter", [&] { scatter(sendbuf, recvbuf, nelem, dtype, root, team); });
}

dart_ret_t dart_gather(const void* sendbuf, void* recvbuf, size_t nelem, dart_datatype_t dtype, dart_team_unit_t root,
                       dart_team_t team) {
  return entry("dart_gather", [&] { gather(sendbuf, recvbuf, nelem, dtype, root, team); });
}

dart_ret_t dart_allgather(const void* sendbuf, void* recvbuf, size_t nelem, dart_datatype_t dtype, dart_team_t team) {
  return entry("dart_allgather", [&] { allgather(sendbuf, recvbuf, nelem, dtype, team); });
}

dart_ret_t dart_allgatherv(const void* sendbuf, size_t nsendelem, dart_datatype_t dtype, void* recvbuf,
                           const size_t* nrecvelem, const size_t* recvdispls, dart_team_t teamid) {
  return entry("dart_allgatherv",
               [&] { allgatherv(sendbuf, nsendelem, dtype, recvbuf, nrecvelem, recvdispls, teamid); });
}

dart_ret_t dart_allreduce(const void* sendbuf, void* recvbuf, size_t nelem, dart_datatype_t dtype, dart_operation_t op,
                          dart_team_t team) {
  return entry("dart_allreduce", [&] { reduce(sendbuf, recvbuf, nelem, dtype, op, nullptr, team); });
}

dart_ret_t dart_alltoall(const void* sendbuf, void* recvbuf, size_t nelem, dart_datatype_t dtype, dart_team_t team) {
  return entry("dart_alltoall", [&] { alltoall(sendbuf, recvbuf, nelem, dtype, team); });
}

dart_ret_t dart_reduce(const void* sendbuf, void* recvbuf, size_t nelem, dart_datatype_t dtype, dart_operation_t op,
                       dart_team_unit_t root, dart_team_t team) {
  return entry("dart_reduce", [&] { reduce(sendbuf, recvbuf, nelem, dtype, op, &root, team); });
}

}  // extern "C"
