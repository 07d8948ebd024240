// The `pmix` Python module: PMIxServer with init() (a push_stdin host
// callback in this module's shape, or OpenPMIx's 'pushstdin' upcall),
// iof_flow_control() in its blocking and non-blocking forms, finalize(),
// initialized(), get_version(), error_string(), plus the constants, so the
// seed's Python example and the flow-control part of OpenPMIx's Python
// server test run as written and a Python host can take stdin and apply
// flow control.
#include <pmix_server.h>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
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

py::dict proc_to_py(const pmix_proc_t &p) {
  py::dict d;
  d["nspace"] = nspace_to_py(p.nspace);
  d["rank"] = p.rank;
  return d;
}

// A Python list of {'key', 'value', 'val_type'} dicts (the PMIx Python
// binding's shape) as a pmix_info_t array, alive as long as a call needs
// it: the blocking calls for the call, a non-blocking one until its
// callback ran.  Loading references the strings with the shim's first
// headers and copies them with OpenPMIx's, so they live here too, at fixed
// addresses (a deque never moves its elements).  Not copyable: the array
// points into it.
class InfoList {
 public:
  InfoList() = default;
  InfoList(const InfoList &) = delete;
  InfoList &operator=(const InfoList &) = delete;
  ~InfoList() {
#ifdef PMIX_INFO_DESTRUCT
    // Once loading copies values, each info owns them.
    for (auto &i : infos_) PMIX_INFO_DESTRUCT(&i);
#endif
  }

  // Fills the array from dicts (None or a list).  A value whose val_type
  // is given is loaded as that type; without one, str is a string, bool a
  // bool and int a uint32.  Returns PMIX_ERR_BAD_PARAM for a val_type this
  // module cannot load; a list or dict of the wrong shape raises.
  pmix_status_t load(const py::object &dicts) {
    if (dicts.is_none()) return PMIX_SUCCESS;
    for (auto item : dicts.cast<py::list>()) {
      auto d = item.cast<py::dict>();
      std::string key = d["key"].cast<std::string>();
      py::object v = d["value"];
      int type;
      if (d.contains("val_type") && !d["val_type"].is_none())
        type = d["val_type"].cast<int>();
      else if (py::isinstance<py::str>(v))
        type = PMIX_STRING;
      else if (py::isinstance<py::bool_>(v))
        type = PMIX_BOOL;
      else
        type = PMIX_UINT32;
      pmix_info_t i;
      if (!load_one(&i, key, v, type)) return PMIX_ERR_BAD_PARAM;
      infos_.push_back(i);
    }
    return PMIX_SUCCESS;
  }

  pmix_info_t *data() { return infos_.empty() ? nullptr : infos_.data(); }
  size_t size() const { return infos_.size(); }

 private:
  template <typename T>
  static void load_as(pmix_info_t *i, const std::string &key, const py::object &v, int type) {
    T x = v.cast<T>();
    PMIX_INFO_LOAD(i, key.c_str(), &x, static_cast<pmix_data_type_t>(type));
  }

  bool load_one(pmix_info_t *i, const std::string &key, const py::object &v, int type) {
    switch (type) {
      case PMIX_STRING:
        strs_.push_back(py::isinstance<py::str>(v) ? nspace_from_py(v) : v.cast<std::string>());
        PMIX_INFO_LOAD(i, key.c_str(), strs_.back().c_str(), PMIX_STRING);
        return true;
      case PMIX_BOOL: load_as<bool>(i, key, v, type); return true;
      case PMIX_BYTE: load_as<uint8_t>(i, key, v, type); return true;
      case PMIX_SIZE: load_as<size_t>(i, key, v, type); return true;
      case PMIX_PID: load_as<pid_t>(i, key, v, type); return true;
      case PMIX_INT: load_as<int>(i, key, v, type); return true;
      case PMIX_INT32: load_as<int32_t>(i, key, v, type); return true;
      case PMIX_INT64: load_as<int64_t>(i, key, v, type); return true;
      case PMIX_UINT32:
      case PMIX_PROC_RANK: load_as<uint32_t>(i, key, v, type); return true;
      case PMIX_UINT64: load_as<uint64_t>(i, key, v, type); return true;
      case PMIX_STATUS: load_as<pmix_status_t>(i, key, v, type); return true;
      default: return false;
    }
  }

