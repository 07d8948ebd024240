// Collectives of DART against the MPI collectives they stand for: every
// DART collective is called on the same data as the matching raw MPI
// collective (on MPI_COMM_WORLD, or on a communicator split off it with the
// members of a sub-team in the same order), and every unit compares the
// two results byte for byte, guards around each buffer included, so a
// write outside the result (an overrun, a non-root's buffer, a gap of
// allgatherv) shows up as well. In-place forms whose outcome does not
// differ from the separate-buffer form are compared with MPI's result of
// that form, which halves the MPI calls (each costs milliseconds under
// MPICH on more ranks than cores).
//
// Sizes: the block sizes in bytes below straddle the limits an
// implementation may switch at (per-unit shared-memory slots of 16-64 KiB,
// rounds of a few hundred KiB, MPI above): 0, 1, 7, 8, 9, 63, 64, 65, 1000,
// 4099, 16384, 16385, 65544 and 1 MiB. Data movement (dart_bcast,
// dart_scatter, dart_gather, dart_allgather, dart_allgatherv, dart_alltoall)
// runs at each size with DART_TYPE_BYTE and with a 12-byte custom type
// (so element boundaries fall inside a slot), roots first and last, and the
// in-place forms of the spec (allgather and alltoall also with only some
// units in place, which the spec allows and MPI does not). Reductions (dart_allreduce, dart_reduce) run
// at each size rounded up to whole elements: SUM, MIN, MAX, PROD on int,
// long long and double, BAND and BXOR on unsigned, DART_OP_MINMAX on int
// and double (against MPI's MIN and MAX of the same pairs), a commutative
// user operation and a non-commutative one (composition of affine maps,
// whose result depends on the team order), and user operations on
// elements larger than a slot. Floating-point sums and products must be
// bit-identical on every unit and equal MPI's within a relative tolerance
// (MPI and DART may associate differently); everything else must equal
// MPI exactly.
//
// Teams: DART_TEAM_ALL, the even units, and the units but the first (a
// team whose ids differ from the global ones, so a root given as a global
// id or a slot indexed by one would be caught). A team's order is always
// ascending global ids (dart_team_create), so no team of reversed order
// exists to test.
//
// Also: dart_barrier orders a unit's local stores before other units'
// dart_get (the guarantee of the spec), and a long run of small
// collectives on changing data -- bcast with a moving root, allreduce,
// reduce, barrier, and a second team interleaved -- each result checked,
// which is where an implementation that reuses slots would lose or mix up
// a round.
#include "collectives_common.hpp"

#include <mpi.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>

namespace {

using namespace colltest;

// ---- teams with their MPI twin -------------------------------------------------------

// A DART team and an MPI communicator of the same members in the same
// order (team-relative id == rank in comm). Non-members hold neither.
struct TwinTeam {
  bool member = false;
  dart_team_t id = DART_TEAM_NULL;
  MPI_Comm comm = MPI_COMM_NULL;
  int me = -1;
  int n = 0;
  std::string name;
  bool owned = false;  // created here, destroyed by release()

