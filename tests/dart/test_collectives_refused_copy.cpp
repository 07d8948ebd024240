// Large collectives on one node copy straight from the senders' buffers
// (single copy, process_vm_readv) once a team's engine has found, when it
// was made, that every member can read every other. A copy the kernel
// refuses after that (memory it will not read across processes, such as
// device mappings, or a seccomp filter installed later, as here) must not
// fail the call: every member runs it again through the shared-memory
// slots, and the team's later calls take the slots.
//
// Each collective gets its own team, whose engine is made (by a barrier)
// before the odd units install a seccomp filter that makes
// process_vm_readv fail with EPERM. Then each team's first large call
// meets the refusal on the odd units (receivers of bcast, scatter,
// allgather(v) and alltoall; the root, unit 1, of gather and reduce; the
// folding members of allreduce) and is checked byte
// by byte on every unit, and so is a second call on the same team. Every
// buffer is refilled with a different pattern before each call, so a block
// not moved, or moved from the wrong place, shows.
//
// Skipped where single copy is impossible to begin with (the test first
// reads a neighbour's memory itself) or on hosts other than x86-64 Linux.
#include "dart_capture.hpp"

#include <dash/dart/if/dart.h>

#include <mpi.h>

#if defined(__linux__) && defined(__x86_64__)
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>
#define REFUSED_COPY_SUPPORTED 1
#endif

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace {

// 64 KiB blocks: above the single-copy threshold (16 KiB).
constexpr std::size_t kBlock = std::size_t{64} << 10;

// The byte at position p of the block unit u sends in call `salt`.
unsigned char pattern(int u, std::size_t p, int salt) {
  return static_cast<unsigned char>((static_cast<std::size_t>(u) * 131 + p * 7 + static_cast<std::size_t>(salt) * 29 + p / 251) & 0xff);
}

void fill(unsigned char* b, std::size_t bytes, int u, int salt) {
  for (std::size_t p = 0; p < bytes; ++p) b[p] = pattern(u, p, salt);
}

// Where block [b, b + bytes) differs from unit u's pattern, or -1.
long first_wrong(const unsigned char* b, std::size_t bytes, int u, int salt) {
  for (std::size_t p = 0; p < bytes; ++p)
    if (b[p] != pattern(u, p, salt)) return static_cast<long>(p);
  return -1;
}

#ifdef REFUSED_COPY_SUPPORTED

// Whether this unit can read its right neighbour's memory with
// process_vm_readv, and so every unit every other (agreed over all).
bool single_copy_possible(int me, int n) {
  struct Word {
    std::int64_t pid;
    std::uint64_t addr;
    std::uint64_t value;
  };
  static std::uint64_t word = 0;
  word = 0x5eed0000u + static_cast<std::uint64_t>(me);
  Word mine{static_cast<std::int64_t>(getpid()), reinterpret_cast<std::uintptr_t>(&word), word};
  std::vector<Word> all(static_cast<std::size_t>(n));
  MPI_Allgather(&mine, sizeof mine, MPI_BYTE, all.data(), sizeof mine, MPI_BYTE, MPI_COMM_WORLD);
  const Word& peer = all[static_cast<std::size_t>((me + 1) % n)];
  std::uint64_t got = 0;
  iovec local{&got, sizeof got};
  iovec remote{reinterpret_cast<void*>(static_cast<std::uintptr_t>(peer.addr)), sizeof got};
  int ok = process_vm_readv(static_cast<pid_t>(peer.pid), &local, 1, &remote, 1, 0) ==
                   static_cast<ssize_t>(sizeof got) &&
               got == peer.value
           ? 1
           : 0;
  MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return ok != 0;
}

// process_vm_readv fails with EPERM in every thread of this process from
// now on; everything else is allowed.
bool refuse_process_vm_readv() {
  sock_filter code[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_process_vm_readv, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA)),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  sock_fprog prog{static_cast<unsigned short>(sizeof code / sizeof code[0]), code};
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return false;
  return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &prog) == 0;
}