  std::deque<std::string> strs_;
  std::vector<pmix_info_t> infos_;
};

// The reverse, for the directives the library hands an upcall; a value of
// a type not listed comes out as None.
py::list infos_to_py(const pmix_info_t *info, size_t n) {
  py::list l;
  for (size_t k = 0; info && k < n; ++k) {
    const pmix_info_t &i = info[k];
    py::object v = py::none();
    switch (i.value.type) {
      case PMIX_BOOL: v = py::bool_(i.value.data.flag); break;
      case PMIX_STRING: if (i.value.data.string) v = nspace_to_py(i.value.data.string); break;
      case PMIX_SIZE: v = py::int_(i.value.data.size); break;
      case PMIX_INT: v = py::int_(i.value.data.integer); break;
      case PMIX_INT32: v = py::int_(i.value.data.int32); break;
      case PMIX_INT64: v = py::int_(i.value.data.int64); break;
      case PMIX_UINT32:
      case PMIX_PROC_RANK: v = py::int_(i.value.data.uint32); break;
      case PMIX_UINT64: v = py::int_(i.value.data.uint64); break;
      case PMIX_STATUS: v = py::int_(i.value.data.status); break;
      default: break;
    }
    py::dict d;
    d["key"] = py::str(std::string(i.key, strnlen(i.key, PMIX_MAX_KEYLEN)));
    d["value"] = v;
    d["val_type"] = static_cast<int>(i.value.type);
    l.append(d);
  }
  return l;
}

// Diagnostics go to the `logging` module (logger "pmix") so a host routes
// them like its own; with no handler configured, Python's last-resort
// handler prints them to stderr.  exc_info carries the traceback when a
// callable raised.  Called with the GIL held.
void log_error(const py::str &msg, const py::object &exc_info) noexcept {
  try {
    py::module_::import("logging").attr("getLogger")("pmix").attr("error")("%s", msg,
                                                                          py::arg("exc_info") = exc_info);
  } catch (py::error_already_set &e) {
    e.discard_as_unraisable("pmix: logging an error");
  } catch (...) {
    // Nothing left to report through; the returned status still says it.
  }
}

void log_refusal(const pmix_proc_t &src, const std::string &why, const py::object &exc_info) noexcept {
  try {
    log_error(py::str("push_stdin for {}:{} {}; the chunk is refused with PMIX_ERROR and the stream closed")
                  .format(nspace_to_py(src.nspace), src.rank, why),
              exc_info);
  } catch (py::error_already_set &e) {
    e.discard_as_unraisable("pmix: logging a refused push_stdin chunk");
  }
}

// ---- the host's stdin callable ---------------------------------------------

// Which calling convention g_push_stdin follows.
enum class StdinStyle {
  // init(push_stdin=f): f(source, data) -> status, the chunk completed by
  // the return value.
  simple,
  // init(map={'pushstdin': f}), OpenPMIx's: f(args, cbfunc, cbdata) with
  // args {'source', 'targets', 'directives', 'payload': {'bytes', 'size'}};
  // f returns PMIX_SUCCESS and calls cbfunc(status, cbdata) (now or later,
  // from any thread), or returns another status that completes the chunk.
  upcall,
};

// The host's stdin callable.  The C module table carries no user pointer
// and a process has one server, so there is one of these.  Read and
// written only with the GIL held.  init() sets it before the server starts;
// finalize() (or the exit hook) drops it once the server is down, so the
// progress thread never calls a dropped object.  Held through a pointer so
// that no static destructor touches Python after the interpreter is gone.
py::object *g_push_stdin = nullptr;
StdinStyle g_push_style = StdinStyle::simple;

// Counts the servers this module has finalized (GIL held).  A completion
// the host calls after its server is gone finds it changed and is ignored,
// so it cannot complete a chunk of a later server with the same id.
uint64_t g_server_generation = 0;

// True while this module's init() started the server and its finalize()
// has not stopped it: the exit hook finalizes such a server.
bool g_started = false;

void drop_push_stdin() {
  delete g_push_stdin;
  g_push_stdin = nullptr;
}

