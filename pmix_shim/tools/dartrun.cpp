// dartrun: run a DART program under mpirun (Open MPI) or mpiexec (MPICH
// hydra) and feed it this process's stdin through the PMIx shim instead of
// the launcher's own stdin forwarding.
//
//   dartrun [--stdin TARGET] [--launcher PATH] [--stats] [--] LAUNCHER-ARGS...
//
// TARGET is a unit, a list of units ("1,3,5-7"), "all" or "none" (default:
// $DART_STDIN_TARGET, else 0). LAUNCHER-ARGS are exactly what the launcher
// takes (-n 4 ./prog args...).
//
// Why: measured here, MPICH 4.0.2's mpiexec kills the job when more than
// 64 KiB of stdin arrive faster than rank 0 reads them and reaches rank 0
// only; Open MPI 4.1.4's mpirun forwards in 4 KiB pieces (a quarter of a
// pipe's speed), segfaults when stdin reaches EOF after rank 0 closed it,
// and its `--stdin all` hangs. So the launcher gets /dev/null as stdin (and
// Open MPI `--stdin none`), and dartrun pushes its stdin itself, as a shim
// tool, to the server DART unit 0 starts in dart_init. The rendezvous (a
// Unix socket in a fresh 0700 directory) and a per-job secret travel in the
// job's environment (DART_STDIN_SERVER, DART_STDIN_SECRET). XOFF from the
// job un-arms our read, so whatever feeds us blocks.
//
// dartrun forwards SIGINT, SIGTERM and SIGHUP to the launcher (which runs
// in a process group of its own, so a terminal's Ctrl-C reaches it once,
// through us) and exits with the launcher's exit status (128+N if it was
// killed by signal N).
#include <pmix_server.h>
#include <pmix_tool.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#ifndef DARTRUN_DEFAULT_LAUNCHER
#define DARTRUN_DEFAULT_LAUNCHER "mpirun"
#endif

namespace {

enum class Flavor { openmpi, hydra };

struct Options {
    std::string target;
    std::string launcher;
    bool stats = false;
    std::vector<std::string> args;  // the launcher's
};

void usage(FILE *to) {
    std::fprintf(to,
                 "usage: dartrun [--stdin TARGET] [--launcher PATH] [--stats] [--] LAUNCHER-ARGS...\n"
                 "  --stdin TARGET   unit(s) that read stdin: N, a list like 1,3,5-7, all, or none\n"
                 "                   (default $DART_STDIN_TARGET, else 0)\n"
                 "  --launcher PATH  mpirun/mpiexec to wrap (default $DARTRUN_LAUNCHER, else %s)\n"
                 "  --stats          print flow-control counters and peak memory to stderr at the end\n",
                 DARTRUN_DEFAULT_LAUNCHER);
}

// Which launcher family `path` is: asks it, as the build does.
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

std::string random_secret() {
    unsigned char raw[24];
    size_t got = 0;
    while (got < sizeof raw) {
        ssize_t n = ::getrandom(raw + got, sizeof raw - got, 0);
        if (n > 0) got += static_cast<size_t>(n);
    }
    static const char hex[] = "0123456789abcdef";
    std::string s;
    for (unsigned char c : raw) {
        s += hex[c >> 4];
        s += hex[c & 15];
    }
    return s;
}

long peak_rss_kib() {
    FILE *f = std::fopen("/proc/self/status", "r");
    long kib = -1;
    if (!f) return kib;
    char line[256];
    while (std::fgets(line, sizeof line, f))
        if (std::sscanf(line, "VmHWM: %ld", &kib) == 1) break;
    std::fclose(f);
    return kib;
}

bool has_arg(const std::vector<std::string> &args, const char *a) {
    for (const auto &x : args)
        if (x == a) return true;
    return false;
}

// ---- the pusher -----------------------------------------------------------

struct Pusher {
    std::string socket_path, secret;
    std::atomic<bool> job_done{false};
    std::mutex mu;  // serialises connecting against the final tool finalize
    bool connected = false;
    pmix_status_t result = PMIX_SUCCESS;

