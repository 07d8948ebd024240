#include "outcome.hpp"

#include <dirent.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace dartrun {

int outcome_of(const std::vector<int> &statuses) {
  for (int st : statuses)
    if (WIFEXITED(st) && WEXITSTATUS(st) != 0) return WEXITSTATUS(st);
  for (int st : statuses)
    if (WIFSIGNALED(st) && WTERMSIG(st) != SIGKILL) return 128 + WTERMSIG(st);
  for (int st : statuses)
    if (WIFSIGNALED(st)) return 128 + WTERMSIG(st);
  return 0;
}

bool parse_exit_codes(const std::string &line, std::vector<int> *out) {
  static const char kMark[] = "] Exit codes:";
  size_t at = line.find(kMark);
  if (line.rfind("[mpiexec@", 0) != 0 || at == std::string::npos) return false;
  const char *p = line.c_str() + at + sizeof kMark - 1;
  std::vector<int> v;
  while (*p) {
    if (*p == '[') {
      const char *q = std::strchr(p, ']');
      if (!q) return false;
      p = q + 1;
    } else if (*p == ' ' || *p == ',' || *p == '\n' || *p == '\r') {
      ++p;
    } else {
      char *end = nullptr;
      long x = std::strtol(p, &end, 10);
      if (end == p) return false;
      v.push_back(static_cast<int>(x));
      p = end;
    }
  }
  *out = std::move(v);
  return true;
}

void ExitReports::add(long unit, int code) {
  if (unit < 0 || (code & 0xff) == 0) return;  // exit(256) is a success to the launcher too
  codes_.emplace(unit, code & 0xff);
}

int ExitReports::first() const { return codes_.empty() ? 0 : codes_.begin()->second; }

void ExitReports::read_dir(const std::string &dir) {
  DIR *d = ::opendir(dir.c_str());
  if (!d) return;
  while (dirent *e = ::readdir(d)) {
    if (std::strncmp(e->d_name, "exit.", 5) != 0) continue;
    char *end = nullptr;
    const long unit = std::strtol(e->d_name + 5, &end, 10);
    const std::string path = dir + "/" + e->d_name;
    if (end != e->d_name + 5 && *end == '\0')
      if (FILE *f = std::fopen(path.c_str(), "r")) {
        int c = 0;
        if (std::fscanf(f, "%d", &c) == 1) add(unit, c);
        std::fclose(f);
      }
    ::unlink(path.c_str());
  }
  ::closedir(d);
}

int final_status(int signalled, int launcher, const std::vector<int> *units, const std::vector<int> &observed,
                 int reported) {
  if (signalled) return 128 + signalled;
  int code = WIFEXITED(launcher) ? WEXITSTATUS(launcher) : WIFSIGNALED(launcher) ? 128 + WTERMSIG(launcher) : 1;
  // hydra's own status is the OR of every unit's: use the units' own.
  if (units) code = outcome_of(*units);
  // Without them (hydra gives up with 255 when a remote proxy reports a
  // killed unit), what the watchers saw; a partial view that shows no
  // failure must not turn a failed launch into a success.
  else if (int seen = outcome_of(observed); seen != 0 && code != 0) code = seen;
  if (reported) code = reported;
  return code;
}