  void release() {
    if (owned && member) {
      CHECK_OK(dart_team_destroy(&id));
      MPI_Comm_free(&comm);
    }
    member = false;
  }
};

TwinTeam team_all() {
  TwinTeam t;
  t.member = true;
  t.id = DART_TEAM_ALL;
  t.comm = MPI_COMM_WORLD;
  const TeamView v = view_of(DART_TEAM_ALL);
  t.me = v.me;
  t.n = v.n;
  t.name = "DART_TEAM_ALL";
  // The comparison relies on DART's global ids being the ranks of
  // MPI_COMM_WORLD.
  dart_global_unit_t g;
  CHECK_OK(dart_myid(&g));
  BOOST_REQUIRE_EQUAL(g.id, mpitest::world_rank());
  return t;
}

// Collective over DART_TEAM_ALL: the team of the given global ids (which
// the team orders ascending) and its communicator.
TwinTeam team_of(std::vector<int> members, const std::string& name) {
  std::sort(members.begin(), members.end());
  const int me = mpitest::world_rank();
  dart_group_t group = DART_GROUP_NULL;
  REQUIRE_OK(dart_group_create(&group));
  for (const int u : members) CHECK_OK(dart_group_addmember(group, DART_GLOBAL_UNIT_ID(u)));
  TwinTeam t;
  t.owned = true;
  t.name = name;
  REQUIRE_OK(dart_team_create(DART_TEAM_ALL, group, &t.id));
  CHECK_OK(dart_group_destroy(&group));
  const auto pos = std::find(members.begin(), members.end(), me);
  t.member = pos != members.end();
  MPI_Comm_split(MPI_COMM_WORLD, t.member ? 0 : MPI_UNDEFINED, me, &t.comm);
  if (t.member) {
    REQUIRE_RANK(t.id != DART_TEAM_NULL);
    const TeamView v = view_of(t.id);
    t.me = v.me;
    t.n = v.n;
    int rank = -1, size = 0;
    MPI_Comm_rank(t.comm, &rank);
    MPI_Comm_size(t.comm, &size);
    BOOST_REQUIRE_EQUAL(t.me, rank);
    BOOST_REQUIRE_EQUAL(t.n, size);
    BOOST_REQUIRE_EQUAL(t.me, static_cast<int>(pos - members.begin()));
  } else {
    CHECK_EQ(t.id, DART_TEAM_NULL);
  }
  return t;
}

// The sub-teams every case runs on besides DART_TEAM_ALL (none on one unit,
// where they would be DART_TEAM_ALL again).
std::vector<TwinTeam> sub_teams(int n) {
  std::vector<TwinTeam> teams;
  if (n < 2) return teams;
  std::vector<int> evens, tail;
  for (int u = 0; u < n; u += 2) evens.push_back(u);
  for (int u = 1; u < n; ++u) tail.push_back(u);
  teams.push_back(team_of(evens, "the even units"));
  teams.push_back(team_of(tail, "the units but the first"));
  return teams;
}

// ---- sizes, data and buffers --------------------------------------------------------

const std::vector<std::size_t> kSizes{0, 1, 7, 8, 9, 63, 64, 65, 1000, 4096 + 3, 16384, 16385, 65536 + 8, 1 << 20};

// splitmix64 words of (unit, case, position): every byte of a block
// differs between units, cases and places.
std::uint64_t word(int unit, std::uint64_t salt, std::size_t pos) {
  return mix((static_cast<std::uint64_t>(unit + 16) << 48) ^ (salt << 32) ^ static_cast<std::uint64_t>(pos));
}

void fill_bytes(unsigned char* p, std::size_t len, int unit, std::uint64_t salt) {
  std::size_t i = 0;
  for (; i + 8 <= len; i += 8) {
    const std::uint64_t w = word(unit, salt, i / 8);
    std::memcpy(p + i, &w, 8);
  }
  if (i < len) {
    const std::uint64_t w = word(unit, salt, i / 8);
    std::memcpy(p + i, &w, len - i);
  }
}

// What a buffer holds where nothing may be written: a fixed pattern that
// no collective of these tests produces.
void fill_sentinel(unsigned char* p, std::size_t len) {
  std::size_t i = 0;
  for (; i + 8 <= len; i += 8) {
    const std::uint64_t w = 0xa5c3e1f00f1e3c5aULL ^ (i * 0x0101010101010101ULL);
    std::memcpy(p + i, &w, 8);
  }
  for (; i < len; ++i) p[i] = static_cast<unsigned char>(0x5a ^ i);
}

// A buffer with guards on both sides: the caller sees `len` bytes at p();
// the guards and everything else start out as the same sentinel bytes in
// the DART buffer and in its MPI twin, so comparing the whole of both also
// compares what must stay untouched. The storage is recycled: on more
// ranks than cores, the page faults of a fresh megabyte buffer cost as
// much as the collective that fills it, while the other ranks spin.
class Buf {
 public:
  static constexpr std::size_t kGuard = 64;

  explicit Buf(std::size_t len) : len_(len) {
    auto& free = pool();
    if (!free.empty()) {
      raw_ = std::move(free.back());
      free.pop_back();
    }
    raw_.resize(len + 2 * kGuard);
    fill_sentinel(raw_.data(), raw_.size());
  }
  ~Buf() {
    if (pool().size() < 16) pool().push_back(std::move(raw_));
  }
  Buf(const Buf&) = delete;
  Buf& operator=(const Buf&) = delete;

  unsigned char* p() { return raw_.data() + kGuard; }
  const unsigned char* p() const { return raw_.data() + kGuard; }
  std::size_t len() const { return len_; }
  const std::vector<unsigned char>& raw() const { return raw_; }

 private:
  static std::vector<std::vector<unsigned char>>& pool() {
    static std::vector<std::vector<unsigned char>> free;
    return free;
  }
  std::size_t len_;
  std::vector<unsigned char> raw_;
};

// One check per buffer: the DART result against MPI's, with the first
// differing byte (guards count as negative or past-the-end offsets).
bool same_bytes(const Buf& dart, const Buf& mpi, const std::string& what) {
  const auto& a = dart.raw();
  const auto& b = mpi.raw();
  BOOST_REQUIRE_EQUAL(a.size(), b.size());
  if (std::memcmp(a.data(), b.data(), a.size()) == 0) return true;
  std::size_t bad = 0, first = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i] != b[i] && bad++ == 0) first = i;
  BOOST_CHECK_MESSAGE(bad == 0, "rank " << mpitest::world_rank() << ": " << what << ": " << bad << " of "
                                        << dart.len() << " bytes differ from MPI's, the first at offset "
                                        << static_cast<long long>(first) - static_cast<long long>(Buf::kGuard));
  return false;
}

void copy_into(Buf& to, const Buf& from) { std::memcpy(to.p(), from.p(), from.len()); }

// An element type of both libraries.
struct ElemType {
  dart_datatype_t dart;
  MPI_Datatype mpi;
  std::size_t size;
  const char* name;
};

// A contiguous custom type of `bytes` bytes in both libraries.
struct CustomType {
  explicit CustomType(std::size_t bytes) {
    REQUIRE_OK(dart_type_create_custom(bytes, &t.dart));
    MPI_Type_contiguous(static_cast<int>(bytes), MPI_BYTE, &t.mpi);
    MPI_Type_commit(&t.mpi);
    t.size = bytes;
  }
  ~CustomType() {
    CHECK_OK(dart_type_destroy(&t.dart));
    MPI_Type_free(&t.mpi);
  }
  CustomType(const CustomType&) = delete;
  CustomType& operator=(const CustomType&) = delete;
  ElemType t{};
};

std::string label(const std::string& call, const ElemType& e, std::size_t nelem, const TwinTeam& t,
                  const std::string& extra = "") {
  std::ostringstream s;
  s << call << " " << e.name << " x " << nelem << " (" << nelem * e.size << " bytes per block) on " << t.name << " ("
    << t.n << " units)" << extra;
  return s.str();
}