    void run() {
        // The server appears when unit 0 reaches the end of dart_init; a
        // program that never calls dart_init never creates it.
        struct stat st;
        while (!job_done.load() && !(::stat(socket_path.c_str(), &st) == 0 && S_ISSOCK(st.st_mode)))
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        {
            std::lock_guard<std::mutex> l(mu);
            if (job_done.load()) return;
            std::string uri = "unix:" + socket_path;
            pmix_info_t info[4];
            uint32_t tmo = 10000;  // bind() to listen() is a short window; retried
            uint32_t rank = 0;
            PMIX_INFO_LOAD(&info[0], PMIX_SERVER_URI, uri.c_str(), PMIX_STRING);
            PMIX_INFO_LOAD(&info[1], PMIX_SHIM_SECRET, secret.c_str(), PMIX_STRING);
            PMIX_INFO_LOAD(&info[2], PMIX_SHIM_CONNECT_TIMEOUT_MS, &tmo, PMIX_UINT32);
            PMIX_INFO_LOAD(&info[3], PMIX_TOOL_RANK, &rank, PMIX_UINT32);
            result = PMIx_tool_init(nullptr, info, 4);
            connected = result == PMIX_SUCCESS;
        }
        if (connected && !job_done.load()) {
            bool yes = true;
            int fd = 0;
            pmix_info_t dirs[2];
            PMIX_INFO_LOAD(&dirs[0], PMIX_IOF_PUSH_STDIN, &yes, PMIX_BOOL);
            PMIX_INFO_LOAD(&dirs[1], PMIX_SHIM_IOF_FD, &fd, PMIX_INT);
            result = PMIx_IOF_push(nullptr, 0, nullptr, dirs, 2, nullptr, nullptr);
            if (result == PMIX_OPERATION_SUCCEEDED) result = PMIX_SUCCESS;
        }
        // Whatever the outcome, the job reads no more of our stdin: let go of
        // it, so a producer still writing is told at once (EPIPE) instead of
        // blocking until we exit.
        int null = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
        if (null >= 0) {
            ::dup2(null, 0);
            ::close(null);
        }
    }

    // Main thread, after the launcher exited.
    void finish() {
        job_done = true;
        std::lock_guard<std::mutex> l(mu);
        // Completes a push still waiting (the job is gone) with a failure.
        if (connected) PMIx_tool_finalize();
    }
};

}  // namespace

