// The node engine's collectives but the reductions (node_coll.hpp), and
// single copy's second meeting.
#include "coll/node_coll.hpp"

#include "coll/pieces.hpp"
#include "core/error.hpp"
#include "core/log.hpp"
#include "team/team.hpp"

#include <algorithm>
#include <cerrno>
#include <string>
#include <vector>

namespace dart::coll {

namespace {

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

}  // namespace

bool SingleCopy::finish(Call call) {
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

void slot_bcast(NodeSync& ns, Call call, char* buf, std::size_t bytes, int src, int dst) {
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

}  // namespace dart::coll