// The completion an OpenPMIx-style host is handed for one chunk.  Touched
// only with the GIL held.  While the upcall runs, a completion is recorded
// and returned by the upcall itself (the library takes a status returned
// by push_stdin at once; a cbfunc called as well would complete whatever
// chunk comes next).  After the upcall returned PMIX_SUCCESS, the first
// completion goes to the library; everything else is ignored.
struct ChunkCompletion {
  enum class State { in_upcall, completed_early, waiting, done };
  State state = State::in_upcall;
  pmix_status_t early = PMIX_SUCCESS;
  pmix_op_cbfunc_t fn;
  void *cbdata;
  uint64_t generation;

  void complete(pmix_status_t st) {
    switch (state) {
      case State::in_upcall:
        early = st;
        state = State::completed_early;
        return;
      case State::waiting:
        state = State::done;
        if (generation == g_server_generation) fn(st, cbdata);  // thread-shifts; never blocks
        return;
      default: return;
    }
  }
};

pmix_status_t call_simple(const pmix_proc_t *source, const pmix_byte_object_t *bo) {
  py::object rc = (*g_push_stdin)(proc_to_py(*source), py::bytes(bo ? bo->bytes : "", bo ? bo->size : 0));
  if (!py::isinstance<py::int_>(rc)) {
    log_refusal(*source, "returned " + py::repr(rc).cast<std::string>() + ", not a status", py::none());
    return PMIX_ERROR;
  }
  pmix_status_t st = rc.cast<pmix_status_t>();
  // A returned PMIX_SUCCESS would tell the library to wait for cbfunc,
  // which this kind of host never calls: the chunk is taken now.
  return st == PMIX_SUCCESS ? PMIX_OPERATION_SUCCEEDED : st;
}

pmix_status_t call_upcall(const pmix_proc_t *source, const pmix_proc_t targets[], size_t ntargets,
                          const pmix_info_t directives[], size_t ndirs, const pmix_byte_object_t *bo,
                          pmix_op_cbfunc_t cbfunc, void *cbdata) {
  py::dict args;
  args["source"] = proc_to_py(*source);
  if (targets && ntargets) {
    py::list t;
    for (size_t k = 0; k < ntargets; ++k) t.append(proc_to_py(targets[k]));
    args["targets"] = t;
  }
  if (directives && ndirs) args["directives"] = infos_to_py(directives, ndirs);
  // The bytes are copied, so the host may keep the payload as long as it
  // likes, also after it completed the chunk.
  py::dict payload;
  size_t n = bo ? bo->size : 0;
  payload["bytes"] = py::reinterpret_steal<py::object>(PyByteArray_FromStringAndSize(bo ? bo->bytes : "", n));
  payload["size"] = n;
  args["payload"] = payload;

  auto done = std::make_shared<ChunkCompletion>();
  done->fn = cbfunc;
  done->cbdata = cbdata;
  done->generation = g_server_generation;
  py::cpp_function complete(
      [done](pmix_status_t st, const py::object &) { done->complete(st); }, py::arg("status"),
      py::arg("cbdata") = py::none());
  py::object rc;
  try {
    rc = (*g_push_stdin)(args, complete, py::dict());
  } catch (...) {
    done->state = ChunkCompletion::State::done;
    throw;
  }
  if (!py::isinstance<py::int_>(rc)) {
    done->state = ChunkCompletion::State::done;
    log_refusal(*source, "returned " + py::repr(rc).cast<std::string>() + ", not a status", py::none());
    return PMIX_ERROR;
  }
  pmix_status_t st = rc.cast<pmix_status_t>();
  if (st != PMIX_SUCCESS) {
    done->state = ChunkCompletion::State::done;
    return st;
  }
  if (done->state == ChunkCompletion::State::completed_early) {
    done->state = ChunkCompletion::State::done;
    return done->early == PMIX_SUCCESS ? PMIX_OPERATION_SUCCEEDED : done->early;
  }
  done->state = ChunkCompletion::State::waiting;
  return PMIX_SUCCESS;
}

