// The node engine's reductions (node_coll.hpp): dart_reduce and
// dart_allreduce of a team on one node, through the slots or by single
// copy, folded in team order.
#include "coll/node_coll.hpp"

#include "coll/agreement.hpp"
#include "coll/pieces.hpp"
#include "coll/types.hpp"
#include "core/error.hpp"
#include "team/team.hpp"

#include <algorithm>
#include <cerrno>
#include <new>
#include <optional>
#include <vector>

namespace dart::coll {

namespace {

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

}  // namespace

void fold_slots(const NodeSync& ns, const Reduction& red, dart_datatype_t dtype, dart_operation_t op,
                unsigned char* acc, std::size_t cnt) {
  const std::size_t c = cnt * red.elem.bytes;
  fold_in_order(red, dtype, op, ns.size(), acc, nullptr, cnt,
                [&](int m, unsigned char*) { return ns.in(m, c); });
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
    // itself (see alltoall_node in node_coll.cpp): an in-place member folds
    // into `staged`, allocated before the meeting.
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

}  // namespace dart::coll