bool write_all(int fd, const char *p, size_t n) {
  while (n) {
    ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

namespace {
constexpr const char *kMark = "[mpiexec@";
// hydra's exit-code line holds a host name and a status per unit; a "line"
// this long that does not end is the job's output.
constexpr size_t kMaxLine = 1 << 20;
}  // namespace

void StdoutFilter::run(const std::atomic<bool> &launcher_gone) {
  using Clock = std::chrono::steady_clock;
  std::vector<char> buf(64 * 1024);
  Clock::time_point gone_at{};
  for (;;) {
    pollfd pfd{fd_, POLLIN, 0};
    int pr = ::poll(&pfd, 1, 100);
    if (pr == 0) {
      // The launcher has exited but something it started still holds the
      // pipe: give it a moment, then stop waiting.
      if (launcher_gone.load()) {
        if (gone_at == Clock::time_point{}) gone_at = Clock::now();
        if (Clock::now() - gone_at > std::chrono::seconds(2)) break;
      }
      continue;
    }
    if (pr < 0 && errno == EINTR) continue;
    ssize_t n = ::read(fd_, buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    feed(buf.data(), static_cast<size_t>(n));
  }
  flush();
  ::close(fd_);
}

void StdoutFilter::flush() {
  if (!held_.empty()) emit(held_);  // an unterminated last line
  held_.clear();
}

// One host's line after hydra's first: "[HOST] S,S,...". hydra prints
// the statuses of each proxy after the first on a line of its own.
bool parse_more_exit_codes(const std::string &line, std::vector<int> *out) {
  if (line.empty() || line[0] != '[') return false;
  const size_t close = line.find("] ");
  if (close == std::string::npos) return false;
  std::string rest = line.substr(close + 2);
  while (!rest.empty() && (rest.back() == '\n' || rest.back() == '\r')) rest.pop_back();
  if (rest.empty() || rest.find_first_not_of("0123456789,") != std::string::npos) return false;
  std::vector<int> v;
  return parse_exit_codes("[mpiexec@x] Exit codes: " + line.substr(0, close + 1) + " " + rest, &v) &&
         (out->insert(out->end(), v.begin(), v.end()), true);
}

void StdoutFilter::feed(const char *p, size_t n) {
  held_.append(p, n);
  size_t pos = 0;
  std::string out;
  // Right after hydra's exit-code line: its lines for further hosts.
  while (more_ && pos < held_.size()) {
    const size_t nl = held_.find('\n', pos);
    if (nl == std::string::npos) {
      if (held_[pos] == '[' && held_.size() - pos <= kMaxLine) {
        held_.erase(0, pos);  // wait for the rest of the line
        if (!out.empty()) emit(out);
        return;
      }
      more_ = false;
      break;
    }
    const std::string line = held_.substr(pos, nl + 1 - pos);
    if (!parse_more_exit_codes(line, &statuses_)) {
      more_ = false;
      break;
    }
    if (keep_) out += line;
    pos = nl + 1;
  }
  while (pos < held_.size()) {
    size_t m = held_.find(kMark, pos);
    if (m == std::string::npos) {
      // Keep a tail that could be the start of the mark.
      size_t keep = 0;
      size_t ml = std::strlen(kMark);
      for (size_t k = std::min(ml - 1, held_.size() - pos); k > 0; --k)
        if (held_.compare(held_.size() - k, k, kMark, k) == 0) {
          keep = k;
          break;
        }
      out.append(held_, pos, held_.size() - pos - keep);
      pos = held_.size() - keep;
      break;
    }
    out.append(held_, pos, m - pos);
    size_t nl = held_.find('\n', m);
    if (nl == std::string::npos && held_.size() - m > kMaxLine) {
      out.append(held_, m, held_.size() - m);  // far too long for hydra's line
      pos = held_.size();
      break;
    }
    if (nl == std::string::npos) {
      pos = m;  // wait for the rest of the line
      break;
    }
    std::string line = held_.substr(m, nl + 1 - m);
    std::vector<int> v;
    if (parse_exit_codes(line, &v)) {
      statuses_ = std::move(v);
      have_ = true;
      more_ = true;
      if (keep_) out += line;
      pos = nl + 1;
      // Its lines for further hosts follow.
      held_.erase(0, pos);
      if (!out.empty()) emit(out);
      if (!held_.empty()) feed("", 0);
      return;
    }
    out += line;
    pos = nl + 1;
  }
  held_.erase(0, pos);
  if (!out.empty()) emit(out);
}

}  // namespace dartrun