// The C upcall behind a Python host.  It runs on the shim's progress
// thread.  Nothing may propagate into the C library: an exception, or a
// result that is not a status, refuses the chunk (PMIX_ERROR) after one log
// line.
pmix_status_t push_stdin_upcall(const pmix_proc_t *source, const pmix_proc_t targets[], size_t ntargets,
                                const pmix_info_t directives[], size_t ndirs, const pmix_byte_object_t *bo,
                                pmix_op_cbfunc_t cbfunc, void *cbdata) noexcept {
  py::gil_scoped_acquire gil;
  // Not set only if the server outlived its Python host, which the exit
  // hook prevents; take the data rather than fail a producer over it.
  if (!g_push_stdin) return PMIX_OPERATION_SUCCEEDED;
  try {
    if (g_push_style == StdinStyle::upcall)
      return call_upcall(source, targets, ntargets, directives, ndirs, bo, cbfunc, cbdata);
    return call_simple(source, bo);
  } catch (py::error_already_set &e) {
    log_refusal(*source, "raised", py::make_tuple(e.type(), e.value(), e.trace()));
  } catch (const std::exception &e) {
    log_refusal(*source, std::string("failed: ") + e.what(), py::none());
  }
  return PMIX_ERROR;
}

// ---- non-blocking calls ----------------------------------------------------

// One accepted non-blocking call: the Python callback and cbdata (strong
// references, so neither can go away before the callback ran, whatever
// the caller does with its own) and the directives the library may read
// until then.  Created and destroyed with the GIL held.
struct NbOp {
  py::object cbfunc;
  py::object cbdata;
  InfoList dirs;
  const char *call;
};

// Bookkeeping that keeps callbacks away from a finalizing interpreter.
// `queued`: accepted by the library (or being submitted), callback not yet
// started.  `running`: callback started and may still touch Python.  Once
// the exit hook sets `disowned`, a callback that has not started leaves its
// Python objects alone (they leak: the interpreter is going away).
struct NbState {
  std::mutex mu;
  std::condition_variable cv;
  size_t queued = 0;
  size_t running = 0;
  bool closing = false;  // exit hook ran: no new non-blocking calls
  bool disowned = false;
};
NbState &nb() {
  // Never destroyed: the progress thread may still look at it while
  // static destructors run.
  static NbState *s = new NbState;
  return *s;
}

// The pmix_op_cbfunc_t behind every non-blocking call.  Runs on the
// progress thread, where it takes the GIL; an exception in the Python
// callback is logged and stays here.
void nb_done(pmix_status_t status, void *cbdata) noexcept {
  auto *op = static_cast<NbOp *>(cbdata);
  {
    std::lock_guard<std::mutex> l(nb().mu);
    nb().queued--;
    if (nb().disowned) {
      nb().cv.notify_all();
      return;
    }
    nb().running++;
  }
  {
    py::gil_scoped_acquire gil;
    try {
      op->cbfunc(status, op->cbdata);
    } catch (py::error_already_set &e) {
      log_error(py::str("the callback of a non-blocking {} raised").format(op->call),
                py::make_tuple(e.type(), e.value(), e.trace()));
    } catch (const std::exception &e) {
      log_error(py::str("the callback of a non-blocking {} failed: {}").format(op->call, e.what()), py::none());
    }
    delete op;
  }
  std::lock_guard<std::mutex> l(nb().mu);
  nb().running--;
  nb().cv.notify_all();
}

// Submits a non-blocking call: submit(cbfunc, cbdata) makes the C call.
// Returns its status; only on PMIX_SUCCESS will nb_done run (once).
template <typename Submit>
pmix_status_t submit_nb(std::unique_ptr<NbOp> op, Submit submit) {
  {
    std::lock_guard<std::mutex> l(nb().mu);
    if (nb().closing) return PMIX_ERR_NOT_AVAILABLE;
    // Counted before the call: the callback may run before it returns.
    nb().queued++;
  }
  NbOp *raw = op.release();
  pmix_status_t rc;
  {
    // The progress thread may be waiting for the GIL (push_stdin, or an
    // earlier callback) before it takes this request.
    py::gil_scoped_release nogil;
    rc = submit(&nb_done, static_cast<void *>(raw));
  }
  if (rc != PMIX_SUCCESS) {
    // Refused: the library will not call back, the objects are ours again.
    delete raw;
    std::lock_guard<std::mutex> l(nb().mu);
    nb().queued--;
    nb().cv.notify_all();
  }
  return rc;
}

// ---- the server --------------------------------------------------------------

// OpenPMIx's server-module upcall names (the keys its binding's init()
// map accepts).  Only 'pushstdin' exists in this library; the others are
// accepted so an OpenPMIx host's map works unchanged, and never called.
constexpr const char *kOpenPmixUpcalls[] = {
    "clientconnected", "clientfinalized", "abort", "fencenb", "directmodex", "publish", "lookup", "unpublish",
    "spawn", "connect", "disconnect", "registerevents", "deregisterevents", "listener", "notifyevent", "query",
    "toolconnected", "log", "allocate", "jobcontrol", "monitor", "getcredential", "validatecredential", "iofpull",
    "pushstdin", "group", "fabric", "clientconnected2", "toolconnected2", "log2", "sessioncontrol",
    "resourceblock"};