int main(int argc, char **argv) {
    Options o;
    int i = 1;
    for (; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--") {
            ++i;
            break;
        }
        if (a == "--stdin" && i + 1 < argc) {
            o.target = argv[++i];
        } else if (a.rfind("--stdin=", 0) == 0) {
            o.target = a.substr(8);
        } else if (a == "--launcher" && i + 1 < argc) {
            o.launcher = argv[++i];
        } else if (a == "--stats") {
            o.stats = true;
        } else if (a == "-h" || a == "--help") {
            usage(stdout);
            return 0;
        } else {
            break;  // the launcher's arguments start here
        }
    }
    for (; i < argc; ++i) o.args.emplace_back(argv[i]);
    if (o.args.empty()) {
        usage(stderr);
        return 2;
    }
    if (o.target.empty()) {
        const char *t = std::getenv("DART_STDIN_TARGET");
        o.target = t && *t ? t : "0";
    }
    if (o.launcher.empty()) {
        const char *l = std::getenv("DARTRUN_LAUNCHER");
        o.launcher = l && *l ? l : DARTRUN_DEFAULT_LAUNCHER;
    }
    const Flavor flavor = detect_flavor(o.launcher);
    const bool push = o.target != "none";

    // The job's environment: where the server listens and its secret.
    Pusher pusher;
    std::string dir;
    ::setenv("DART_STDIN", "on", 1);
    ::setenv("DART_STDIN_TARGET", o.target.c_str(), 1);
    if (push) {
        const char *tmp = std::getenv("TMPDIR");
        std::string tmpl = std::string(tmp && *tmp ? tmp : "/tmp") + "/dartrun-XXXXXX";
        std::vector<char> t(tmpl.begin(), tmpl.end());
        t.push_back('\0');
        if (!::mkdtemp(t.data())) {  // 0700: only we can reach the socket
            std::perror("dartrun: mkdtemp");
            return 1;
        }
        dir = t.data();
        pusher.socket_path = dir + "/stdin.sock";
        pusher.secret = random_secret();
        ::setenv("DART_STDIN_SERVER", ("unix:" + pusher.socket_path).c_str(), 1);
        ::setenv("DART_STDIN_SECRET", pusher.secret.c_str(), 1);
    } else {
        ::unsetenv("DART_STDIN_SERVER");
        ::unsetenv("DART_STDIN_SECRET");
    }

    std::vector<std::string> cmd{o.launcher};
    if (flavor == Flavor::openmpi) {
        // No forwarding at all; -x also carries the variables to remote
        // nodes (local ranks inherit them anyway).
        cmd.insert(cmd.end(), {"--stdin", "none", "-x", "DART_STDIN", "-x", "DART_STDIN_TARGET"});
        if (push) cmd.insert(cmd.end(), {"-x", "DART_STDIN_SERVER", "-x", "DART_STDIN_SECRET"});
        if (::geteuid() == 0) {
            if (!has_arg(o.args, "--allow-run-as-root")) cmd.emplace_back("--allow-run-as-root");
            if (!has_arg(o.args, "--oversubscribe")) cmd.emplace_back("--oversubscribe");
        }
    }
    // hydra has no stdin option and passes the whole environment by
    // default: its stdin is /dev/null (below), which it forwards as EOF.
    cmd.insert(cmd.end(), o.args.begin(), o.args.end());

    // Signals are taken by sigwait in this thread only; the pusher thread
    // inherits the mask. SIGPIPE is ignored (a vanished job must not kill
    // us); the launcher gets the default dispositions back.
    sigset_t set;
    sigemptyset(&set);
    for (int s : {SIGINT, SIGTERM, SIGHUP, SIGCHLD}) sigaddset(&set, s);
    sigset_t old;
    pthread_sigmask(SIG_BLOCK, &set, &old);
    ::signal(SIGPIPE, SIG_IGN);

    const pid_t parent = ::getpid();
    pid_t child = ::fork();
    if (child < 0) {
        std::perror("dartrun: fork");
        return 1;
    }
    if (child == 0) {
        ::setpgid(0, 0);
        // If dartrun dies (even by SIGKILL), the job goes too.
        ::prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (::getppid() != parent) ::_exit(1);
        ::signal(SIGPIPE, SIG_DFL);
        pthread_sigmask(SIG_SETMASK, &old, nullptr);
        int null = ::open("/dev/null", O_RDONLY);
        if (null >= 0) {
            ::dup2(null, 0);
            if (null != 0) ::close(null);
        }
        std::vector<char *> av;
        for (auto &s : cmd) av.push_back(s.data());
        av.push_back(nullptr);
        ::execvp(av[0], av.data());
        std::fprintf(stderr, "dartrun: cannot run %s: %s\n", av[0], std::strerror(errno));
        ::_exit(127);
    }
    ::setpgid(child, child);  // also here, so no signal can beat the child's own call

    std::thread pusher_thread;
    if (push) pusher_thread = std::thread([&pusher] { pusher.run(); });

    int status = 0;
    for (;;) {
        siginfo_t si;
        int sig = ::sigwaitinfo(&set, &si);
        if (sig < 0) continue;
        if (sig == SIGCHLD) {
            pid_t w = ::waitpid(child, &status, WNOHANG);
            if (w == child) break;
            continue;
        }
        ::kill(child, sig);
    }

    if (push) {
        pusher.finish();
        pusher_thread.join();
    }
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : WIFSIGNALED(status) ? 128 + WTERMSIG(status) : 1;
    if (o.stats) {
        pmixshim_iof_stats_t s{};
        pmixshim_get_iof_stats(&s);
        std::fprintf(stderr,
                     "dartrun: stats: bytes_pushed=%llu xoff_received=%llu xon_received=%llu push=%s "
                     "peak_rss_kib=%ld exit=%d\n",
                     static_cast<unsigned long long>(s.bytes_pushed),
                     static_cast<unsigned long long>(s.xoff_received),
                     static_cast<unsigned long long>(s.xon_received),
                     push ? PMIx_Error_string(pusher.result) : "none", peak_rss_kib(), code);
    }
    if (!dir.empty()) {
        ::unlink(pusher.socket_path.c_str());  // the server removes it; not if it was killed
        ::rmdir(dir.c_str());
    }
    return code;
}
