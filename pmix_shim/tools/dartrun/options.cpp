#include "options.hpp"

#include <cstdio>
#include <cstdlib>
#include <string>

#ifndef DARTRUN_DEFAULT_LAUNCHER
#define DARTRUN_DEFAULT_LAUNCHER "mpirun"
#endif

namespace dartrun {

void usage(FILE *to) {
  std::fprintf(to,
               "usage: dartrun [--stdin TARGET] [--rendezvous MODE] [--launcher PATH] [--stats] [--] "
               "LAUNCHER-ARGS...\n"
               "Runs LAUNCHER-ARGS (e.g. -n 4 ./prog args) under mpirun/mpiexec and delivers this process's\n"
               "stdin to the job's DART units, exactly once, with flow control.\n"
               "  --stdin TARGET     unit(s) that read stdin: N, a list like 1,3,5-7, all, or none\n"
               "                     (default $DART_STDIN_TARGET, else 0)\n"
               "  --rendezvous MODE  how unit 0 and dartrun meet: unix (unit 0 on this host), tcp or\n"
               "                     tcp:ADDR (unit 0 anywhere; ADDR: the address to listen on and offer),\n"
               "                     auto (default $DARTRUN_RENDEZVOUS, else both are offered and unit 0\n"
               "                     takes the Unix socket when it runs on this host, else TCP)\n"
               "  --launcher PATH    mpirun/mpiexec to wrap (default $DARTRUN_LAUNCHER, else %s)\n"
               "  --stats            print flow-control counters and peak memory to stderr at the end\n"
               "What dartrun adds to the launcher:\n"
               "  stdin              /dev/null for the launcher; Open MPI also --stdin none\n"
               "  environment        DART_STDIN=on, DART_STDIN_TARGET, DART_STDIN_SECRET, DART_JOB_KEY,\n"
               "                     DART_JOB_CHANNEL, DART_STDIN_SERVER and/or DART_STDIN_RENDEZVOUS\n"
               "                     with DART_STDIN_HOST; Open MPI gets -x for each\n"
               "  Open MPI as root   --allow-run-as-root --oversubscribe (unless given)\n"
               "  MPICH (hydra)      -print-all-exitcodes (its line is taken out of stdout)\n"
               "Exit status (both launchers): 128+N if dartrun was sent signal N (INT, TERM, HUP), which it\n"
               "passes on to the job; else 0 if every unit exited 0; else the exit code of a unit that\n"
               "exited non-zero; else 128+N if a unit was killed by signal N; the launcher's own status\n"
               "if it failed before any unit ran; 2 for a usage error.\n",
               DARTRUN_DEFAULT_LAUNCHER);
}

int parse_options(int argc, char **argv, Options *o) {
  int i = 1;
  for (; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--") {
      ++i;
      break;
    }
    if (a == "--stdin" && i + 1 < argc) {
      o->target = argv[++i];
    } else if (a.rfind("--stdin=", 0) == 0) {
      o->target = a.substr(8);
    } else if (a == "--rendezvous" && i + 1 < argc) {
      o->rendezvous = argv[++i];
    } else if (a.rfind("--rendezvous=", 0) == 0) {
      o->rendezvous = a.substr(13);
    } else if (a == "--launcher" && i + 1 < argc) {
      o->launcher = argv[++i];
    } else if (a == "--stats") {
      o->stats = true;
    } else if (a == "-h" || a == "--help") {
      usage(stdout);
      return 0;
    } else {
      break;  // the launcher's arguments start here
    }
  }
  for (; i < argc; ++i) o->args.emplace_back(argv[i]);
  if (o->args.empty()) {
    usage(stderr);
    return 2;
  }
  if (o->target.empty()) {
    const char *t = std::getenv("DART_STDIN_TARGET");
    o->target = t && *t ? t : "0";
  }
  if (o->launcher.empty()) {
    const char *l = std::getenv("DARTRUN_LAUNCHER");
    o->launcher = l && *l ? l : DARTRUN_DEFAULT_LAUNCHER;
  }
  if (o->rendezvous.empty()) {
    const char *r = std::getenv("DARTRUN_RENDEZVOUS");
    o->rendezvous = r && *r ? r : "auto";
  }
  if (o->rendezvous != "auto" && o->rendezvous != "unix" && o->rendezvous != "tcp" &&
      o->rendezvous.rfind("tcp:", 0) != 0) {
    std::fprintf(stderr, "dartrun: --rendezvous %s: not auto, unix, tcp or tcp:ADDR\n", o->rendezvous.c_str());
    return 2;
  }
  return -1;
}

Flavor detect_flavor(const std::string &path) {
  std::string cmd = "'" + path + "' --version 2>&1";
  FILE *p = ::popen(cmd.c_str(), "r");
  std::string out;
  if (p) {
    char buf[256];
    while (std::fgets(buf, sizeof buf, p)) out += buf;
    ::pclose(p);
  }
  if (out.find("HYDRA") != std::string::npos || out.find("MPICH") != std::string::npos) return Flavor::hydra;
  return Flavor::openmpi;
}

bool has_arg(const std::vector<std::string> &args, const char *a) {
  for (const auto &x : args)
    if (x == a || x.rfind(std::string(a) + "=", 0) == 0) return true;
  return false;
}

}  // namespace dartrun