bool is_upcall_name(const std::string &k) {
  for (const char *n : kOpenPmixUpcalls)
    if (k == n) return true;
  return false;
}

bool server_up() {
  // The library has no query of its own; asking for the contact without
  // buffers answers PMIX_ERR_INIT exactly when no server is up.
  return pmixshim_server_contact(nullptr, 0, nullptr, 0) != PMIX_ERR_INIT;
}

// Finalizes the server and, once it is down, forgets its host callable.
// Pending non-blocking calls complete inside, on the progress thread, which
// needs the GIL for their callbacks.  Only a server that is down can no
// longer call the host; from inside push_stdin finalize returns
// PMIX_ERR_WOULD_BLOCK and the callable stays.
pmix_status_t finalize_server() {
  pmix_status_t rc;
  {
    py::gil_scoped_release nogil;
    rc = PMIx_server_finalize();
  }
  if (rc == PMIX_SUCCESS) {
    drop_push_stdin();
    g_server_generation++;
    g_started = false;
  }
  return rc;
}

class PMIxServer {
 public:
  int init(const py::object &keyvals, const py::object &map, const std::optional<py::function> &push_stdin) {
    // The map is OpenPMIx's {upcall name: callable}.  A name OpenPMIx does
    // not know is refused as OpenPMIx refuses it, since ignoring a
    // misspelt 'pushstdin' would discard the job's stdin without a word.
    std::optional<py::object> upcall;
    if (!map.is_none()) {
      for (auto kv : map.cast<py::dict>()) {
        std::string k = py::str(kv.first).cast<std::string>();
        if (!is_upcall_name(k)) {
          log_error(py::str("init: {!r} is not a PMIx server upcall{}; nothing started")
                        .format(k, k == "push_stdin" ? " (OpenPMIx calls it 'pushstdin', with arguments (args, "
                                                       "cbfunc, cbdata); or pass push_stdin=callable)"
                                                     : ""),
                    py::none());
          return PMIX_ERR_INIT;
        }
        if (!PyCallable_Check(kv.second.ptr())) {
          log_error(py::str("init: the {!r} upcall is not callable; nothing started").format(k), py::none());
          return PMIX_ERR_INIT;
        }
        if (k == "pushstdin") upcall = py::reinterpret_borrow<py::object>(kv.second);
      }
    }
    if (upcall && push_stdin) {
      log_error(py::str("init: give either push_stdin= or map['pushstdin'], not both; nothing started"), py::none());
      return PMIX_ERR_BAD_PARAM;
    }
    InfoList info;
    if (pmix_status_t rc = info.load(keyvals); rc != PMIX_SUCCESS) return rc;
    pmix_server_module_t module{};
    if (push_stdin || upcall) {
      // A running server already has its host; the library would say
      // the same, but the callable must not be replaced under it.
      if (g_push_stdin) return PMIX_ERR_INIT;
      g_push_stdin = new py::object(upcall ? *upcall : py::object(*push_stdin));
      g_push_style = upcall ? StdinStyle::upcall : StdinStyle::simple;
      module.push_stdin = push_stdin_upcall;
    }
    pmix_status_t rc;
    {
      py::gil_scoped_release nogil;
      rc = PMIx_server_init(&module, info.data(), info.size());
    }
    if (rc != PMIX_SUCCESS && module.push_stdin) drop_push_stdin();
    if (rc == PMIX_SUCCESS) g_started = true;
    return rc;
  }

