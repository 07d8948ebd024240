#include "startup.hpp"

#include "info.hpp"
#include "internal.hpp"

#include <cstdio>
#include <cstdlib>
#include <string>

namespace dshmem::startup {

namespace {

// "0-3,5" for the world PEs whose entry in `mapped` is set; "none".
template <class T>
std::string pe_list(const std::vector<T*>& mapped) {
  std::string out;
  for (std::size_t p = 0; p < mapped.size();) {
    if (!mapped[p]) {
      ++p;
      continue;
    }
    std::size_t q = p;
    while (q + 1 < mapped.size() && mapped[q + 1]) ++q;
    if (!out.empty()) out += ",";
    out += std::to_string(p);
    if (q > p) out += "-" + std::to_string(q);
    p = q + 1;
  }
  return out.empty() ? "none" : out;
}

const char* level_name(int level) {
  switch (level) {
    case SHMEM_THREAD_SINGLE: return "SINGLE";
    case SHMEM_THREAD_FUNNELED: return "FUNNELED";
    case SHMEM_THREAD_SERIALIZED: return "SERIALIZED";
    default: return "MULTIPLE";
  }
}

void debug(const std::string& line) {
  std::fprintf(stderr, "shmem: PE %d: debug: shmem_init: %s\n", st.me, line.c_str());
}

// One line for a refused value; false.
bool refuse(const char* name, const char* value, const char* forms) {
  std::fprintf(stderr, "shmem: PE %d: shmem_init: %s=\"%s\" is not accepted: expected %s\n", st.me, name, value, forms);
  std::fflush(stderr);
  return false;
}

bool read_flag(const char* name, const char* value, bool* out) {
  const std::optional<bool> v = info::parse_flag(value);
  if (!v) return refuse(name, value, info::kFlagForms);
  *out = *v;
  return true;
}

}  // namespace

bool read_settings(Settings* out) {
  bool ok = true;
  if (const char* v = std::getenv("SHMEM_SYMMETRIC_SIZE"); v && *v && !info::parse_size(v, &out->heap_bytes))
    ok = refuse("SHMEM_SYMMETRIC_SIZE", v, info::kSizeForms);
  ok = read_flag("SHMEM_VERSION", std::getenv("SHMEM_VERSION"), &out->version) && ok;
  ok = read_flag("SHMEM_INFO", std::getenv("SHMEM_INFO"), &out->info) && ok;
  ok = read_flag("SHMEM_DEBUG", std::getenv("SHMEM_DEBUG"), &out->debug) && ok;
  // Every PE fails alike, rather than one PE leaving and the others
  // waiting for it in the heap's collective allocation.
  const int mine = ok ? 0 : 1;
  int any = mine;
  if (dart_allreduce(&mine, &any, 1, DART_TYPE_INT, DART_OP_MAX, DART_TEAM_ALL) != DART_OK) any = 1;
  if (any && ok) {
    std::fprintf(stderr, "shmem: PE %d: shmem_init: stopped: another PE's environment was refused (logged there)\n",
                 st.me);
    std::fflush(stderr);
  }
  return any == 0;
}

void report(const Settings& s) {
  static bool reported = false;
  if (reported) return;
  reported = true;
  if (st.me == 0 && (s.version || s.info)) {
    if (s.version) std::printf("%s\n", info::version_line().c_str());
    if (s.info) std::printf("%s", info::report(false, false).c_str());
    std::fflush(stdout);
  }
  if (!s.debug) return;
  const char* size = std::getenv("SHMEM_SYMMETRIC_SIZE");
  debug(std::to_string(st.npes) + " PEs, thread level " + level_name(st.thread_level) + "; DART " +
        (st.owns_dart ? "started by shmem_init" : "started by the program"));
  debug(
      "symmetric heap " + std::to_string(st.heap_bytes) + " bytes at " + hex(st.heap_base) + " (" +
      (size && *size ? std::string("SHMEM_SYMMETRIC_SIZE=") + size : std::string("default ") + info::kDefaultHeapText) +
      ")");
  const char* shm = std::getenv("DART_SHARED_MEMORY");
  debug(std::string("load/store (shared memory) reaches PEs ") + pe_list(st.direct) + ", MPI RMA the others (" +
        (shm && *shm ? std::string("DART_SHARED_MEMORY=") + shm : std::string("DART_SHARED_MEMORY default 1")) +
        "); atomics " + (st.cpu_atomics ? "on the CPU" : "through MPI"));
  if (st.have_globals)
    debug("global variables " + std::to_string(st.glob_bytes) + " bytes at " + hex(st.glob_base) +
          ", mapped from PEs " + pe_list(st.glob_direct) + " (SHMEM_SHARE_GLOBALS)");
  else debug("global variables not symmetric (none, or not registered)");
  debug("SHMEM_TEAM_SHARED: " + std::to_string(shmem_team_n_pes(SHMEM_TEAM_SHARED)) + " PEs, this PE is " +
        std::to_string(shmem_team_my_pe(SHMEM_TEAM_SHARED)) + " of it");
  std::fflush(stderr);
}

}  // namespace dshmem::startup