int as_int(std::size_t v) { return static_cast<int>(v); }

// ---- data movement ----------------------------------------------------------------------

void check_bcast(const TwinTeam& t, const ElemType& e, std::size_t nelem, std::uint64_t salt) {
  const std::size_t len = nelem * e.size;
  for (const int root : {0, t.n - 1}) {
    Buf d(len), m(len);
    if (t.me == root) {
      fill_bytes(d.p(), len, root, salt);
      copy_into(m, d);
    }
    CHECK_OK(dart_bcast(d.p(), nelem, e.dart, DART_TEAM_UNIT_ID(root), t.id));
    MPI_Bcast(m.p(), as_int(nelem), e.mpi, root, t.comm);
    same_bytes(d, m, label("dart_bcast", e, nelem, t, ", root " + std::to_string(root)));
    if (t.n == 1) break;
  }
}

void check_scatter_gather(const TwinTeam& t, const ElemType& e, std::size_t nelem, std::uint64_t salt) {
  const std::size_t blk = nelem * e.size;
  const std::size_t all = blk * static_cast<std::size_t>(t.n);
  for (const int root : {0, t.n - 1}) {
    const bool at_root = t.me == root;
    const std::string r = ", root " + std::to_string(root);
    const dart_team_unit_t troot = DART_TEAM_UNIT_ID(root);
    Buf blocks(all);
    fill_bytes(blocks.p(), all, root, salt);

    // scatter; sendbuf NULL off the root.
    {
      Buf sd(all), sm(all), rd(blk), rm(blk);
      if (at_root) {
        copy_into(sd, blocks);
        copy_into(sm, blocks);
      }
      CHECK_OK(dart_scatter(at_root ? sd.p() : nullptr, rd.p(), nelem, e.dart, troot, t.id));
      MPI_Scatter(sm.p(), as_int(nelem), e.mpi, rm.p(), as_int(nelem), e.mpi, root, t.comm);
      same_bytes(rd, rm, label("dart_scatter", e, nelem, t, r));
      same_bytes(sd, sm, label("dart_scatter (send buffer)", e, nelem, t, r));
    }
    // scatter with the root's block in place.
    {
      Buf sd(all), sm(all), rd(blk), rm(blk);
      if (at_root) {
        copy_into(sd, blocks);
        copy_into(sm, blocks);
      }
      void* dest = at_root ? static_cast<void*>(sd.p() + static_cast<std::size_t>(root) * blk) : rd.p();
      CHECK_OK(dart_scatter(at_root ? sd.p() : nullptr, dest, nelem, e.dart, troot, t.id));
      MPI_Scatter(sm.p(), as_int(nelem), e.mpi, at_root ? MPI_IN_PLACE : rm.p(), as_int(nelem), e.mpi, root, t.comm);
      same_bytes(rd, rm, label("dart_scatter in place", e, nelem, t, r));
      same_bytes(sd, sm, label("dart_scatter in place (send buffer)", e, nelem, t, r));
    }

    Buf mine(blk);
    fill_bytes(mine.p(), blk, t.me, salt + 1);
    // MPI's gather, whose result both forms below must match: every block
    // at the root, nothing written elsewhere.
    Buf rm(all);
    MPI_Gather(mine.p(), as_int(nelem), e.mpi, rm.p(), as_int(nelem), e.mpi, root, t.comm);
    // gather; a recvbuf off the root stays untouched.
    {
      Buf rd(all);
      CHECK_OK(dart_gather(mine.p(), rd.p(), nelem, e.dart, troot, t.id));
      same_bytes(rd, rm, label("dart_gather", e, nelem, t, r));
    }
    // gather with the root's block in place; recvbuf NULL off the root.
    {
      Buf rd(all);
      if (at_root) std::memcpy(rd.p() + static_cast<std::size_t>(root) * blk, mine.p(), blk);
      const void* send = at_root ? static_cast<const void*>(rd.p() + static_cast<std::size_t>(root) * blk) : mine.p();
      CHECK_OK(dart_gather(send, at_root ? rd.p() : nullptr, nelem, e.dart, troot, t.id));
      same_bytes(rd, rm, label("dart_gather in place", e, nelem, t, r));
    }
    if (t.n == 1) break;
  }
}

void check_allgather(const TwinTeam& t, const ElemType& e, std::size_t nelem, std::uint64_t salt) {
  const std::size_t blk = nelem * e.size;
  const std::size_t all = blk * static_cast<std::size_t>(t.n);
  const std::size_t own = static_cast<std::size_t>(t.me) * blk;
  Buf mine(blk);
  fill_bytes(mine.p(), blk, t.me, salt);
  // MPI's result, the same for every form below.
  Buf rm(all);
  MPI_Allgather(mine.p(), as_int(nelem), e.mpi, rm.p(), as_int(nelem), e.mpi, t.comm);
  // form 0: separate buffers; 1: sendbuf NULL; 2: sendbuf == recvbuf;
  // 3: in place on odd units only (the spec lets each unit choose).
  for (int form = 0; form < 4; ++form) {
    Buf rd(all);
    const int f = form < 3 ? form : (t.me % 2 == 1 ? 2 : 0);
    if (f > 0) std::memcpy(rd.p() + own, mine.p(), blk);
    const void* send = f == 0 ? static_cast<const void*>(mine.p()) : f == 1 ? nullptr : rd.p();
    CHECK_OK(dart_allgather(send, rd.p(), nelem, e.dart, t.id));
    same_bytes(rd, rm, label("dart_allgather", e, nelem, t, ", form " + std::to_string(form)));
  }
}