  int iof_flow_control(const py::object &source, pmix_iof_channel_t channel, bool xoff, const py::object &directives,
                       const py::object &cbfunc, const py::object &cbdata) {
    // Checked before anything else is looked at, as OpenPMIx's binding
    // does: a non-callable callback is a bad parameter, not an exception.
    if (!cbfunc.is_none() && !PyCallable_Check(cbfunc.ptr())) return PMIX_ERR_BAD_PARAM;
    pmix_proc_t p;
    bool have = to_proc(source, &p);
    if (cbfunc.is_none()) {
      InfoList dirs;
      if (pmix_status_t rc = dirs.load(directives); rc != PMIX_SUCCESS) return rc;
      // The blocking form waits for the progress thread, which may itself
      // be waiting for the GIL to call push_stdin.
      py::gil_scoped_release nogil;
      return PMIx_server_IOF_flow_control(have ? &p : nullptr, channel, xoff, dirs.data(), dirs.size(), nullptr,
                                          nullptr);
    }
    auto op = std::make_unique<NbOp>();
    op->cbfunc = cbfunc;
    op->cbdata = cbdata;
    op->call = "iof_flow_control";
    if (pmix_status_t rc = op->dirs.load(directives); rc != PMIX_SUCCESS) return rc;
    pmix_info_t *d = op->dirs.data();
    size_t nd = op->dirs.size();
    // The library copies the source before it returns; the directives stay
    // with the operation until its callback ran.
    return submit_nb(std::move(op), [&](pmix_op_cbfunc_t fn, void *arg) {
      return PMIx_server_IOF_flow_control(have ? &p : nullptr, channel, xoff, d, nd, fn, arg);
    });
  }

  int finalize() { return finalize_server(); }

  bool initialized() { return server_up(); }

