// The `pmix` Python module: PMIxServer with init(), iof_flow_control() (the
// blocking form) and finalize(), plus the constants, so the seed's Python
// example runs as written.
#include <pmix_server.h>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <vector>

namespace py = pybind11;

namespace {

// Turns the Python spelling of a source into a pmix_proc_t: a dict with
// 'nspace' and 'rank'.  Returns false for None (every producer).
bool to_proc(const py::object &o, pmix_proc_t *p) {
    if (o.is_none()) return false;
    auto d = o.cast<py::dict>();
    std::string ns = d.contains("nspace") ? d["nspace"].cast<std::string>() : std::string();
    pmix_rank_t rank = d.contains("rank") ? d["rank"].cast<pmix_rank_t>() : PMIX_RANK_WILDCARD;
    pmixshim_load_procid(p, ns.c_str(), rank);
    return true;
}

class PMIxServer {
public:
    // keyvals: optional list of {'key': ..., 'value': ..., 'val_type': ...}
    // dicts (the PMIx Python binding's shape); string and int values are used.
    int init(const py::object &keyvals, const py::object &) {
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
        py::gil_scoped_release nogil;
        return PMIx_server_init(&module, info.data(), info.size());
    }

    int iof_flow_control(const py::object &source, pmix_iof_channel_t channel, bool xoff, const py::list &) {
        pmix_proc_t p;
        bool have = to_proc(source, &p);
        // The blocking form waits for the progress thread; let other Python
        // threads run meanwhile.
        py::gil_scoped_release nogil;
        return PMIx_server_IOF_flow_control(have ? &p : nullptr, channel, xoff, nullptr, 0, nullptr, nullptr);
    }

    int finalize() {
        py::gil_scoped_release nogil;
        return PMIx_server_finalize();
    }

    int read_stdin(int fd) {
        // Non-blocking: reading runs until EOF on the progress thread.
        return pmixshim_server_read_stdin(fd, nullptr, 0, [](pmix_status_t, void *) {}, nullptr);
    }

    py::tuple contact() {
        char uri[512], secret[256];
        int rc = pmixshim_server_contact(uri, sizeof uri, secret, sizeof secret);
        if (rc != PMIX_SUCCESS) return py::make_tuple(rc, py::none(), py::none());
        return py::make_tuple(rc, std::string(uri), std::string(secret));
    }
};

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
    d["bytes_delivered"] = s.bytes_delivered;
    d["engine_running"] = s.engine_running;
    return d;
}

}  // namespace

PYBIND11_MODULE(pmix, m) {
    m.doc() = "PMIx IOF shim: server-side stdin flow control";
    py::class_<PMIxServer>(m, "PMIxServer")
        .def(py::init<>())
        .def("init", &PMIxServer::init, py::arg("keyvals") = py::none(), py::arg("map") = py::none())
        .def("iof_flow_control", &PMIxServer::iof_flow_control, py::arg("source"), py::arg("channel"),
             py::arg("xoff"), py::arg("directives"))
        .def("finalize", &PMIxServer::finalize)
        .def("read_stdin", &PMIxServer::read_stdin, py::arg("fd") = 0)
        .def("contact", &PMIxServer::contact);
    m.def("iof_stats", &stats);
    m.def("error_string", [](int st) { return std::string(PMIx_Error_string(st)); });
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
    m.attr("PMIX_SHIM_LISTEN") = PMIX_SHIM_LISTEN;
    m.attr("PMIX_SHIM_SECRET") = PMIX_SHIM_SECRET;
}