void check_allgatherv(const TwinTeam& t, const ElemType& e, std::size_t nelem, std::uint64_t salt) {
  // Unit u contributes nelem + u elements, every third unit (1, 4, ...)
  // none; blocks in reverse team order with gaps of three elements.
  const auto n = static_cast<std::size_t>(t.n);
  std::vector<size_t> counts(n), displs(n);
  std::vector<int> icounts(n), idispls(n);
  std::size_t cursor = 0;
  for (std::size_t u = n; u-- > 0;) {
    counts[u] = u % 3 == 1 ? 0 : nelem + u;
    displs[u] = cursor;
    cursor += counts[u] + 3;
    icounts[u] = as_int(counts[u]);
    idispls[u] = as_int(displs[u]);
  }
  const auto me = static_cast<std::size_t>(t.me);
  Buf mine(counts[me] * e.size);
  fill_bytes(mine.p(), mine.len(), t.me, salt);
  // MPI's result (gaps untouched), the same for every form below.
  Buf rm(cursor * e.size);
  MPI_Allgatherv(mine.p(), icounts[me], e.mpi, rm.p(), icounts.data(), idispls.data(), e.mpi, t.comm);
  // form 0: separate buffers; 1: sendbuf NULL; 2: sendbuf == recvbuf
  // (both in place: the contribution is the own block of recvbuf).
  for (int form = 0; form < 3; ++form) {
    Buf rd(cursor * e.size);
    if (form > 0) std::memcpy(rd.p() + displs[me] * e.size, mine.p(), mine.len());
    const void* send = form == 0 ? static_cast<const void*>(mine.p()) : form == 1 ? nullptr : rd.p();
    CHECK_OK(dart_allgatherv(send, counts[me], e.dart, rd.p(), counts.data(), displs.data(), t.id));
    same_bytes(rd, rm, label("dart_allgatherv", e, nelem, t, ", form " + std::to_string(form)));
  }
}

void check_alltoall(const TwinTeam& t, const ElemType& e, std::size_t nelem, std::uint64_t salt) {
  const std::size_t all = nelem * e.size * static_cast<std::size_t>(t.n);
  Buf send(all);
  fill_bytes(send.p(), all, t.me, salt);
  // MPI's result, the same for every form below.
  Buf rm(all);
  MPI_Alltoall(send.p(), as_int(nelem), e.mpi, rm.p(), as_int(nelem), e.mpi, t.comm);
  // form 0: separate buffers; 1: sendbuf NULL; 2: sendbuf == recvbuf;
  // 3: in place on odd units only (the spec lets each unit choose).
  for (int form = 0; form < 4; ++form) {
    Buf rd(all);
    const int f = form < 3 ? form : (t.me % 2 == 1 ? 2 : 0);
    if (f > 0) copy_into(rd, send);
    const void* s = f == 0 ? static_cast<const void*>(send.p()) : f == 1 ? nullptr : rd.p();
    CHECK_OK(dart_alltoall(s, rd.p(), nelem, e.dart, t.id));
    same_bytes(rd, rm, label("dart_alltoall", e, nelem, t, ", form " + std::to_string(form)));
  }
}

void check_data_movement(const TwinTeam& t) {
  CustomType rec(12);
  rec.t.name = "custom12";
  const ElemType types[] = {{DART_TYPE_BYTE, MPI_BYTE, 1, "BYTE"}, rec.t};
  std::uint64_t salt = 100;
  for (const ElemType& e : types) {
    for (const std::size_t bytes : kSizes) {
      const std::size_t nelem = (bytes + e.size - 1) / e.size;
      check_bcast(t, e, nelem, salt++);
      check_scatter_gather(t, e, nelem, salt += 2);
      check_allgather(t, e, nelem, salt++);
      check_allgatherv(t, e, nelem, salt++);
      check_alltoall(t, e, nelem, salt++);
    }
  }
}

// ---- reductions -------------------------------------------------------------------------

const char* op_name(dart_operation_t op) {
  switch (op) {
    case DART_OP_MIN: return "MIN";
    case DART_OP_MAX: return "MAX";
    case DART_OP_MINMAX: return "MINMAX";
    case DART_OP_SUM: return "SUM";
    case DART_OP_PROD: return "PROD";
    case DART_OP_BAND: return "BAND";
    case DART_OP_BXOR: return "BXOR";
    default: return "user";
  }
}

MPI_Op mpi_op_of(dart_operation_t op) {
  switch (op) {
    case DART_OP_MIN: return MPI_MIN;
    case DART_OP_MAX: return MPI_MAX;
    case DART_OP_SUM: return MPI_SUM;
    case DART_OP_PROD: return MPI_PROD;
    case DART_OP_BAND: return MPI_BAND;
    case DART_OP_BXOR: return MPI_BXOR;
    default: return MPI_OP_NULL;
  }
}

