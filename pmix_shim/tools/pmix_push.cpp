// pmix_push: push a file or this process's stdin to a PMIx shim server, or
// relay the stdin other tools push to us on to an upstream server.
//
//   pmix_push --server URI [--secret S] [--file F] [options]
//   pmix_push --relay --listen SPEC --contact-file PATH --server URI [options]
//
// The server's URI and secret default to $PMIX_SHIM_SERVER_URI and
// $PMIX_SHIM_SECRET.  XOFF from the server un-arms our read, so whatever
// feeds us (a pipe, `cat`) blocks; a relay also passes XOFF/XON on to its
// own producers.  Exit status 0 when the server acknowledged that its host
// took every byte and the end of the stream; 1 otherwise, with the count
// of bytes its host took on stderr (a server that predates
// acknowledgements can only confirm that everything was written).
#include <pmix_server.h>
#include <pmix_tool.h>

#include <fcntl.h>
#include <unistd.h>

#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

namespace {

struct Options {
  std::string server, secret, file, listen = "unix", contact_file, listen_secret;
  std::string nspace;
  unsigned rank = 0;
  size_t chunk = 0;
  bool relay = false, no_flow = false, stats = false;
  unsigned producers = 1;
  unsigned timeout_ms = 10000;
};

void usage() {
  std::fprintf(stderr,
               "usage: pmix_push [--server URI] [--secret S] [--nspace NS] [--rank R] [--file F]\n"
               "                 [--chunk BYTES] [--no-flow-control] [--connect-timeout MS] [--stats]\n"
               "       pmix_push --relay --listen unix|unix:PATH|tcp|tcp:HOST:PORT --contact-file PATH\n"
               "                 [--listen-secret S] [--producers N] [--server URI] [...]\n");
}

std::mutex g_mu;
std::condition_variable g_cv;
bool g_done = false;
pmix_status_t g_status = PMIX_SUCCESS;
unsigned g_ended = 0;
unsigned g_producers = 1;

void finish(pmix_status_t st) {
  std::lock_guard<std::mutex> l(g_mu);
  if (st != PMIX_SUCCESS && g_status == PMIX_SUCCESS) g_status = st;
  g_done = true;
  g_cv.notify_all();
}

struct Fwd {
  pmix_op_cbfunc_t cb;
  void *cbdata;
};

void forwarded(pmix_status_t st, void *cbdata) {
  auto *f = static_cast<Fwd *>(cbdata);
  // The chunk is completed towards our producer only once the upstream
  // host took it: until then our server reads nothing more from it, and
  // our producer's acknowledgement means what upstream's does.
  f->cb(st == PMIX_SUCCESS ? PMIX_SUCCESS : PMIX_ERR_IOF_FAILURE, f->cbdata);
  delete f;
}

void end_sent(pmix_status_t st, void *) { finish(st); }

// The relay's host: everything our producers push goes upstream as is.
pmix_status_t relay_stdin(const pmix_proc_t *, const pmix_proc_t targets[], size_t ntargets, const pmix_info_t[],
                          size_t, const pmix_byte_object_t *bo, pmix_op_cbfunc_t cbfunc, void *cbdata) {
  if (bo->size == 0) {
    bool last;
    {
      std::lock_guard<std::mutex> l(g_mu);
      last = ++g_ended == g_producers;
    }
    if (last && PMIx_IOF_push(targets, ntargets, nullptr, nullptr, 0, end_sent, nullptr) != PMIX_SUCCESS)
      finish(PMIX_ERR_IOF_FAILURE);
    return PMIX_OPERATION_SUCCEEDED;
  }
  auto *f = new Fwd{cbfunc, cbdata};
  pmix_byte_object_t copy = *bo;
  pmix_status_t rc = PMIx_IOF_push(targets, ntargets, &copy, nullptr, 0, forwarded, f);
  if (rc != PMIX_SUCCESS) {
    delete f;
    return PMIX_ERR_IOF_FAILURE;
  }
  return PMIX_SUCCESS;
}

bool write_contact(const std::string &path) {
  char uri[512], secret[256];
  if (pmixshim_server_contact(uri, sizeof uri, secret, sizeof secret) != PMIX_SUCCESS) return false;
  // Written whole and renamed, so a reader never sees half a file.
  std::string tmp = path + ".tmp";
  FILE *f = std::fopen(tmp.c_str(), "w");
  if (!f) return false;
  std::fprintf(f, "%s\n%s\n", uri, secret);
  std::fclose(f);
  return std::rename(tmp.c_str(), path.c_str()) == 0;
}

void print_stats() {
  pmixshim_iof_stats_t s;
  pmixshim_get_iof_stats(&s);
  std::fprintf(stderr,
               "pmix_push stats: xoff_received=%llu xon_received=%llu relayed_xoff=%llu relayed_xon=%llu "
               "xoff=%llu xon=%llu bytes_pushed=%llu bytes_acked=%llu\n",
               (unsigned long long)s.xoff_received, (unsigned long long)s.xon_received,
               (unsigned long long)s.relayed_xoff, (unsigned long long)s.relayed_xon, (unsigned long long)s.xoff,
               (unsigned long long)s.xon, (unsigned long long)s.bytes_pushed, (unsigned long long)s.bytes_acked);
}

}  // namespace