  py::object get_version() {
    const char *v = PMIx_Get_version();
    if (!v) return py::none();
    return py::str(v);
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

py::object error_string(int st) {
  const char *s = PMIx_Error_string(st);
  if (!s) return py::none();
  return py::str(s);
}

// Registered with atexit, which runs while the interpreter still works: a
// server this module started is finalized then, because its progress
// thread would otherwise take the GIL during interpreter shutdown (for
// push_stdin or a non-blocking call's callback).
void finalize_at_exit() {
  {
    std::lock_guard<std::mutex> l(nb().mu);
    nb().closing = true;
  }
  if (g_started || g_push_stdin) finalize_server();
  // Finalize completed the calls made to this module's server.  What is
  // left was accepted by a server or tool someone else runs in this
  // process; give it a while, then leave the rest alone.  A callback that
  // already started is waited for: it only needs the GIL, released here.
  py::gil_scoped_release nogil;
  std::unique_lock<std::mutex> l(nb().mu);
  nb().cv.wait_for(l, std::chrono::seconds(5), [] { return nb().queued == 0; });
  nb().disowned = true;
  nb().cv.wait(l, [] { return nb().running == 0; });
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

constexpr const char *kInitDoc = R"doc(init(keyvals=None, map=None, push_stdin=None) -> int

Start the server.  keyvals: list of {'key', 'value', 'val_type'} dicts
(PMIX_SERVER_NSPACE, PMIX_SERVER_RANK, PMIX_SHIM_LISTEN, PMIX_SHIM_SECRET);
without 'val_type', a str is a PMIX_STRING, a bool a PMIX_BOOL, an int a
PMIX_UINT32.

push_stdin(source, data) -> int is the host callback: source is
{'nspace': str, 'rank': int}, data the chunk as bytes (b'' ends that
source's stream).  It is called on the shim's progress thread, with the GIL,
one chunk at a time per source.  Return PMIX_SUCCESS (or
PMIX_OPERATION_SUCCEEDED) to take the chunk; PMIX_ERR_IOF_XOFF to take it and
suspend that producer at its source; any other error to refuse it (the
stream is closed and a tool sees PMIX_ERR_IOF_FAILURE).  An exception or a
result that is not an int is logged (logger "pmix") and refuses the chunk.
Without a stdin callable, stdin is discarded.

map: OpenPMIx's {upcall name: callable}.  'pushstdin' is OpenPMIx's stdin
upcall: pushstdin(args, cbfunc, cbdata) -> int, args being {'source',
'targets' (if any), 'directives' (if any), 'payload': {'bytes': bytearray,
'size': int}}.  Return PMIX_SUCCESS and call cbfunc(status, cbdata) once,
now or later from any thread, with one of the statuses above; or return
one of them other than PMIX_SUCCESS to complete the chunk at once.  Every
other OpenPMIx upcall name is accepted and never called; a name OpenPMIx
does not know, or a value that is not callable, returns PMIX_ERR_INIT.

Blocking calls made inside a callback return PMIX_ERR_WOULD_BLOCK.  To
suspend from there, return PMIX_ERR_IOF_XOFF or use the non-blocking
iof_flow_control (with a cbfunc); resume later with iof_flow_control.

Returns PMIX_SUCCESS, PMIX_ERR_INIT if the server is already running or the
map is refused, PMIX_ERR_BAD_PARAM for a val_type that cannot be loaded or
both push_stdin= and map['pushstdin'], or the library's error.)doc";

constexpr const char *kFlowDoc = R"doc(iof_flow_control(source, channel, xoff, directives, cbfunc=None, cbdata=None) -> int

PMIx_server_IOF_flow_control: suspend (xoff True) or resume (False) the
processes feeding stdin to this server.  source: {'nspace', 'rank'} or None
(every producer).  directives: list of {'key', 'value', 'val_type'} dicts.

Without cbfunc the call blocks and returns PMIX_OPERATION_SUCCEEDED once
applied (PMIX_ERR_WOULD_BLOCK inside a callback of this library).

With cbfunc it returns PMIX_SUCCESS and later calls cbfunc(status, cbdata)
once, on the shim's progress thread with the GIL, cbdata being the very
object passed; an exception in cbfunc is logged (logger "pmix").  Any
other return means the request was refused and cbfunc is never called.  A
cbfunc that is not callable returns PMIX_ERR_BAD_PARAM.

Other returns: PMIX_ERR_INIT (no server), PMIX_ERR_NOT_AVAILABLE (stopping),
PMIX_ERR_NOT_SUPPORTED (channel without PMIX_FWD_STDIN_CHANNEL),
PMIX_ERR_BAD_PARAM (a directive's val_type cannot be loaded).)doc";

}  // namespace

PYBIND11_MODULE(pmix, m) {
  m.doc() = "PMIx IOF shim: server-side stdin and its flow control";
  py::class_<PMIxServer>(m, "PMIxServer")
      .def(py::init<>())
      .def("init", &PMIxServer::init, py::arg("keyvals") = py::none(), py::arg("map") = py::none(),
           py::arg("push_stdin") = py::none(), kInitDoc)
      .def("iof_flow_control", &PMIxServer::iof_flow_control, py::arg("source"), py::arg("channel"), py::arg("xoff"),
           py::arg("directives") = py::list(), py::arg("cbfunc") = py::none(), py::arg("cbdata") = py::none(),
           kFlowDoc)
      .def("finalize", &PMIxServer::finalize,
           "Stop the server; pending non-blocking calls complete first.  Returns PMIX_SUCCESS, PMIX_ERR_INIT, or "
           "PMIX_ERR_WOULD_BLOCK inside a callback of this library.")
      .def("initialized", &PMIxServer::initialized, "True while a PMIx server is up in this process.")
      .def("get_version", &PMIxServer::get_version, "The library's version string (PMIx_Get_version).")
      .def("error_string", [](PMIxServer &, int st) { return error_string(st); }, py::arg("status"),
           "The name of a status code (PMIx_Error_string).")
      .def("read_stdin", &PMIxServer::read_stdin, py::arg("fd") = 0)
      .def("contact", &PMIxServer::contact);
  m.def("iof_stats", &stats);
  m.def("error_string", &error_string, py::arg("status"));
  py::module_::import("atexit").attr("register")(py::cpp_function(&finalize_at_exit));
  // Every value comes from the C headers, so Python and C never disagree.
#define PMIX_PY_CONST(n) m.attr(#n) = static_cast<int>(n)
#define PMIX_PY_RANK(n) m.attr(#n) = static_cast<uint32_t>(n)
#define PMIX_PY_STR(n) m.attr(#n) = n
  // Status codes the library and this module return or take.
  PMIX_PY_CONST(PMIX_SUCCESS);
  PMIX_PY_CONST(PMIX_ERROR);
  PMIX_PY_CONST(PMIX_ERR_EXISTS);
  PMIX_PY_CONST(PMIX_ERR_INVALID_CRED);
  PMIX_PY_CONST(PMIX_ERR_WOULD_BLOCK);
  PMIX_PY_CONST(PMIX_ERR_UNPACK_FAILURE);
  PMIX_PY_CONST(PMIX_ERR_NO_PERMISSIONS);
  PMIX_PY_CONST(PMIX_ERR_TIMEOUT);
  PMIX_PY_CONST(PMIX_ERR_UNREACH);
  PMIX_PY_CONST(PMIX_ERR_BAD_PARAM);
  PMIX_PY_CONST(PMIX_ERR_RESOURCE_BUSY);
  PMIX_PY_CONST(PMIX_ERR_OUT_OF_RESOURCE);
  PMIX_PY_CONST(PMIX_ERR_INIT);
  PMIX_PY_CONST(PMIX_ERR_NOMEM);
  PMIX_PY_CONST(PMIX_ERR_NOT_FOUND);
  PMIX_PY_CONST(PMIX_ERR_NOT_SUPPORTED);
  PMIX_PY_CONST(PMIX_ERR_COMM_FAILURE);
  PMIX_PY_CONST(PMIX_ERR_LOST_CONNECTION);
  PMIX_PY_CONST(PMIX_ERR_NOT_AVAILABLE);
  PMIX_PY_CONST(PMIX_OPERATION_IN_PROGRESS);
  PMIX_PY_CONST(PMIX_OPERATION_SUCCEEDED);
  PMIX_PY_CONST(PMIX_ERR_IOF_FAILURE);
  PMIX_PY_CONST(PMIX_ERR_IOF_COMPLETE);
  PMIX_PY_CONST(PMIX_ERR_IOF_XOFF);
  PMIX_PY_CONST(PMIX_EXTERNAL_ERR_BASE);
  // IOF channel bits.
  PMIX_PY_CONST(PMIX_FWD_NO_CHANNELS);
  PMIX_PY_CONST(PMIX_FWD_STDIN_CHANNEL);
  PMIX_PY_CONST(PMIX_FWD_STDOUT_CHANNEL);
  PMIX_PY_CONST(PMIX_FWD_STDERR_CHANNEL);
  PMIX_PY_CONST(PMIX_FWD_STDDIAG_CHANNEL);
  PMIX_PY_CONST(PMIX_FWD_ALL_CHANNELS);
  // val_type of keyvals and directives.
  PMIX_PY_CONST(PMIX_UNDEF);
  PMIX_PY_CONST(PMIX_BOOL);
  PMIX_PY_CONST(PMIX_BYTE);
  PMIX_PY_CONST(PMIX_STRING);
  PMIX_PY_CONST(PMIX_SIZE);
  PMIX_PY_CONST(PMIX_PID);
  PMIX_PY_CONST(PMIX_INT);
  PMIX_PY_CONST(PMIX_INT32);
  PMIX_PY_CONST(PMIX_INT64);
  PMIX_PY_CONST(PMIX_UINT32);
  PMIX_PY_CONST(PMIX_UINT64);
  PMIX_PY_CONST(PMIX_STATUS);
  PMIX_PY_CONST(PMIX_PROC_RANK);
  // Capability flag (pmix_version.h).
  PMIX_PY_CONST(PMIX_CAP_IOF_FLOW_CONTROL);
  // Ranks of a source.
  PMIX_PY_RANK(PMIX_RANK_UNDEF);
  PMIX_PY_RANK(PMIX_RANK_WILDCARD);
  PMIX_PY_RANK(PMIX_RANK_LOCAL_NODE);
  PMIX_PY_RANK(PMIX_RANK_INVALID);
  PMIX_PY_CONST(PMIX_MAX_NSLEN);
  // Attribute keys: the Standard's, then the shim's own.
  PMIX_PY_STR(PMIX_SERVER_NSPACE);
  PMIX_PY_STR(PMIX_SERVER_RANK);
  PMIX_PY_STR(PMIX_TOOL_NSPACE);
  PMIX_PY_STR(PMIX_TOOL_RANK);
  PMIX_PY_STR(PMIX_SERVER_URI);
  PMIX_PY_STR(PMIX_IOF_PUSH_STDIN);
  PMIX_PY_STR(PMIX_SHIM_LISTEN);
  PMIX_PY_STR(PMIX_SHIM_SECRET);
  PMIX_PY_STR(PMIX_SHIM_NO_FLOW_CONTROL);
  PMIX_PY_STR(PMIX_SHIM_CONNECT_TIMEOUT_MS);
  PMIX_PY_STR(PMIX_SHIM_IOF_FD);
  PMIX_PY_STR(PMIX_SHIM_CHUNK_SIZE);
  PMIX_PY_STR(PMIX_SHIM_IOF_ABNORMAL_END);
#undef PMIX_PY_CONST
#undef PMIX_PY_RANK
#undef PMIX_PY_STR
}