// Operands for which no integer result overflows (4 units at most are
// assumed for PROD; more would only wrap unsigned-like in MPI and DART
// alike, but signed overflow is undefined in a reduction written in C++),
// and floating-point sums and products have no cancellation, so that the
// relative tolerance is meaningful.
template <class T>
T operand(dart_operation_t op, int unit, std::size_t pos, std::uint64_t salt) {
  const std::uint64_t h = word(unit, salt, pos);
  if constexpr (std::is_floating_point_v<T>) {
    const double frac = static_cast<double>(h >> 11) * 0x1p-53;  // [0, 1), all 53 bits
    switch (op) {
      case DART_OP_SUM: return static_cast<T>(std::ldexp(1.0 + frac, static_cast<int>(h % 7) - 3));
      case DART_OP_PROD: return static_cast<T>((h & 1 ? -1.0 : 1.0) * (0.75 + 0.5 * frac));
      default: return static_cast<T>((frac - 0.5) * std::ldexp(1.0, static_cast<int>(h % 41) - 20));
    }
  } else {
    switch (op) {
      case DART_OP_SUM:
        // a quarter of the range: four units cannot overflow
        return static_cast<T>(static_cast<T>(h) / 4);
      case DART_OP_PROD: {
        // |v| <= 2^(bits/4 - 1): the product of four fits
        const int bits = static_cast<int>(sizeof(T) * 8 / 4 - 1);
        const auto mag = static_cast<long long>((h >> 8) % (1ULL << bits)) + 1;
        return static_cast<T>(h & 1 ? -mag : mag);
      }
      default: return static_cast<T>(h);
    }
  }
}

// The results of one reduction on one unit: allreduce, allreduce in place
// (sendbuf == recvbuf), reduce to the first unit (a recvbuf elsewhere stays
// untouched) and reduce to the last one in place at the root (recvbuf
// NULL elsewhere), and MPI_Allreduce's, which every one of them must
// match.
struct Results {
  Buf all, in_place, to_first, to_last, mpi;
  Results(const Results&) = delete;
  explicit Results(std::size_t len) : all(len), in_place(len), to_first(len), to_last(len), mpi(len) {}
};

void run_dart_reductions(const TwinTeam& t, const Buf& send, std::size_t nelem, dart_datatype_t dt, dart_operation_t op,
                         Results& r) {
  CHECK_OK(dart_allreduce(send.p(), r.all.p(), nelem, dt, op, t.id));
  copy_into(r.in_place, send);
  CHECK_OK(dart_allreduce(r.in_place.p(), r.in_place.p(), nelem, dt, op, t.id));
  CHECK_OK(dart_reduce(send.p(), r.to_first.p(), nelem, dt, op, DART_TEAM_UNIT_ID(0), t.id));
  // In place at the last unit: under MPICH 4.0-4.1.1 MPI_Reduce itself
  // crashes there (pmodels/mpich#6540), which DART's MPI path works around.
  const bool last = t.me == t.n - 1;
  if (last) copy_into(r.to_last, send);
  CHECK_OK(dart_reduce(last ? r.to_last.p() : send.p(), last ? r.to_last.p() : nullptr, nelem, dt, op,
                       DART_TEAM_UNIT_ID(t.n - 1), t.id));
}

// What a non-root's receive buffer must still hold: the sentinel bytes.
void check_untouched(const Buf& b, const std::string& what) {
  Buf fresh(b.len());
  same_bytes(b, fresh, what + " (not the root: untouched)");
}

// Exact comparison with MPI for every result.
void check_exact(const TwinTeam& t, const Results& r, const std::string& what) {
  same_bytes(r.all, r.mpi, "dart_allreduce " + what);
  same_bytes(r.in_place, r.mpi, "dart_allreduce in place " + what);
  if (t.me == 0) same_bytes(r.to_first, r.mpi, "dart_reduce to 0 " + what);
  else check_untouched(r.to_first, "dart_reduce to 0 " + what);
  if (t.me == t.n - 1) same_bytes(r.to_last, r.mpi, "dart_reduce to " + std::to_string(t.n - 1) + " " + what);
}

// The same result bits on every member: unit 0's bytes against each
// unit's, with MPI_Allgather of the results.
void check_identical_everywhere(const TwinTeam& t, const Buf& b, const std::string& what) {
  static std::vector<unsigned char> every;  // kept: see Buf
  every.resize(b.len() * static_cast<std::size_t>(t.n));
  MPI_Allgather(b.p(), as_int(b.len()), MPI_BYTE, every.data(), as_int(b.len()), MPI_BYTE, t.comm);
  int differs = -1;
  for (int u = 1; u < t.n && differs < 0; ++u)
    if (std::memcmp(every.data(), every.data() + static_cast<std::size_t>(u) * b.len(), b.len()) != 0) differs = u;
  BOOST_CHECK_MESSAGE(differs < 0, "rank " << mpitest::world_rank() << ": " << what << ": unit " << differs
                                           << " holds other bits than unit 0");
}

template <class T>
void check_close(const Buf& got, const Buf& mpi, std::size_t nelem, const std::string& what) {
  constexpr double tol = 1e-12;
  std::size_t bad = 0, first = 0;
  for (std::size_t i = 0; i < nelem; ++i) {
    T a, b;
    std::memcpy(&a, got.p() + i * sizeof(T), sizeof(T));
    std::memcpy(&b, mpi.p() + i * sizeof(T), sizeof(T));
    const double d = std::fabs(static_cast<double>(a) - static_cast<double>(b));
    if (!(d <= tol * std::fabs(static_cast<double>(b))) && bad++ == 0) first = i;
  }
  BOOST_CHECK_MESSAGE(bad == 0, "rank " << mpitest::world_rank() << ": " << what << ": " << bad << " of " << nelem
                                        << " elements further than " << tol << " (relative) from MPI's, the first at "
                                        << first);
  // Guards and the bytes outside the elements exactly as MPI left them.
  const auto& a = got.raw();
  const auto& b = mpi.raw();
  const bool guards = std::equal(a.begin(), a.begin() + Buf::kGuard, b.begin()) &&
                      std::equal(a.end() - Buf::kGuard, a.end(), b.end() - Buf::kGuard);
  BOOST_CHECK_MESSAGE(guards, "rank " << mpitest::world_rank() << ": " << what << ": written outside the result");
}