bool log_level_is_warn() {
  const char* v = std::getenv("DART_LOG_LEVEL");
  if (!v) return false;
  std::string s(v);
  for (char& ch : s) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  return s == "WARN" || s == "WARNING";
}

// A team of every unit, with its node engine made.
dart_team_t whole_team() {
  dart_group_t group = DART_GROUP_NULL;
  REQUIRE_OK(dart_group_create(&group));
  for (int u = 0; u < mpitest::world_size(); ++u) CHECK_OK(dart_group_addmember(group, DART_GLOBAL_UNIT_ID(u)));
  dart_team_t t = DART_TEAM_NULL;
  REQUIRE_OK(dart_team_create(DART_TEAM_ALL, group, &t));
  CHECK_OK(dart_group_destroy(&group));
  REQUIRE_OK(dart_barrier(t));
  return t;
}

#endif

}  // namespace

// A root buffer shorter than the call says, whose end is not mapped: the
// receivers' copies fault, and the call fails on every unit with one error
// line each instead of a crash (through the slots, the root itself would
// read past the end). Needs single copy.
BOOST_FIXTURE_TEST_CASE(a_short_root_buffer_fails_everywhere, dartcheck::PlainDartFixture) {
#ifdef REFUSED_COPY_SUPPORTED
  if (n < 2) return;
  if (const char* v = std::getenv("DART_COLLECTIVE_SINGLE_COPY"); v && *v == '0') return;
  if (!single_copy_possible(me, n)) return;
  const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  const std::size_t bytes = 8 * page;
  // The root's buffer: 8 pages of which the last 4 are unmapped; the
  // others' are whole.
  void* map = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  BOOST_REQUIRE(map != MAP_FAILED);
  auto* buf = static_cast<unsigned char*>(map);
  std::memset(buf, 0x5a, bytes);
  if (me == 0) BOOST_REQUIRE(munmap(buf + 4 * page, 4 * page) == 0);
  const dartcheck::Outcome out = dartcheck::capture([&] {
    return dart_bcast(buf, bytes, DART_TYPE_BYTE, dart_team_unit_t{0}, DART_TEAM_ALL);
  });
  CHECK_EQ(out.rc, DART_ERR_OTHER);
  CHECK_RANK(out.log.find("dart_bcast: error:") != std::string::npos);
  // The team goes on: the next call works.
  std::vector<unsigned char> ok(bytes, static_cast<unsigned char>(me));
  CHECK_OK(dart_bcast(ok.data(), bytes, DART_TYPE_BYTE, dart_team_unit_t{0}, DART_TEAM_ALL));
  CHECK_RANK(std::all_of(ok.begin(), ok.end(), [](unsigned char b) { return b == 0; }));
  munmap(buf, me == 0 ? 4 * page : bytes);
#endif
}

