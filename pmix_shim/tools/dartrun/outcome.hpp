// dartrun's exit status, the same under both launchers (docs/stdin.md "stdin path
// and dartrun"): the rule, hydra's per-unit status line and the exit codes
// units report themselves. Nothing here needs a launcher, so
// tests/stdin/test_dartrun.cpp runs it in one process.
#pragma once

#include <atomic>
#include <map>
#include <string>
#include <vector>

namespace dartrun {

// The rule over raw wait statuses of the units: a non-zero exit code
// first, then a signal other than SIGKILL (launchers use SIGKILL to clean
// up the rest of a failed job), then SIGKILL; else 0.
int outcome_of(const std::vector<int> &statuses);

// Parses hydra's "[mpiexec@HOST] Exit codes: [HOST] S,S,... [HOST] S,..."
// line; false if it is not one. (Across hosts hydra puts each further
// host's "[HOST] S,S,..." on a line of its own; StdoutFilter takes those.)
bool parse_exit_codes(const std::string &line, std::vector<int> *out);

// Exit codes units reported themselves, by unit: through files in
// dartrun's directory (DART_EXIT_REPORT_DIR) or over the job channel.
// Under hydra these are the truth where its statuses are not (it loses a
// code when it sees the unit's PMI connection close before it reaps it).
class ExitReports {
 public:
  void add(long unit, int code);
  // The lowest-numbered unit's non-zero code (as a wait status keeps it:
  // the low 8 bits), 0 if none.
  int first() const;
  // Reads and removes DIR/exit.<unit> files.
  void read_dir(const std::string &dir);

 private:
  std::map<long, int> codes_;
};

// The exit status of dartrun. `signalled`: the first signal dartrun was
// sent (0: none); it wins, since the job was ended on purpose and neither
// the launcher's status after it (mpirun: 1; hydra: the units', 0 when they
// went down cleanly) nor the units' say anything of the program.
// `launcher` is the launcher's wait status, `units` hydra's per-unit
// statuses (null: not known), `observed` the statuses the units' watchers
// read (maybe not every unit's: used only without `units`, and only when
// they show a failure), `reported` ExitReports::first().
int final_status(int signalled, int launcher, const std::vector<int> *units, const std::vector<int> &observed,
                 int reported);

bool write_all(int fd, const char *p, size_t n);

// Copies hydra's stdout to fd 1 as it comes, holding back only what may be
// the start of hydra's own "[mpiexec@" line until its newline shows whether
// it is the exit-code line (kept out, unless the user asked for it).
class StdoutFilter {
 public:
  StdoutFilter(int in_fd, bool keep_line, int out_fd = 1) : fd_(in_fd), out_(out_fd), keep_(keep_line) {}
  // Until EOF, or 2 s after `launcher_gone` while the pipe stays open.
  void run(const std::atomic<bool> &launcher_gone);
  bool have_statuses() const { return have_; }
  const std::vector<int> &statuses() const { return statuses_; }
  // What run() does with each piece read (public for the unit test).
  void feed(const char *p, size_t n);
  void flush();

 private:
  void emit(const std::string &s) { write_all(out_, s.data(), s.size()); }
  int fd_, out_;
  bool keep_;
  std::string held_;
  bool have_ = false;
  bool more_ = false;  // after the exit-code line: hosts' lines may follow
  std::vector<int> statuses_;
};

}  // namespace dartrun