// Floating-point sums and products: the same bits on every unit (for each
// form) and close to MPI's.
template <class T>
void check_float(const TwinTeam& t, const Results& r, std::size_t nelem, const std::string& what) {
  check_identical_everywhere(t, r.all, "dart_allreduce " + what);
  check_identical_everywhere(t, r.in_place, "dart_allreduce in place " + what);
  check_close<T>(r.all, r.mpi, nelem, "dart_allreduce " + what);
  check_close<T>(r.in_place, r.mpi, nelem, "dart_allreduce in place " + what);
  if (t.me == 0) check_close<T>(r.to_first, r.mpi, nelem, "dart_reduce to 0 " + what);
  else check_untouched(r.to_first, "dart_reduce to 0 " + what);
  if (t.me == t.n - 1) check_close<T>(r.to_last, r.mpi, nelem, "dart_reduce to last " + what);
}

template <class T>
void check_predefined(const TwinTeam& t, dart_datatype_t dt, MPI_Datatype mt, const char* tname, dart_operation_t op,
                      std::size_t bytes, std::uint64_t salt) {
  std::size_t nelem = (bytes + sizeof(T) - 1) / sizeof(T);
  if (op == DART_OP_MINMAX) nelem += nelem % 2;  // pairs
  const std::size_t len = nelem * sizeof(T);
  const std::string what = std::string(op_name(op)) + " " + tname + " x " + std::to_string(nelem) + " on " + t.name +
                           " (" + std::to_string(t.n) + " units)";
  Buf send(len);
  for (std::size_t i = 0; i < nelem; ++i) {
    const T v = operand<T>(op, t.me, i, salt);
    std::memcpy(send.p() + i * sizeof(T), &v, sizeof(T));
  }
  Results r(len);
  run_dart_reductions(t, send, nelem, dt, op, r);
  if (op == DART_OP_MINMAX) {
    // MPI has no MINMAX: the minimum of every pair's first component and
    // the maximum of every second one, from MPI's MIN and MAX.
    Buf lo(len), hi(len);
    MPI_Allreduce(send.p(), lo.p(), as_int(nelem), mt, MPI_MIN, t.comm);
    MPI_Allreduce(send.p(), hi.p(), as_int(nelem), mt, MPI_MAX, t.comm);
    for (std::size_t p = 0; p < nelem / 2; ++p) {
      const std::size_t at_lo = (2 * p + DART_OP_MINMAX_MIN) * sizeof(T);
      const std::size_t at_hi = (2 * p + DART_OP_MINMAX_MAX) * sizeof(T);
      std::memcpy(r.mpi.p() + at_lo, lo.p() + at_lo, sizeof(T));
      std::memcpy(r.mpi.p() + at_hi, hi.p() + at_hi, sizeof(T));
    }
  } else {
    MPI_Allreduce(send.p(), r.mpi.p(), as_int(nelem), mt, mpi_op_of(op), t.comm);
  }
  if (std::is_floating_point_v<T> && (op == DART_OP_SUM || op == DART_OP_PROD)) check_float<T>(t, r, nelem, what);
  else check_exact(t, r, what);
}

// The user operations, for DART and MPI alike.
constexpr int kMod = 97;
ModSum g_mod{kMod};

void mpi_mod_sum(void* in, void* inout, int* len, MPI_Datatype*) {
  mod_sum(in, inout, static_cast<size_t>(*len), &g_mod);
}

// Composition of affine maps x -> a x + b (mod 2^64), elementwise over
// any number of Affine values: "in first, then inout" -- the order in
// which both libraries call a non-commutative operation (in holds the
// lower ranks).
void compose(const void* invec, void* inoutvec, size_t len, void* userdata) {
  // userdata: the Affine values per element (1 unless the element is an
  // array of them).
  const size_t per = userdata ? *static_cast<const size_t*>(userdata) : 1;
  const Affine* in = static_cast<const Affine*>(invec);
  Affine* inout = static_cast<Affine*>(inoutvec);
  for (size_t i = 0; i < len * per; ++i)
    inout[i] = Affine{inout[i].a * in[i].a, inout[i].a * in[i].b + inout[i].b};
}

void mpi_compose(void* in, void* inout, int* len, MPI_Datatype* dt) {
  int size = 0;
  MPI_Type_size(*dt, &size);
  size_t per = static_cast<size_t>(size) / sizeof(Affine);
  compose(in, inout, static_cast<size_t>(*len), &per);
}