// Last: the seccomp filter stays for the life of the process, and MPI's
// own single copy (Open MPI's CMA) fails under it too.
BOOST_FIXTURE_TEST_CASE(refused_copies_fall_back_to_the_slots, dartcheck::PlainDartFixture) {
#ifndef REFUSED_COPY_SUPPORTED
  BOOST_TEST_MESSAGE("skipped: needs x86-64 Linux (seccomp)");
#else
  if (n < 2) {
    BOOST_TEST_MESSAGE("skipped: needs two units");
    return;
  }
  if (const char* v = std::getenv("DART_COLLECTIVE_SINGLE_COPY"); v && *v == '0') {
    BOOST_TEST_MESSAGE("skipped: DART_COLLECTIVE_SINGLE_COPY=0");
    return;
  }
  if (!single_copy_possible(me, n)) {
    BOOST_TEST_MESSAGE("skipped: process_vm_readv between the units is refused already");
    return;
  }
  const auto un = static_cast<std::size_t>(n);
  const auto ume = static_cast<std::size_t>(me);
  // One team per call, each with its engine made while copies still work.
  struct Case {
    std::string name;
    std::function<void(dart_team_t, int)> run;  // one call and its checks, with salt
    dart_team_t team = DART_TEAM_NULL;
  };
  std::vector<unsigned char> send(un * kBlock), recv(un * kBlock);
  std::vector<std::size_t> counts(un), displs(un);
  std::size_t span = 0;
  for (std::size_t i = 0; i < un; ++i) {
    counts[i] = kBlock / 2 + i * 4099;  // different sizes, all above 16 KiB
    displs[i] = span;
    span += counts[i];
  }
  std::vector<unsigned char> vrecv(span);
  auto check = [&](const unsigned char* b, std::size_t bytes, int u, int salt, const char* what) {
    const long at = first_wrong(b, bytes, u, salt);
    BOOST_CHECK_MESSAGE(at < 0, "rank " << me << ": " << what << ": block of unit " << u << " wrong at byte " << at
                                        << " (salt " << salt << ")");
  };
  // Sums of longs, 64 KiB of them: unit u contributes u * 1000003 + i * salt
  // at element i.
  const std::size_t nl = kBlock / sizeof(long);
  std::vector<long> lsend(nl), lrecv(nl);
  auto reduction = [&](dart_team_t t, int salt, int root) {
    for (std::size_t i = 0; i < nl; ++i) lsend[i] = static_cast<long>(me) * 1000003 + static_cast<long>(i) * salt;
    std::fill(lrecv.begin(), lrecv.end(), -1L);
    if (root >= 0) CHECK_OK(dart_reduce(lsend.data(), lrecv.data(), nl, DART_TYPE_LONG, DART_OP_SUM, dart_team_unit_t{root}, t));
    else CHECK_OK(dart_allreduce(lsend.data(), lrecv.data(), nl, DART_TYPE_LONG, DART_OP_SUM, t));
    if (root >= 0 && me != root) return;
    const long units = n;
    long wrong = -1;
    for (std::size_t i = 0; i < nl && wrong < 0; ++i)
      if (lrecv[i] != units * (units - 1) / 2 * 1000003 + units * static_cast<long>(i) * salt) wrong = static_cast<long>(i);
    BOOST_CHECK_MESSAGE(wrong < 0, "rank " << me << ": " << (root >= 0 ? "reduce" : "allreduce") << " wrong at element "
                                           << wrong << " (salt " << salt << ")");
  };
  std::vector<Case> cases = {
      {"bcast",
       [&](dart_team_t t, int salt) {
         fill(recv.data(), kBlock, me == 0 ? 0 : me + 100, salt);
         CHECK_OK(dart_bcast(recv.data(), kBlock, DART_TYPE_BYTE, dart_team_unit_t{0}, t));
         check(recv.data(), kBlock, 0, salt, "bcast");
       }},
      {"scatter",
       [&](dart_team_t t, int salt) {
         for (std::size_t i = 0; i < un; ++i) fill(send.data() + i * kBlock, kBlock, static_cast<int>(i), salt);
         fill(recv.data(), kBlock, me + 100, salt);
         CHECK_OK(dart_scatter(send.data(), recv.data(), kBlock, DART_TYPE_BYTE, dart_team_unit_t{0}, t));
         check(recv.data(), kBlock, me, salt, "scatter");
       }},
      {"gather (root 1)",
       [&](dart_team_t t, int salt) {
         fill(send.data(), kBlock, me, salt);
         fill(recv.data(), un * kBlock, me + 100, salt);
         CHECK_OK(dart_gather(send.data(), recv.data(), kBlock, DART_TYPE_BYTE, dart_team_unit_t{1}, t));
         if (me == 1)
           for (std::size_t i = 0; i < un; ++i) check(recv.data() + i * kBlock, kBlock, static_cast<int>(i), salt, "gather");
       }},
      {"allgather",
       [&](dart_team_t t, int salt) {
         fill(send.data(), kBlock, me, salt);
         fill(recv.data(), un * kBlock, me + 100, salt);
         CHECK_OK(dart_allgather(send.data(), recv.data(), kBlock, DART_TYPE_BYTE, t));
         for (std::size_t i = 0; i < un; ++i) check(recv.data() + i * kBlock, kBlock, static_cast<int>(i), salt, "allgather");
       }},
      {"allgatherv",
       [&](dart_team_t t, int salt) {
         fill(send.data(), counts[ume], me, salt);
         fill(vrecv.data(), span, me + 100, salt);
         CHECK_OK(dart_allgatherv(send.data(), counts[ume], DART_TYPE_BYTE, vrecv.data(), counts.data(), displs.data(), t));
         for (std::size_t i = 0; i < un; ++i) check(vrecv.data() + displs[i], counts[i], static_cast<int>(i), salt, "allgatherv");
       }},
      {"alltoall",
       [&](dart_team_t t, int salt) {
         // Block j of unit i's send buffer carries pattern (i * n + j).
         for (std::size_t j = 0; j < un; ++j) fill(send.data() + j * kBlock, kBlock, static_cast<int>(ume * un + j), salt);
         fill(recv.data(), un * kBlock, me + 100, salt);
         CHECK_OK(dart_alltoall(send.data(), recv.data(), kBlock, DART_TYPE_BYTE, t));
         for (std::size_t i = 0; i < un; ++i)
           check(recv.data() + i * kBlock, kBlock, static_cast<int>(i * un + ume), salt, "alltoall");
       }},
      {"alltoall in place",
       [&](dart_team_t t, int salt) {
         for (std::size_t j = 0; j < un; ++j) fill(recv.data() + j * kBlock, kBlock, static_cast<int>(ume * un + j), salt);
         CHECK_OK(dart_alltoall(recv.data(), recv.data(), kBlock, DART_TYPE_BYTE, t));
         for (std::size_t i = 0; i < un; ++i)
           check(recv.data() + i * kBlock, kBlock, static_cast<int>(i * un + ume), salt, "alltoall in place");
       }},
      {"reduce (root 1)",
       [&](dart_team_t t, int salt) { reduction(t, salt, 1); }},
      {"allreduce",
       [&](dart_team_t t, int salt) { reduction(t, salt, -1); }},
  };
  for (Case& c : cases) c.team = whole_team();

  int refused = me % 2 == 1 ? (refuse_process_vm_readv() ? 1 : 0) : 1;
  MPI_Allreduce(MPI_IN_PLACE, &refused, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (refused != 1) {
    BOOST_TEST_MESSAGE("skipped: this kernel does not take the seccomp filter");
    for (Case& c : cases) CHECK_OK(dart_team_destroy(&c.team));
    return;
  }
  if (me % 2 == 1) {
    // The filter is in place: this unit can no longer read others' memory.
    std::uint64_t probe = 0, into = 0;
    iovec local{&into, sizeof into}, remote{&probe, sizeof probe};
    errno = 0;
    CHECK_RANK(process_vm_readv(getpid(), &local, 1, &remote, 1, 0) < 0 && errno == EPERM);
  }

  // With DART_LOG_LEVEL=WARN (as ctest runs it) unit 1 also checks the
  // warning: once, at the first call of each team, and not again.
  const bool warns = log_level_is_warn();
  for (Case& c : cases) {
    BOOST_TEST_CONTEXT("rank " << me << ": " << c.name) {
      for (int salt = 1; salt <= 2; ++salt) {
        // salt 1: refused on the odd units, run again through the slots;
        // salt 2: the team's later calls, through the slots from the start.
        std::string log;
        {
          dartcheck::StderrCapture cap;
          c.run(c.team, salt);
          log = cap.finish();
        }
        std::fputs(log.c_str(), stderr);
        const bool warned = log.find("copies its large collectives through shared memory from now on") != std::string::npos;
        // Unit 1 reads in every case (gather's and reduce's root); the
        // other odd units may or may not, depending on the call.
        if (warns && me == 1) CHECK_RANK(warned == (salt == 1));
        if (me % 2 == 0 || salt == 2) CHECK_RANK(!warned);
      }
    }
  }
  for (Case& c : cases) CHECK_OK(dart_team_destroy(&c.team));
#endif
}
