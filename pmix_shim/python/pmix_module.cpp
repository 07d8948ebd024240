// The `pmix` Python module: PMIxServer with init() (optionally with a
// push_stdin host callback), iof_flow_control() (the blocking form) and
// finalize(), plus the constants, so the seed's Python example runs as
// written and a Python host can take stdin and apply flow control.
#include <pmix_server.h>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstring>
#include <optional>
#include <string>
#include <vector>

namespace py = pybind11;

namespace {

// nspaces arrive from tools as raw bytes.  surrogateescape in both
// directions lets any of them reach Python and come back unchanged (a host
// that suspends one producer by name passes back the dict it was given),
// where strict UTF-8 would make an odd name refuse every chunk.
py::str nspace_to_py(const char *ns) {
  PyObject *s = PyUnicode_DecodeUTF8(ns, static_cast<Py_ssize_t>(strnlen(ns, PMIX_MAX_NSLEN)), "surrogateescape");
  if (!s) throw py::error_already_set();
  return py::reinterpret_steal<py::str>(s);
}

std::string nspace_from_py(const py::handle &o) {
  PyObject *b = PyUnicode_AsEncodedString(o.ptr(), "utf-8", "surrogateescape");
  if (!b) throw py::error_already_set();
  return py::reinterpret_steal<py::bytes>(b).cast<std::string>();
}

// Turns the Python spelling of a source into a pmix_proc_t: a dict with
// 'nspace' and 'rank'.  Returns false for None (every producer).
bool to_proc(const py::object &o, pmix_proc_t *p) {
  if (o.is_none()) return false;
  auto d = o.cast<py::dict>();
  std::string ns = d.contains("nspace") ? nspace_from_py(d["nspace"]) : std::string();
  pmix_rank_t rank = d.contains("rank") ? d["rank"].cast<pmix_rank_t>() : PMIX_RANK_WILDCARD;
  pmixshim_load_procid(p, ns.c_str(), rank);
  return true;
}

// The host's push_stdin callable.  The C module table carries no user
// pointer and a process has one server, so there is one of these.  Read and
// written only with the GIL held.  init() sets it before the server starts;
// finalize() (or the exit hook) drops it once the server is down, so the
// progress thread never calls a dropped object.  Held through a pointer so
// that no static destructor touches Python after the interpreter is gone.
py::object *g_push_stdin = nullptr;

void drop_push_stdin() {
  delete g_push_stdin;
  g_push_stdin = nullptr;
}

// A refused chunk goes to the `logging` module (logger "pmix") so a host
// routes it like its own diagnostics; with no handler configured, Python's
// last-resort handler prints it to stderr.  exc_info carries the traceback
// when the callable raised.
void log_refusal(const pmix_proc_t &src, const char *why, const py::object &exc_info) noexcept {
  try {
    py::module_::import("logging").attr("getLogger")("pmix").attr("error")(
        "push_stdin for %s:%d %s; the chunk is refused with PMIX_ERROR and the stream closed", nspace_to_py(src.nspace),
        src.rank, why, py::arg("exc_info") = exc_info);
  } catch (py::error_already_set &e) {
    e.discard_as_unraisable("pmix: logging a refused push_stdin chunk");
  } catch (...) {
    // Nothing left to report through; the returned status still says it.
  }
}

// The C upcall behind a Python host.  It runs on the shim's progress thread
// and completes every chunk synchronously with the callable's status, so
// bo->bytes is copied into the bytes object and never referenced later.
// Nothing may propagate into the C library: an exception, or a result that
// is not a status, refuses the chunk (PMIX_ERROR) after one log line.
pmix_status_t push_stdin_upcall(const pmix_proc_t *source, const pmix_proc_t[], size_t, const pmix_info_t[], size_t,
                                const pmix_byte_object_t *bo, pmix_op_cbfunc_t, void *) noexcept {
  py::gil_scoped_acquire gil;
  // Not set only if the server outlived its Python host, which the exit
  // hook prevents; take the data rather than fail a producer over it.
  if (!g_push_stdin) return PMIX_OPERATION_SUCCEEDED;
  try {
    py::dict src;
    src["nspace"] = nspace_to_py(source->nspace);
    src["rank"] = source->rank;
    py::object rc = (*g_push_stdin)(src, py::bytes(bo->bytes, bo->size));
    if (!py::isinstance<py::int_>(rc)) {
      log_refusal(*source, ("returned " + py::repr(rc).cast<std::string>() + ", not a status").c_str(), py::none());
      return PMIX_ERROR;
    }
    pmix_status_t st = rc.cast<pmix_status_t>();
    // A returned PMIX_SUCCESS would tell the library to wait for cbfunc,
    // which a Python host never calls: the chunk is taken now.
    return st == PMIX_SUCCESS ? PMIX_OPERATION_SUCCEEDED : st;
  } catch (py::error_already_set &e) {
    log_refusal(*source, "raised", py::make_tuple(e.type(), e.value(), e.trace()));
  } catch (const std::exception &e) {
    log_refusal(*source, (std::string("failed: ") + e.what()).c_str(), py::none());
  }
  return PMIX_ERROR;
}

class PMIxServer {
 public:
  // keyvals: optional list of {'key': ..., 'value': ..., 'val_type': ...}
  // dicts (the PMIx Python binding's shape); string and int values are used.
  int init(const py::object &keyvals, const py::object &, const std::optional<py::function> &push_stdin) {
    std::vector<std::string> strs;
    std::vector<pmix_info_t> info;
    std::vector<uint32_t> ints;
    if (!keyvals.is_none()) {
      auto l = keyvals.cast<py::list>();
      strs.reserve(2 * l.size());
      ints.reserve(l.size());
      for (auto item : l) {
        auto d = item.cast<py::dict>();
        strs.push_back(d["key"].cast<std::string>());
        const std::string &key = strs.back();
        pmix_info_t i;
        py::object v = d["value"];
        if (py::isinstance<py::str>(v)) {
          strs.push_back(v.cast<std::string>());
          pmixshim_info_load(&i, key.c_str(), strs.back().c_str(), PMIX_STRING);
        } else {
          ints.push_back(v.cast<uint32_t>());
          pmixshim_info_load(&i, key.c_str(), &ints.back(), PMIX_UINT32);
        }
        info.push_back(i);
      }
    }
    pmix_server_module_t module{};
    if (push_stdin) {
      // A running server already has its host; the library would say
      // the same, but the callable must not be replaced under it.
      if (g_push_stdin) return PMIX_ERR_INIT;
      g_push_stdin = new py::object(*push_stdin);
      module.push_stdin = push_stdin_upcall;
    }
    pmix_status_t rc;
    {
      py::gil_scoped_release nogil;
      rc = PMIx_server_init(&module, info.data(), info.size());
    }
    if (rc != PMIX_SUCCESS && module.push_stdin) drop_push_stdin();
    return rc;
  }

