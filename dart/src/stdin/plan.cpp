// Unit 0's decision about the job's stdin (stdin/plan.hpp).
#include "stdin/plan.hpp"

#include "core/log.hpp"

#include <mpi.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

namespace dart::stdin_path {
namespace {

constexpr const char* kCall = "dart_stdin";

bool is_dev_null(int fd) {
  struct stat a, b;
  return ::fstat(fd, &a) == 0 && ::stat("/dev/null", &b) == 0 && S_ISCHR(a.st_mode) && a.st_rdev == b.st_rdev;
}

}  // namespace

bool parse_targets(const std::string& spec, int n, std::vector<unsigned char>* flags) {
  flags->assign(static_cast<std::size_t>(n), 0);
  if (spec == "all") {
    std::fill(flags->begin(), flags->end(), 1);
    return true;
  }
  if (spec == "none") return true;
  std::size_t pos = 0;
  while (pos <= spec.size()) {
    std::size_t comma = spec.find(',', pos);
    std::string item = spec.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    char* end = nullptr;
    long a = std::strtol(item.c_str(), &end, 10);
    long b = a;
    if (end == item.c_str()) return false;
    if (*end == '-') {
      const char* rest = end + 1;
      b = std::strtol(rest, &end, 10);
      if (end == rest) return false;
    }
    if (*end || a < 0 || b < a || b >= n) return false;
    for (long u = a; u <= b; ++u) (*flags)[static_cast<std::size_t>(u)] = 1;
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return true;
}

void decide(const Config& cfg, int nunits, Plan* plan, std::vector<unsigned char>* targets) {
  if (cfg.stdin_mode == Config::StdinMode::Off) return;
  const bool fd0_open = ::fcntl(0, F_GETFD) != -1;
  if (!cfg.stdin_server.empty() || !cfg.stdin_rendezvous.empty())
    plan->active = 1;  // dartrun: the launcher's stdin is out of the way
  else if (cfg.stdin_mode == Config::StdinMode::On) plan->active = 1;
  else plan->active = fd0_open && !::isatty(0) && !is_dev_null(0);
  if (!plan->active) return;

  const std::string& spec = cfg.stdin_target;
  if (!parse_targets(spec, nunits, targets)) {
    log(LogLevel::Error, kCall,
        "DART_STDIN_TARGET=%s is not a unit, a list of units (1,3,5-7), all or none "
        "for %d units; stdin goes to unit 0",
        spec.c_str(), nunits);
    parse_targets("0", nunits, targets);
  }
  // read_config kept the default of a mark that is not a size; the two
  // must also fit together.
  if (cfg.stdin_low_water >= cfg.stdin_high_water) {
    log(LogLevel::Error, kCall,
        "the stdin low-water mark (%zu) must be below the high-water mark (%zu); using "
        "the defaults",
        cfg.stdin_low_water, cfg.stdin_high_water);
  } else {
    plan->high = cfg.stdin_high_water;
    plan->low = cfg.stdin_low_water;
  }

  // Remote targets need a helper thread that calls MPI next to the
  // application's own calls.
  int provided = MPI_THREAD_SINGLE;
  MPI_Query_thread(&provided);
  if (provided != MPI_THREAD_MULTIPLE && std::count(targets->begin() + 1, targets->end(), 1) > 0) {
    log(LogLevel::Warn, kCall,
        "MPI does not provide MPI_THREAD_MULTIPLE: stdin can reach unit 0 only; the "
        "other target units read EOF");
    std::fill(targets->begin() + 1, targets->end(), 0);
  }
  plan->serve = std::count(targets->begin(), targets->end(), 1) > 0;
}

}  // namespace dart::stdin_path