void check_mod_sum(const TwinTeam& t, std::size_t bytes, std::uint64_t salt) {
  const std::size_t nelem = (bytes + sizeof(int) - 1) / sizeof(int);
  const std::size_t len = nelem * sizeof(int);
  dart_operation_t op = DART_OP_UNDEFINED;
  REQUIRE_OK(dart_op_create(&mod_sum, &g_mod, true, DART_TYPE_INT, false, &op));
  MPI_Op mop;
  MPI_Op_create(&mpi_mod_sum, 1, &mop);
  Buf send(len);
  for (std::size_t i = 0; i < nelem; ++i) {
    const int v = static_cast<int>(word(t.me, salt, i) % kMod);
    std::memcpy(send.p() + i * sizeof(int), &v, sizeof(int));
  }
  Results r(len);
  run_dart_reductions(t, send, nelem, DART_TYPE_INT, op, r);
  MPI_Allreduce(send.p(), r.mpi.p(), as_int(nelem), MPI_INT, mop, t.comm);
  check_exact(t, r, "commutative user operation INT x " + std::to_string(nelem) + " on " + t.name);
  MPI_Op_free(&mop);
  CHECK_OK(dart_op_destroy(&op));
}

// The non-commutative operation on elements of `per` Affine values each.
void check_compose(const TwinTeam& t, std::size_t per, std::size_t nelem, std::uint64_t salt) {
  CustomType ct(per * sizeof(Affine));
  size_t per_arg = per;  // outlives the operation, destroyed below
  dart_operation_t op = DART_OP_UNDEFINED;
  REQUIRE_OK(dart_op_create(&compose, &per_arg, false, ct.t.dart, false, &op));
  MPI_Op mop;
  MPI_Op_create(&mpi_compose, 0, &mop);
  const std::size_t len = nelem * ct.t.size;
  Buf send(len);
  fill_bytes(send.p(), len, t.me, salt);
  Results r(len);
  run_dart_reductions(t, send, nelem, ct.t.dart, op, r);
  MPI_Allreduce(send.p(), r.mpi.p(), as_int(nelem), ct.t.mpi, mop, t.comm);
  check_exact(t, r,
              "non-commutative user operation on " + std::to_string(ct.t.size) + "-byte elements x " +
                  std::to_string(nelem) + " on " + t.name);
  MPI_Op_free(&mop);
  CHECK_OK(dart_op_destroy(&op));
}

void check_reductions(const TwinTeam& t) {
  std::uint64_t salt = 1000;
  for (const std::size_t bytes : kSizes) {
    for (const dart_operation_t op : {DART_OP_SUM, DART_OP_MIN, DART_OP_MAX, DART_OP_PROD}) {
      check_predefined<int>(t, DART_TYPE_INT, MPI_INT, "INT", op, bytes, ++salt);
      check_predefined<long long>(t, DART_TYPE_LONGLONG, MPI_LONG_LONG, "LONGLONG", op, bytes, ++salt);
      check_predefined<double>(t, DART_TYPE_DOUBLE, MPI_DOUBLE, "DOUBLE", op, bytes, ++salt);
    }
    for (const dart_operation_t op : {DART_OP_BAND, DART_OP_BXOR})
      check_predefined<unsigned>(t, DART_TYPE_UINT, MPI_UNSIGNED, "UINT", op, bytes, ++salt);
    check_predefined<int>(t, DART_TYPE_INT, MPI_INT, "INT", DART_OP_MINMAX, bytes, ++salt);
    check_predefined<double>(t, DART_TYPE_DOUBLE, MPI_DOUBLE, "DOUBLE", DART_OP_MINMAX, bytes, ++salt);
    check_mod_sum(t, bytes, ++salt);
    check_compose(t, 1, (bytes + sizeof(Affine) - 1) / sizeof(Affine), ++salt);
  }
}

// ---- test cases ---------------------------------------------------------------------------

// Runs `fn` on DART_TEAM_ALL and on each sub-team the caller belongs to.
template <class Fn>
void on_every_team(int n, Fn&& fn) {
  TwinTeam all = team_all();
  fn(all);
  std::vector<TwinTeam> subs = sub_teams(n);
  for (TwinTeam& t : subs) {
    if (t.member) fn(t);
    t.release();
  }
  CHECK_OK(dart_barrier(DART_TEAM_ALL));
}

BOOST_FIXTURE_TEST_CASE(data_movement_matches_mpi_at_every_size, CollFixture) {
  on_every_team(n, [](const TwinTeam& t) { check_data_movement(t); });
}

BOOST_FIXTURE_TEST_CASE(reductions_match_mpi_at_every_size, CollFixture) {
  on_every_team(n, [](const TwinTeam& t) { check_reductions(t); });
}

// Elements larger than any slot (64 KiB + 16 bytes and 1 MiB + 16 bytes):
// an implementation that moves data in slots cannot split an element of a
// user operation and must hand it over whole.
BOOST_FIXTURE_TEST_CASE(user_operation_on_elements_larger_than_a_slot, CollFixture) {
  on_every_team(n, [](const TwinTeam& t) {
    std::uint64_t salt = 5000;
    for (const std::size_t per : {std::size_t{4097}, std::size_t{65537}})
      for (const std::size_t nelem : {std::size_t{1}, std::size_t{2}}) check_compose(t, per, nelem, ++salt);
  });
}