  int iof_flow_control(const py::object &source, pmix_iof_channel_t channel, bool xoff, const py::list &) {
    pmix_proc_t p;
    bool have = to_proc(source, &p);
    // The blocking form waits for the progress thread, which may itself
    // be waiting for the GIL to call push_stdin.
    py::gil_scoped_release nogil;
    return PMIx_server_IOF_flow_control(have ? &p : nullptr, channel, xoff, nullptr, 0, nullptr, nullptr);
  }

  int finalize() {
    pmix_status_t rc;
    {
      py::gil_scoped_release nogil;
      rc = PMIx_server_finalize();
    }
    // Only a server that is down can no longer call the host; from
    // inside push_stdin finalize returns PMIX_ERR_WOULD_BLOCK and the
    // callable stays.
    if (rc == PMIX_SUCCESS) drop_push_stdin();
    return rc;
  }

  int read_stdin(int fd) {
    // Non-blocking: reading runs until EOF on the progress thread.
    return pmixshim_server_read_stdin(
        fd, nullptr, 0, [](pmix_status_t, void *) {}, nullptr);
  }

  py::tuple contact() {
    char uri[512], secret[256];
    int rc = pmixshim_server_contact(uri, sizeof uri, secret, sizeof secret);
    if (rc != PMIX_SUCCESS) return py::make_tuple(rc, py::none(), py::none());
    return py::make_tuple(rc, std::string(uri), std::string(secret));
  }
};

// Registered with atexit: a server left running with a Python host is
// finalized while the interpreter still works, because its progress thread
// would otherwise take the GIL during interpreter shutdown.
void finalize_at_exit() {
  if (!g_push_stdin) return;
  pmix_status_t rc;
  {
    py::gil_scoped_release nogil;
    rc = PMIx_server_finalize();
  }
  if (rc == PMIX_SUCCESS) drop_push_stdin();
}

py::dict stats() {
  pmixshim_iof_stats_t s;
  pmixshim_get_iof_stats(&s);
  py::dict d;
  d["xoff"] = s.xoff;
  d["xon"] = s.xon;
  d["xon_on_close"] = s.xon_on_close;
  d["xoff_sent"] = s.xoff_sent;
  d["xon_sent"] = s.xon_sent;
  d["streams_opened"] = s.streams_opened;
  d["streams_closed"] = s.streams_closed;
  d["bytes_delivered"] = s.bytes_delivered;
  d["chunks_delivered"] = s.chunks_delivered;
  d["peers_refused"] = s.peers_refused;
  d["legacy_peers"] = s.legacy_peers;
  d["engine_running"] = s.engine_running;
  return d;
}

constexpr const char *kInitDoc = R"doc(Start the server.  keyvals: list of {'key', 'value', 'val_type'} dicts
(PMIX_SERVER_NSPACE, PMIX_SERVER_RANK, PMIX_SHIM_LISTEN, PMIX_SHIM_SECRET).

push_stdin(source, data) -> int is the host callback: source is
{'nspace': str, 'rank': int}, data the chunk as bytes (b'' ends that
source's stream).  It is called on the shim's progress thread, with the GIL,
one chunk at a time per source.  Return PMIX_SUCCESS (or
PMIX_OPERATION_SUCCEEDED) to take the chunk; PMIX_ERR_IOF_XOFF to take it and
suspend that producer at its source; any other error to refuse it (the
stream is closed and a tool sees PMIX_ERR_IOF_FAILURE).  An exception or a
result that is not an int is logged (logger "pmix") and refuses the chunk.
Without push_stdin, stdin is discarded.

Blocking calls made inside the callback return PMIX_ERR_WOULD_BLOCK.  To
suspend without blocking, return PMIX_ERR_IOF_XOFF; resume later from
another thread with iof_flow_control(source_or_None,
PMIX_FWD_STDIN_CHANNEL, False, []).

Returns PMIX_SUCCESS, PMIX_ERR_INIT if the server is already running, or the
library's error.)doc";

}  // namespace

PYBIND11_MODULE(pmix, m) {
  m.doc() = "PMIx IOF shim: server-side stdin and its flow control";
  py::class_<PMIxServer>(m, "PMIxServer")
      .def(py::init<>())
      .def("init", &PMIxServer::init, py::arg("keyvals") = py::none(), py::arg("map") = py::none(),
           py::arg("push_stdin") = py::none(), kInitDoc)
      .def("iof_flow_control", &PMIxServer::iof_flow_control, py::arg("source"), py::arg("channel"), py::arg("xoff"),
           py::arg("directives"),
           "Blocking PMIx_server_IOF_flow_control; source None means every producer.  Returns "
           "PMIX_OPERATION_SUCCEEDED, or PMIX_ERR_WOULD_BLOCK when called inside push_stdin.")
      .def("finalize", &PMIxServer::finalize)
      .def("read_stdin", &PMIxServer::read_stdin, py::arg("fd") = 0)
      .def("contact", &PMIxServer::contact);
  m.def("iof_stats", &stats);
  m.def("error_string", [](int st) { return std::string(PMIx_Error_string(st)); });
  py::module_::import("atexit").attr("register")(py::cpp_function(&finalize_at_exit));
#define PMIX_PY_CONST(n) m.attr(#n) = static_cast<int>(n)
  PMIX_PY_CONST(PMIX_SUCCESS);
  PMIX_PY_CONST(PMIX_ERROR);
  PMIX_PY_CONST(PMIX_OPERATION_SUCCEEDED);
  PMIX_PY_CONST(PMIX_ERR_NOT_SUPPORTED);
  PMIX_PY_CONST(PMIX_ERR_NOMEM);
  PMIX_PY_CONST(PMIX_ERR_NOT_AVAILABLE);
  PMIX_PY_CONST(PMIX_ERR_INIT);
  PMIX_PY_CONST(PMIX_ERR_WOULD_BLOCK);
  PMIX_PY_CONST(PMIX_ERR_BAD_PARAM);
  PMIX_PY_CONST(PMIX_ERR_IOF_FAILURE);
  PMIX_PY_CONST(PMIX_ERR_IOF_COMPLETE);
  PMIX_PY_CONST(PMIX_ERR_IOF_XOFF);
  PMIX_PY_CONST(PMIX_FWD_NO_CHANNELS);
  PMIX_PY_CONST(PMIX_FWD_STDIN_CHANNEL);
  PMIX_PY_CONST(PMIX_FWD_STDOUT_CHANNEL);
  PMIX_PY_CONST(PMIX_FWD_STDERR_CHANNEL);
  PMIX_PY_CONST(PMIX_FWD_STDDIAG_CHANNEL);
  PMIX_PY_CONST(PMIX_FWD_ALL_CHANNELS);
  PMIX_PY_CONST(PMIX_CAP_IOF_FLOW_CONTROL);
  m.attr("PMIX_RANK_WILDCARD") = static_cast<uint32_t>(PMIX_RANK_WILDCARD);
  m.attr("PMIX_SERVER_NSPACE") = PMIX_SERVER_NSPACE;
  m.attr("PMIX_SERVER_RANK") = PMIX_SERVER_RANK;
  m.attr("PMIX_SHIM_LISTEN") = PMIX_SHIM_LISTEN;
  m.attr("PMIX_SHIM_SECRET") = PMIX_SHIM_SECRET;
}