int main(int argc, char **argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto val = [&](std::string &out) {
      if (i + 1 >= argc) return false;
      out = argv[++i];
      return true;
    };
    std::string v;
    bool ok = true;
    if (a == "--server") ok = val(o.server);
    else if (a == "--secret") ok = val(o.secret);
    else if (a == "--file") ok = val(o.file);
    else if (a == "--nspace") ok = val(o.nspace);
    else if (a == "--rank") {
      ok = val(v);
      o.rank = static_cast<unsigned>(std::strtoul(v.c_str(), nullptr, 10));
    } else if (a == "--chunk") {
      ok = val(v);
      o.chunk = std::strtoul(v.c_str(), nullptr, 10);
    } else if (a == "--connect-timeout") {
      ok = val(v);
      o.timeout_ms = static_cast<unsigned>(std::strtoul(v.c_str(), nullptr, 10));
    } else if (a == "--no-flow-control") o.no_flow = true;
    else if (a == "--stats") o.stats = true;
    else if (a == "--relay") o.relay = true;
    else if (a == "--listen") ok = val(o.listen);
    else if (a == "--listen-secret") ok = val(o.listen_secret);
    else if (a == "--contact-file") ok = val(o.contact_file);
    else if (a == "--producers") {
      ok = val(v);
      o.producers = static_cast<unsigned>(std::strtoul(v.c_str(), nullptr, 10));
    } else ok = false;
    if (!ok) {
      usage();
      return 2;
    }
  }
  if (o.relay && o.contact_file.empty()) {
    usage();
    return 2;
  }
  g_producers = o.producers;

  std::vector<pmix_info_t> info;
  pmix_info_t it;
  if (!o.server.empty()) {
    PMIX_INFO_LOAD(&it, PMIX_SERVER_URI, o.server.c_str(), PMIX_STRING);
    info.push_back(it);
  }
  if (!o.secret.empty()) {
    PMIX_INFO_LOAD(&it, PMIX_SHIM_SECRET, o.secret.c_str(), PMIX_STRING);
    info.push_back(it);
  }
  if (!o.nspace.empty()) {
    PMIX_INFO_LOAD(&it, PMIX_TOOL_NSPACE, o.nspace.c_str(), PMIX_STRING);
    info.push_back(it);
  }
  uint32_t rank = o.rank;
  PMIX_INFO_LOAD(&it, PMIX_TOOL_RANK, &rank, PMIX_UINT32);
  info.push_back(it);
  uint32_t tmo = o.timeout_ms;
  PMIX_INFO_LOAD(&it, PMIX_SHIM_CONNECT_TIMEOUT_MS, &tmo, PMIX_UINT32);
  info.push_back(it);
  bool t = true;
  if (o.no_flow) {
    PMIX_INFO_LOAD(&it, PMIX_SHIM_NO_FLOW_CONTROL, &t, PMIX_BOOL);
    info.push_back(it);
  }
  pmix_status_t rc = PMIx_tool_init(nullptr, info.data(), info.size());
  for (pmix_info_t &i : info) PMIX_INFO_DESTRUCT(&i);
  if (rc != PMIX_SUCCESS) {
    std::fprintf(stderr, "pmix_push: cannot connect: %s\n", PMIx_Error_string(rc));
    return 1;
  }

  if (o.relay) {
    std::vector<pmix_info_t> sinfo;
    PMIX_INFO_LOAD(&it, PMIX_SHIM_LISTEN, o.listen.c_str(), PMIX_STRING);
    sinfo.push_back(it);
    if (!o.listen_secret.empty()) {
      PMIX_INFO_LOAD(&it, PMIX_SHIM_SECRET, o.listen_secret.c_str(), PMIX_STRING);
      sinfo.push_back(it);
    }
    pmix_server_module_t module{};
    module.push_stdin = relay_stdin;
    rc = PMIx_server_init(&module, sinfo.data(), sinfo.size());
    for (pmix_info_t &i : sinfo) PMIX_INFO_DESTRUCT(&i);
    if (rc != PMIX_SUCCESS || !write_contact(o.contact_file)) {
      std::fprintf(stderr, "pmix_push: cannot start the relay server: %s\n", PMIx_Error_string(rc));
      PMIx_tool_finalize();
      return 1;
    }
    {
      std::unique_lock<std::mutex> l(g_mu);
      g_cv.wait(l, [] { return g_done; });
    }
    PMIx_server_finalize();
    rc = g_status;
  } else {
    int fd = 0;
    if (!o.file.empty()) {
      fd = ::open(o.file.c_str(), O_RDONLY | O_CLOEXEC);
      if (fd < 0) {
        std::perror(o.file.c_str());
        PMIx_tool_finalize();
        return 1;
      }
    }
    // Completion at the end of the stream, once the server's host has
    // taken all of it: that is what our exit status reports.
    std::vector<pmix_info_t> dirs(3);
    PMIX_INFO_LOAD(&dirs[0], PMIX_IOF_PUSH_STDIN, &t, PMIX_BOOL);
    PMIX_INFO_LOAD(&dirs[1], PMIX_SHIM_IOF_FD, &fd, PMIX_INT);
    PMIX_INFO_LOAD(&dirs[2], PMIX_SHIM_IOF_COMPLETE_AT_END, &t, PMIX_BOOL);
    if (o.chunk) {
      dirs.resize(4);
      PMIX_INFO_LOAD(&dirs[3], PMIX_SHIM_CHUNK_SIZE, &o.chunk, PMIX_SIZE);
    }
    rc = PMIx_IOF_push(nullptr, 0, nullptr, dirs.data(), dirs.size(), nullptr, nullptr);
    if (rc == PMIX_OPERATION_SUCCEEDED) rc = PMIX_SUCCESS;
    if (fd != 0) ::close(fd);
  }
  PMIx_tool_finalize();
  if (o.stats) print_stats();
  if (rc != PMIX_SUCCESS) {
    pmixshim_iof_stats_t s;
    pmixshim_get_iof_stats(&s);
    std::fprintf(stderr, "pmix_push: %s: the server's host took %llu of the %llu bytes pushed\n",
                 PMIx_Error_string(rc), (unsigned long long)s.bytes_acked, (unsigned long long)s.bytes_pushed);
    return 1;
  }
  return 0;
}