// A unit's local stores before dart_barrier are seen by other units'
// dart_get after it; a second barrier keeps the next round's stores from
// overtaking the reads.
BOOST_FIXTURE_TEST_CASE(barrier_orders_local_stores_before_remote_gets, CollFixture) {
  on_every_team(n, [](const TwinTeam& t) {
    constexpr std::size_t words = 16;
    dart_gptr_t g = DART_GPTR_NULL;
    REQUIRE_OK(dart_team_memalloc_aligned(t.id, words, DART_TYPE_ULONGLONG, &g));
    void* addr = nullptr;
    REQUIRE_OK(dart_gptr_getaddr(dartcheck::at(g, t.me), &addr));
    auto* local = static_cast<volatile std::uint64_t*>(addr);
    const long rounds = dartcheck::slow_ranks() ? 30 : 200;
    long wrong = 0;
    for (long r = 0; r < rounds; ++r) {
      for (std::size_t i = 0; i < words; ++i) local[i] = word(t.me, static_cast<std::uint64_t>(r), i);
      CHECK_OK(dart_barrier(t.id));
      const int from = (t.me + 1 + static_cast<int>(r) % t.n) % t.n;
      std::uint64_t got[words];
      CHECK_OK(dart_get_blocking(got, dartcheck::at(g, from), words, DART_TYPE_ULONGLONG, DART_TYPE_ULONGLONG));
      for (std::size_t i = 0; i < words; ++i)
        if (got[i] != word(from, static_cast<std::uint64_t>(r), i)) {
          ++wrong;
          break;
        }
      CHECK_OK(dart_barrier(t.id));
    }
    BOOST_CHECK_MESSAGE(wrong == 0, "rank " << mpitest::world_rank() << " on " << t.name << ": " << wrong << " of "
                                            << rounds << " rounds read stale data after dart_barrier");
    CHECK_OK(dart_team_memfree(g));
  });
}

// Many small collectives in a row, each on new data and each checked at
// once: bcast from a root that moves every round (sizes from 1 to 200
// bytes), allreduce and reduce with operands that change every round, a
// barrier, and every third round an allreduce on a second team whose
// members are also in the first -- a unit that runs ahead into the next
// round must not overwrite what a slow one has yet to read. The expected
// values are computed locally, so the loop runs at the speed of DART.
BOOST_FIXTURE_TEST_CASE(long_sequence_of_small_collectives, CollFixture) {
  TwinTeam all = team_all();
  std::vector<TwinTeam> subs = sub_teams(n);
  const TwinTeam* second = subs.empty() ? nullptr : &subs[0];
  // MPICH's busy-polling ranks on fewer cores spend milliseconds per
  // collective; the count matters less than the rounds following each
  // other without pause.
  const long rounds = mpitest::scaled(dartcheck::slow_ranks() ? 400 : 2000);
  long bad_bcast = 0, bad_allreduce = 0, bad_reduce = 0, bad_second = 0, failed = 0;
  std::vector<unsigned char> buf, want;
  const auto start = std::chrono::steady_clock::now();
  for (long r = 0; r < rounds; ++r) {
    const auto ur = static_cast<std::uint64_t>(r);
    // bcast: root and length change every round.
    const int root = static_cast<int>((ur * 7 + ur / all.n) % static_cast<std::uint64_t>(all.n));
    const std::size_t len = 1 + (ur * 37) % 200;
    want.resize(len);
    fill_bytes(want.data(), len, root, ur);
    if (all.me == root) buf = want;
    else buf.assign(len, 0xee);
    if (dart_bcast(buf.data(), len, DART_TYPE_BYTE, DART_TEAM_UNIT_ID(root), all.id) != DART_OK) ++failed;
    if (buf != want) ++bad_bcast;

    // allreduce and reduce of (r + 1) * (unit + 1) and r ^ unit over 1..9 elements.
    const std::size_t k = 1 + ur % 9;
    std::vector<long long> send(k), got(k, -1), expect(k, 0);
    for (std::size_t i = 0; i < k; ++i) {
      send[i] = static_cast<long long>((ur + 1) * static_cast<std::uint64_t>(all.me + 1) + i);
      for (int u = 0; u < all.n; ++u) expect[i] += static_cast<long long>((ur + 1) * static_cast<std::uint64_t>(u + 1) + i);
    }
    if (dart_allreduce(send.data(), got.data(), k, DART_TYPE_LONGLONG, DART_OP_SUM, all.id) != DART_OK) ++failed;
    if (got != expect) ++bad_allreduce;
    unsigned x = static_cast<unsigned>(r) ^ static_cast<unsigned>(all.me * 0x9e3779b9u), xr = 0, xe = 0;
    for (int u = 0; u < all.n; ++u) xe ^= static_cast<unsigned>(r) ^ static_cast<unsigned>(u * 0x9e3779b9u);
    const int rroot = all.n - 1 - root;
    if (dart_reduce(&x, &xr, 1, DART_TYPE_UINT, DART_OP_BXOR, DART_TEAM_UNIT_ID(rroot), all.id) != DART_OK) ++failed;
    if (all.me == rroot && xr != xe) ++bad_reduce;

    if (dart_barrier(all.id) != DART_OK) ++failed;

    if (second && second->member && r % 3 == 0) {
      int v = static_cast<int>(r % 1000) + second->me, s = -1, e = 0;
      for (int u = 0; u < second->n; ++u) e += static_cast<int>(r % 1000) + u;
      if (dart_allreduce(&v, &s, 1, DART_TYPE_INT, DART_OP_SUM, second->id) != DART_OK) ++failed;
      if (s != e) ++bad_second;
    }
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  BOOST_TEST_MESSAGE("rank " << me << ": " << rounds << " rounds in " << secs << " s");
  CHECK_EQ(failed, 0);
  CHECK_EQ(bad_bcast, 0);
  CHECK_EQ(bad_allreduce, 0);
  CHECK_EQ(bad_reduce, 0);
  CHECK_EQ(bad_second, 0);
  for (TwinTeam& t : subs) t.release();
  CHECK_OK(dart_barrier(DART_TEAM_ALL));
}

}  // namespace
