"""Covers the `pmix` Python module: the seed's example runs as written (the
blocking form returns PMIX_OPERATION_SUCCEEDED), None means every producer,
the constants, an XOFF/XON reaching a real stream (a pipe read on the
server's own behalf) with paired counts, and a Python host taking stdin
through push_stdin: from a pipe read on the server's own behalf and from a
pmix_push tool, each delivered byte-exact while the host suspends its
producer at a high-water mark (PMIX_ERR_IOF_XOFF) and a consumer thread
resumes it (every XOFF counted against its XON, the host's buffer bounded);
a callback that raises or returns a non-status refuses the chunk, is logged
and leaves the server working; blocking calls inside the callback return
PMIX_ERR_WOULD_BLOCK.  The non-blocking iof_flow_control (callback once,
with the very cbdata, only after PMIX_SUCCESS; a non-callable callback is
PMIX_ERR_BAD_PARAM; a raising callback is logged; an XOFF from inside
push_stdin suspends a live producer), OpenPMIx's init() map and its
'pushstdin' upcall, initialized(), get_version(), the constants against the
C headers, exit with callbacks outstanding, and the flow-control steps of
OpenPMIx's test/python/server.py.  Not covered: several producers at once
and relays (test_pmix_tools.cpp), malformed traffic (test_pmix_fuzz.cpp)."""
import collections
import logging
import os
import random
import re
import subprocess
import sys
import threading

import pytest

from pmix import *
import pmix

JOIN_S = 60  # bound on every wait; a healthy run needs a few seconds

NO_LISTEN = {'key': PMIX_SHIM_LISTEN, 'value': "none", 'val_type': 3}


def test_seed_example_runs_as_written():
    foo = PMIxServer()
    assert foo.init() == PMIX_SUCCESS
    # --- the seed's example, verbatim ---
    pydirs = []

    # stop every process feeding us stdin
    rc = foo.iof_flow_control(None, PMIX_FWD_STDIN_CHANNEL, True, pydirs)
    assert rc == PMIX_OPERATION_SUCCEEDED

    # ... and later, let them resume
    rc = foo.iof_flow_control(None, PMIX_FWD_STDIN_CHANNEL, False, pydirs)
    assert rc == PMIX_OPERATION_SUCCEEDED

    # or name a single producer
    source = {'nspace': "mytool", 'rank': 0}
    rc = foo.iof_flow_control(source, PMIX_FWD_STDIN_CHANNEL, True, pydirs)
    assert rc == PMIX_OPERATION_SUCCEEDED
    # --- end of the example ---
    assert foo.iof_flow_control(source, PMIX_FWD_STDOUT_CHANNEL, True, pydirs) == PMIX_ERR_NOT_SUPPORTED
    assert foo.finalize() == PMIX_SUCCESS
    assert foo.iof_flow_control(None, PMIX_FWD_STDIN_CHANNEL, True, pydirs) == PMIX_ERR_INIT


def test_constants():
    # OpenPMIx's values.
    assert PMIX_SUCCESS == 0
    assert PMIX_OPERATION_SUCCEEDED == -157
    assert PMIX_ERR_NOT_SUPPORTED == -47
    assert PMIX_ERR_NOT_AVAILABLE == -64
    assert PMIX_ERR_INIT == -31
    assert PMIX_ERR_WOULD_BLOCK == -15
    assert PMIX_ERR_BAD_PARAM == -27
    assert PMIX_FWD_STDIN_CHANNEL == 1
    assert PMIX_FWD_STDOUT_CHANNEL == 2
    assert PMIX_RANK_WILDCARD == 2**32 - 2
    assert PMIX_IOF_PUSH_STDIN == "pmix.iof.stdin"
    assert pmix.error_string(PMIX_ERR_IOF_XOFF) == "ERR-IOF-XOFF"
    assert PMIxServer().error_string(PMIX_ERR_IOF_XOFF) == "ERR-IOF-XOFF"


def test_flow_control_constants_have_openpmix_values():
    # OpenPMIx merged the API with these; the shim's first values were its
    # own (an external-range code, capability 1).
    if PMIX_ERR_IOF_XOFF == PMIX_EXTERNAL_ERR_BASE - 172:
        pytest.skip("pmix_common.h still has the shim's own PMIX_ERR_IOF_XOFF")
    assert PMIX_ERR_IOF_XOFF == -405
    assert PMIX_CAP_IOF_FLOW_CONTROL == 14


HEADERS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "pmix_shim", "include")


def header_defines():
    """#define NAME VALUE of the C headers, VALUE evaluated where it is an
    integer expression of literals and earlier names, else the string
    literal, else None."""
    found = {}
    for h in sorted(os.listdir(HEADERS)):
        with open(os.path.join(HEADERS, h)) as f:
            for line in f:
                m = re.match(r"\s*#\s*define\s+(PMIX_[A-Z0-9_]+)\s+(.*?)\s*(/\*.*)?$", line)
                if not m:
                    continue
                name, text = m.group(1), m.group(2)
                s = re.match(r'^"([^"]*)"$', text)
                if s:
                    found[name] = s.group(1)
                    continue
                expr = text.replace("UINT32_MAX", str(2**32 - 1))
                expr = re.sub(r"\b(PMIX_[A-Z0-9_]+)\b", lambda n: repr(found.get(n.group(1))), expr)
                try:
                    found[name] = eval(re.sub(r"\b0x([0-9a-fA-F]+)\b", lambda n: str(int(n.group(1), 16)), expr),
                                       {"__builtins__": {}})
                except Exception:
                    found[name] = None
    return found


def test_every_constant_is_the_c_macro():
    defines = header_defines()
    exported = [n for n in dir(pmix) if n.startswith("PMIX_")]
    assert len(exported) > 50
    for name in exported:
        assert name in defines, f"{name} is not a macro of the C headers"
        if defines[name] is not None:
            assert getattr(pmix, name) == defines[name], name
    # The ones a host needs are there.
    for name in ["PMIX_SUCCESS", "PMIX_OPERATION_SUCCEEDED", "PMIX_ERR_BAD_PARAM", "PMIX_ERR_IOF_XOFF",
                 "PMIX_ERR_NOT_SUPPORTED", "PMIX_ERR_INIT", "PMIX_ERR_NOT_AVAILABLE", "PMIX_ERR_WOULD_BLOCK",
                 "PMIX_ERR_NOMEM", "PMIX_ERR_IOF_FAILURE", "PMIX_ERR_OUT_OF_RESOURCE", "PMIX_ERR_EXISTS",
                 "PMIX_FWD_STDIN_CHANNEL", "PMIX_FWD_ALL_CHANNELS", "PMIX_RANK_WILDCARD", "PMIX_RANK_UNDEF",
                 "PMIX_STRING", "PMIX_BOOL", "PMIX_UINT32", "PMIX_SIZE", "PMIX_INT32", "PMIX_PROC_RANK",
                 "PMIX_IOF_PUSH_STDIN", "PMIX_SERVER_NSPACE", "PMIX_SERVER_RANK", "PMIX_SHIM_LISTEN",
                 "PMIX_SHIM_SECRET", "PMIX_SHIM_CHUNK_SIZE", "PMIX_CAP_IOF_FLOW_CONTROL"]:
        assert name in exported, name


def test_version_and_initialized():
    foo = PMIxServer()
    v = foo.get_version()
    assert isinstance(v, str) and "PMIx" in v
    assert foo.initialized() is False
    assert foo.init([NO_LISTEN], {}) == PMIX_SUCCESS
    try:
        assert foo.initialized() is True
        # Any PMIxServer object sees the one server of the process.
        assert PMIxServer().initialized() is True
        assert foo.get_version() == v
    finally:
        assert foo.finalize() == PMIX_SUCCESS
    assert foo.initialized() is False


def test_xoff_reaches_an_own_stream_and_counts_pair():
    foo = PMIxServer()
    assert foo.init([NO_LISTEN]) == PMIX_SUCCESS
    r, w = os.pipe()
    total = 1 << 20
    writer = threading.Thread(target=lambda: (os.write(w, b"x" * total), os.close(w)))
    writer.start()
    assert foo.read_stdin(r) == PMIX_SUCCESS
    assert foo.iof_flow_control(None, PMIX_FWD_STDIN_CHANNEL, True, []) == PMIX_OPERATION_SUCCEEDED
    assert pmix.iof_stats()["xoff"] == 1
    assert foo.iof_flow_control(None, PMIX_FWD_STDIN_CHANNEL, False, []) == PMIX_OPERATION_SUCCEEDED
    writer.join(timeout=20)
    assert not writer.is_alive()
    assert foo.finalize() == PMIX_SUCCESS
    s = pmix.iof_stats()
    assert s["xoff"] == s["xon"] == 1
    os.close(r)


# ---- push_stdin ------------------------------------------------------------

@pytest.fixture
def server():
    """A PMIxServer finalized however the test ends, so a failed test does
    not leave the next one with PMIX_ERR_INIT."""
    foo = PMIxServer()
    yield foo
    foo.finalize()


def pattern(n, seed):
    # Pseudo-random bytes: each depends on its position, so a lost,
    # duplicated or reordered chunk shows up as a mismatch.
    return random.Random(seed).randbytes(n)


def first_mismatch(got, want):
    for i, (a, b) in enumerate(zip(got, want)):
        if a != b:
            return i
    return None if len(got) == len(want) else min(len(got), len(want))


def feed(fd_or_file, data):
    """Writes data and closes; a reader that went away ends it quietly (the
    test then fails on what was received, not here)."""
    def run():
        try:
            if isinstance(fd_or_file, int):
                with open(fd_or_file, "wb", closefd=True) as f:
                    f.write(data)
            else:
                with fd_or_file:
                    fd_or_file.write(data)
        except BrokenPipeError:
            pass
    t = threading.Thread(target=run, daemon=True)
    t.start()
    return t


class FlowHost:
    """A host that queues chunks for a slower consumer thread: push_stdin
    suspends the producer (PMIX_ERR_IOF_XOFF) once HIGH bytes are queued, and
    the consumer resumes it with the blocking iof_flow_control from its own
    thread once the queue is down to LOW."""
    HIGH = 256 * 1024
    LOW = 64 * 1024

    def __init__(self, server, pace_s=0.002):
        self.server = server
        self.pace_s = pace_s
        self.cv = threading.Condition()
        self.queue = collections.deque()
        self.queued = 0
        self.max_queued = 0
        self.max_chunk = 0
        self.suspended = False
        self.xoffs = 0
        self.xons = 0
        self.xon_rcs = []
        self.eofs = 0
        self.sources = set()
        self.received = bytearray()

    def push_stdin(self, source, data):
        with self.cv:
            self.sources.add((source['nspace'], source['rank']))
            if not data:
                self.eofs += 1
                self.cv.notify_all()
                return PMIX_SUCCESS
            self.queue.append(data)
            self.queued += len(data)
            self.max_queued = max(self.max_queued, self.queued)
            self.max_chunk = max(self.max_chunk, len(data))
            self.cv.notify_all()
            if self.queued >= self.HIGH and not self.suspended:
                self.suspended = True
                self.xoffs += 1
                return PMIX_ERR_IOF_XOFF
            return PMIX_SUCCESS

    def consume(self):
        while True:
            with self.cv:
                if not self.cv.wait_for(lambda: self.queue or self.eofs, timeout=JOIN_S):
                    return
                if not self.queue:
                    return
                data = self.queue.popleft()
                self.queued -= len(data)
                resume = self.suspended and self.queued <= self.LOW
                if resume:
                    self.suspended = False
                    self.xons += 1
            self.received += data
            if resume:
                # Not on the progress thread: the blocking form is allowed.
                self.xon_rcs.append(self.server.iof_flow_control(None, PMIX_FWD_STDIN_CHANNEL, False, []))
            threading.Event().wait(self.pace_s)

    def start(self):
        t = threading.Thread(target=self.consume, daemon=True)
        t.start()
        return t

    def check(self, want, source):
        assert self.eofs == 1
        assert self.sources == {source}
        at = first_mismatch(self.received, want)
        assert at is None, f"received {len(self.received)} of {len(want)} bytes, first mismatch at {at}"
        # The consumer was slower than the producer, so only suspending the
        # producer kept the queue bounded: at most the chunk that crossed HIGH
        # arrives after the queue reached it.
        assert self.xoffs >= 1
        assert self.max_queued < self.HIGH + self.max_chunk, (self.max_queued, self.max_chunk)
        assert self.xons == self.xoffs
        assert self.xon_rcs == [PMIX_OPERATION_SUCCEEDED] * self.xons


def test_python_host_takes_own_stdin_with_flow_control(server):
    host = FlowHost(server)
    keyvals = [NO_LISTEN, {'key': PMIX_SERVER_NSPACE, 'value': "pyhost", 'val_type': 3},
               {'key': PMIX_SERVER_RANK, 'value': 5, 'val_type': 14}]
    assert server.init(keyvals, None, host.push_stdin) == PMIX_SUCCESS
    want = pattern(4 << 20, 1)
    r, w = os.pipe()
    writer = feed(w, want)
    consumer = host.start()
    try:
        assert server.read_stdin(r) == PMIX_SUCCESS
        consumer.join(timeout=JOIN_S)
        writer.join(timeout=JOIN_S)
        assert not consumer.is_alive() and not writer.is_alive()
        assert server.finalize() == PMIX_SUCCESS
    finally:
        os.close(r)
    host.check(want, ("pyhost", 5))
    assert host.max_chunk <= 131072  # the default chunk of an own read
    s = pmix.iof_stats()
    assert s["xoff"] == s["xon"] == host.xoffs
    assert s["xon_on_close"] == 0
    assert s["bytes_delivered"] == len(want)


def push_tool():
    path = os.environ.get("PMIX_PUSH")
    if not path:
        pytest.skip("PMIX_PUSH (the pmix_push tool) is not set")
    return path


def start_tool(server, nspace, rank, errlog):
    rc, uri, secret = server.contact()
    assert rc == PMIX_SUCCESS
    return subprocess.Popen([push_tool(), "--server", uri, "--secret", secret, "--nspace", nspace,
                             "--rank", str(rank), "--stats"],
                            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=errlog)


def tool_stats(log):
    line = next(l for l in log.splitlines() if l.startswith("pmix_push stats:"))
    return dict(kv.split("=") for kv in line.split()[2:])


def test_python_host_takes_a_tool_with_flow_control(server, tmp_path):
    host = FlowHost(server)
    assert server.init(None, None, host.push_stdin) == PMIX_SUCCESS
    want = pattern(4 << 20, 2)
    errpath = tmp_path / "pmix_push.err"
    with open(errpath, "wb") as err:
        tool = start_tool(server, "mytool", 3, err)
    try:
        writer = feed(tool.stdin, want)
        consumer = host.start()
        assert tool.wait(timeout=JOIN_S) == 0, errpath.read_text()
        consumer.join(timeout=JOIN_S)
        writer.join(timeout=JOIN_S)
        assert not consumer.is_alive() and not writer.is_alive()
    finally:
        tool.kill()
        tool.wait()
    assert server.finalize() == PMIX_SUCCESS
    host.check(want, ("mytool", 3))
    s = pmix.iof_stats()
    assert s["xoff"] == s["xon"] == s["xoff_sent"] == s["xon_sent"] == host.xoffs
    # The tool obeyed XOFFs.  It may have pushed its last bytes and left
    # before the server's last frames reached it (the queue drains after the
    # END frame), so it can count fewer than were sent, never more.
    t = {k: int(v) for k, v in tool_stats(errpath.read_text()).items()}
    assert 1 <= t["xoff_received"] <= s["xoff_sent"]
    assert t["xon_received"] <= s["xon_sent"]
    assert t["bytes_pushed"] == len(want)


def misbehaving(kind, calls, good_ended):
    def push_stdin(source, data):
        calls.append((source['nspace'], len(data)))
        if source['nspace'] == "good":
            if not data:
                good_ended.set()
            return PMIX_SUCCESS
        if kind == "raises":
            raise RuntimeError("host bug")
        return None
    return push_stdin


@pytest.mark.parametrize("kind", ["raises", "returns None"])
def test_failing_callback_refuses_the_chunk_and_is_logged(server, tmp_path, caplog, kind):
    calls = []
    good_ended = threading.Event()
    assert server.init(None, None, misbehaving(kind, calls, good_ended)) == PMIX_SUCCESS
    errpath = tmp_path / "bad.err"
    with caplog.at_level(logging.ERROR, logger="pmix"), open(errpath, "wb") as err:
        tool = start_tool(server, "bad", 0, err)
        try:
            # Less than a pipe holds, and the tool's input stays open: it can
            # only end because its first chunk was refused (a tool that had
            # pushed everything might leave before hearing of it).
            tool.stdin.write(pattern(60000, 3))
            tool.stdin.flush()
            assert tool.wait(timeout=JOIN_S) == 1
        finally:
            tool.kill()
            tool.wait()
            try:
                tool.stdin.close()
            except BrokenPipeError:
                pass
    assert pmix.error_string(PMIX_ERR_IOF_FAILURE) in errpath.read_text()
    # One chunk, refused; the stream was closed, so no end-of-stream call.
    assert len(calls) == 1 and calls[0][0] == "bad" and calls[0][1] > 0
    records = [r for r in caplog.records if r.name == "pmix"]
    assert len(records) == 1
    assert "bad:0" in records[0].getMessage()
    if kind == "raises":
        assert records[0].exc_info[0] is RuntimeError
    else:
        assert "returned None" in records[0].getMessage()

    # The server and its host are unharmed: the next producer is served.
    want = pattern(200000, 4)
    with open(tmp_path / "good.err", "wb") as err:
        tool = start_tool(server, "good", 1, err)
    try:
        feed(tool.stdin, want).join(timeout=JOIN_S)
        assert tool.wait(timeout=JOIN_S) == 0
        assert good_ended.wait(timeout=JOIN_S)
    finally:
        tool.kill()
        tool.wait()
    good = [n for ns, n in calls if ns == "good"]
    assert sum(good) == len(want) and good[-1] == 0
    assert server.finalize() == PMIX_SUCCESS


def test_blocking_calls_inside_the_callback_would_block(server):
    rcs = []
    done = threading.Event()

    def push_stdin(source, data):
        if data:
            rcs.append(server.iof_flow_control(None, PMIX_FWD_STDIN_CHANNEL, True, []))
            rcs.append(server.finalize())
        else:
            done.set()
        return PMIX_SUCCESS

    assert server.init([NO_LISTEN], None, push_stdin) == PMIX_SUCCESS
    r, w = os.pipe()
    try:
        feed(w, b"abc")
        assert server.read_stdin(r) == PMIX_SUCCESS
        assert done.wait(timeout=JOIN_S)
    finally:
        assert server.finalize() == PMIX_SUCCESS
        os.close(r)
    # Nothing was done: no XOFF, and the server kept running to EOF.
    assert rcs == [PMIX_ERR_WOULD_BLOCK, PMIX_ERR_WOULD_BLOCK]
    assert pmix.iof_stats()["xoff"] == 0


def test_push_stdin_arguments(server):
    with pytest.raises(TypeError):
        server.init(None, None, 42)
    assert server.init(None, None, lambda source, data: PMIX_SUCCESS) == PMIX_SUCCESS
    # A running server keeps its host.
    assert PMIxServer().init(None, None, lambda source, data: PMIX_ERROR) == PMIX_ERR_INIT
    assert server.finalize() == PMIX_SUCCESS
    assert server.finalize() == PMIX_ERR_INIT


# ---- the non-blocking iof_flow_control ---------------------------------------

class Callbacks:
    """Records every call of a non-blocking callback; `fired` is set by
    the first."""

    def __init__(self):
        self.lock = threading.Lock()
        self.calls = []
        self.threads = []
        self.fired = threading.Event()

    def __call__(self, status, cbdata):
        with self.lock:
            self.calls.append((status, cbdata))
            self.threads.append(threading.get_ident())
        self.fired.set()


@pytest.mark.parametrize("source", [None, {'nspace': "mytool", 'rank': 0},
                                    {'nspace': "mytool", 'rank': PMIX_RANK_WILDCARD}])
@pytest.mark.parametrize("xoff", [True, False])
def test_nonblocking_calls_back_once_with_the_same_cbdata(server, source, xoff):
    assert server.init([NO_LISTEN]) == PMIX_SUCCESS
    cb = Callbacks()
    cbdata = {'label': "mine"}
    base = sys.getrefcount(cbdata)
    rc = server.iof_flow_control(source, PMIX_FWD_STDIN_CHANNEL, xoff, [], cb, cbdata)
    assert rc == PMIX_SUCCESS
    assert cb.fired.wait(timeout=JOIN_S)
    # Pending operations complete before finalize returns, so a second call
    # would be recorded by now.
    assert server.finalize() == PMIX_SUCCESS
    assert len(cb.calls) == 1
    status, got = cb.calls[0]
    assert status == PMIX_SUCCESS
    assert got is cbdata
    assert cb.threads[0] != threading.get_ident()  # the progress thread
    del got, cb.calls[:]
    assert sys.getrefcount(cbdata) == base  # the module let go of it


def test_nonblocking_keyword_arguments_and_directives(server):
    assert server.init([NO_LISTEN]) == PMIX_SUCCESS
    cb = Callbacks()
    token = object()
    dirs = [{'key': PMIX_SHIM_CHUNK_SIZE, 'value': 4096, 'val_type': PMIX_SIZE},
            {'key': "x.flag", 'value': True, 'val_type': PMIX_BOOL},
            {'key': "x.name", 'value': "n\udcff", 'val_type': PMIX_STRING}]
    assert server.iof_flow_control(source=None, channel=PMIX_FWD_STDIN_CHANNEL, xoff=True, directives=dirs,
                                   cbfunc=cb, cbdata=token) == PMIX_SUCCESS
    assert cb.fired.wait(timeout=JOIN_S)
    assert cb.calls == [(PMIX_SUCCESS, token)]
    # cbdata defaults to None.
    cb2 = Callbacks()
    assert server.iof_flow_control(None, PMIX_FWD_STDIN_CHANNEL, False, [], cb2) == PMIX_SUCCESS
    assert cb2.fired.wait(timeout=JOIN_S)
    assert cb2.calls == [(PMIX_SUCCESS, None)]


@pytest.mark.parametrize("bad", [42, "x", b"f"])
def test_a_non_callable_callback_is_a_bad_parameter(server, bad):
    assert server.init([NO_LISTEN]) == PMIX_SUCCESS
    r, w = os.pipe()
    try:
        assert server.read_stdin(r) == PMIX_SUCCESS
        # Refused before anything is looked at: not the channel, not the
        # source, not the directives; nothing is applied to the stream.
        assert server.iof_flow_control(None, PMIX_FWD_STDIN_CHANNEL, True, [], bad) == PMIX_ERR_BAD_PARAM
        assert server.iof_flow_control(None, PMIX_FWD_STDOUT_CHANNEL, True, [], bad, {}) == PMIX_ERR_BAD_PARAM
        assert server.iof_flow_control("not a source", PMIX_FWD_STDIN_CHANNEL, True, "no", bad) == PMIX_ERR_BAD_PARAM
        # A blocking round trip: anything the refused calls had posted ran before it.
        assert server.iof_flow_control({'nspace': "nobody", 'rank': 0}, PMIX_FWD_STDIN_CHANNEL, True, []) \
            == PMIX_OPERATION_SUCCEEDED
        assert pmix.iof_stats()["xoff"] == 0
    finally:
        os.close(w)
        assert server.finalize() == PMIX_SUCCESS
        os.close(r)
    s = pmix.iof_stats()
    assert s["xoff"] == s["xon"] == 0


def test_a_refused_call_never_calls_back(server):
    cb = Callbacks()
    cbdata = ["keep"]
    base = sys.getrefcount(cbdata)
    # No server yet.
    assert server.iof_flow_control(None, PMIX_FWD_STDIN_CHANNEL, True, [], cb, cbdata) == PMIX_ERR_INIT
    assert server.init([NO_LISTEN]) == PMIX_SUCCESS
    # Not stdin, and a directive whose type cannot be loaded.
    assert server.iof_flow_control(None, PMIX_FWD_STDOUT_CHANNEL, True, [], cb, cbdata) == PMIX_ERR_NOT_SUPPORTED
    assert server.iof_flow_control(None, PMIX_FWD_STDERR_CHANNEL, False, [], cb, cbdata) == PMIX_ERR_NOT_SUPPORTED
    assert server.iof_flow_control(None, PMIX_FWD_STDIN_CHANNEL, True,
                                   [{'key': "k", 'value': 1, 'val_type': 9999}], cb, cbdata) == PMIX_ERR_BAD_PARAM
    assert sys.getrefcount(cbdata) == base  # nothing kept for a callback that will not come
    # An accepted call after them completes; requests complete in order, so
    # anything the refused ones had queued would have called back first.
    later = Callbacks()
    assert server.iof_flow_control(None, PMIX_FWD_STDIN_CHANNEL, True, [], later, "later") == PMIX_SUCCESS
    assert later.fired.wait(timeout=JOIN_S)
    assert server.finalize() == PMIX_SUCCESS
    assert server.iof_flow_control(None, PMIX_FWD_STDIN_CHANNEL, True, [], cb, cbdata) == PMIX_ERR_INIT
    assert cb.calls == []
    assert later.calls == [(PMIX_SUCCESS, "later")]


def test_a_raising_callback_is_logged_and_the_server_goes_on(server, caplog):
    assert server.init([NO_LISTEN]) == PMIX_SUCCESS

    def raises(status, cbdata):
        raise ValueError("callback bug " + cbdata)

    with caplog.at_level(logging.ERROR, logger="pmix"):
        assert server.iof_flow_control(None, PMIX_FWD_STDIN_CHANNEL, True, [], raises, "one") == PMIX_SUCCESS
        # Callbacks run in order on one thread: once this one ran, the
        # raising one has finished, log line included.
        after = Callbacks()
        assert server.iof_flow_control(None, PMIX_FWD_STDIN_CHANNEL, False, [], after, "two") == PMIX_SUCCESS
        assert after.fired.wait(timeout=JOIN_S)
    records = [r for r in caplog.records if r.name == "pmix"]
    assert len(records) == 1
    assert "iof_flow_control" in records[0].getMessage()
    assert records[0].exc_info[0] is ValueError
    assert str(records[0].exc_info[1]) == "callback bug one"
    assert after.calls == [(PMIX_SUCCESS, "two")]
    assert server.iof_flow_control(None, PMIX_FWD_STDIN_CHANNEL, True, []) == PMIX_OPERATION_SUCCEEDED
    assert server.finalize() == PMIX_SUCCESS


def test_nonblocking_xoff_from_push_stdin_suspends_a_live_producer(server):
    """The host suspends its producer from inside push_stdin (where the
    blocking form would return PMIX_ERR_WOULD_BLOCK) and resumes it from
    another thread; the producer stops while suspended, and every byte
    arrives once."""
    want = pattern(16 << 20, 5)
    got = bytearray()
    lock = threading.Lock()
    ended = threading.Event()
    applied = threading.Event()
    xoff_rcs, xoff_cbs = [], []

    def xoff_done(status, cbdata):
        xoff_cbs.append((status, cbdata))
        applied.set()

    def push_stdin(source, data):
        with lock:
            first = not got and data
            got.extend(data)
        if not data:
            ended.set()
        elif first:
            xoff_rcs.append(server.iof_flow_control(source, PMIX_FWD_STDIN_CHANNEL, True, [], xoff_done, source))
        return PMIX_SUCCESS

    assert server.init([NO_LISTEN, {'key': PMIX_SERVER_NSPACE, 'value': "pyhost", 'val_type': PMIX_STRING}],
                       None, push_stdin) == PMIX_SUCCESS
    r, w = os.pipe()
    writer = feed(w, want)
    try:
        assert server.read_stdin(r) == PMIX_SUCCESS
        assert applied.wait(timeout=JOIN_S)
        assert xoff_rcs == [PMIX_SUCCESS]
        assert xoff_cbs[0][0] == PMIX_SUCCESS and xoff_cbs[0][1]['nspace'] == "pyhost"
        s = pmix.iof_stats()
        assert s["xoff"] == 1 and s["xon"] == 0
        # Suspended: through several round trips of the progress thread
        # (each one a pass of its event loop, where an armed read would be
        # served) nothing more arrives, with most of the input outstanding.
        with lock:
            held = len(got)
        for _ in range(5):
            assert server.iof_flow_control({'nspace': "nobody", 'rank': 0}, PMIX_FWD_STDIN_CHANNEL, True, []) \
                == PMIX_OPERATION_SUCCEEDED
        with lock:
            assert len(got) == held
        assert held < len(want) // 2 and not ended.is_set()
        resumed = Callbacks()
        assert server.iof_flow_control({'nspace': "pyhost", 'rank': 0}, PMIX_FWD_STDIN_CHANNEL, False, [],
                                       resumed, "xon") == PMIX_SUCCESS
        assert resumed.fired.wait(timeout=JOIN_S)
        assert ended.wait(timeout=JOIN_S)
        writer.join(timeout=JOIN_S)
        assert not writer.is_alive()
        assert server.finalize() == PMIX_SUCCESS
    finally:
        os.close(r)
    assert first_mismatch(got, want) is None
    assert resumed.calls == [(PMIX_SUCCESS, "xon")]
    s = pmix.iof_stats()
    assert s["xoff"] == s["xon"] == 1 and s["xon_on_close"] == 0


def test_exit_with_callbacks_outstanding(tmp_path):
    """A host that leaves without finalize: the exit hook finalizes the
    server while Python still runs, so every accepted callback runs then,
    none later, and the process exits cleanly."""
    script = tmp_path / "leave.py"
    script.write_text(f"""
import os, sys
sys.path[:0] = {sys.path!r}
from pmix import *
foo = PMIxServer()
assert foo.init([{{'key': PMIX_SHIM_LISTEN, 'value': "none", 'val_type': PMIX_STRING}}], {{}}) == PMIX_SUCCESS
n = [0]
def cb(status, cbdata):
    n[0] += 1
    if n[0] == 200:
        os.write(1, b"all 200 callbacks ran\\n")
for i in range(200):
    assert foo.iof_flow_control(None, PMIX_FWD_STDIN_CHANNEL, i % 2 == 0, [], cb, i) == PMIX_SUCCESS
""")
    p = subprocess.run([sys.executable, str(script)], capture_output=True, timeout=JOIN_S)
    assert p.returncode == 0, p.stderr.decode()
    assert p.stdout.decode().count("all 200 callbacks ran") == 1
    assert p.stderr == b""


# ---- OpenPMIx's init() map and 'pushstdin' upcall ----------------------------

def upcall_stub(*args):
    return PMIX_SUCCESS


def test_openpmix_map_is_accepted(server, caplog):
    # The map OpenPMIx's test/python/server.py passes: none of these upcalls
    # exist here, so they are accepted and never called.
    omap = {name: upcall_stub for name in ['clientconnected', 'clientfinalized', 'fencenb', 'publish',
                                           'lookup', 'unpublish', 'group']}
    with caplog.at_level(logging.ERROR, logger="pmix"):
        assert server.init([NO_LISTEN, {'key': 'FOOBAR', 'value': 'VAR', 'val_type': PMIX_STRING},
                            {'key': 'BLAST', 'value': 7, 'val_type': PMIX_INT32}], omap) == PMIX_SUCCESS
        assert server.initialized() is True
        assert server.finalize() == PMIX_SUCCESS
        # Names OpenPMIx does not know, and values that are not callable, are
        # refused as OpenPMIx refuses them, before anything starts.
        assert server.init([NO_LISTEN], {'push_stdin': upcall_stub}) == PMIX_ERR_INIT
        assert server.init([NO_LISTEN], {'nosuchupcall': upcall_stub}) == PMIX_ERR_INIT
        assert server.init([NO_LISTEN], {'pushstdin': 42}) == PMIX_ERR_INIT
        assert server.init([NO_LISTEN], {'pushstdin': upcall_stub}, upcall_stub) == PMIX_ERR_BAD_PARAM
        assert server.initialized() is False
    msgs = [r.getMessage() for r in caplog.records if r.name == "pmix"]
    assert len(msgs) == 4
    assert "'pushstdin'" in msgs[0] and "push_stdin=" in msgs[0]
    assert "nosuchupcall" in msgs[1]


def test_openpmix_pushstdin_upcall(server):
    """OpenPMIx's upcall shape: (args, cbfunc, cbdata).  Chunks are
    completed in every way it allows: by cbfunc inside the upcall, by cbfunc
    later from another thread, and by the returned status, an XOFF among
    them; every byte arrives once and in order."""
    want = pattern(2 << 20, 6)
    got = bytearray()
    sources = []
    later = collections.deque()  # (cbfunc, cbdata), or None for "resume"
    cv = threading.Condition()
    ended = threading.Event()
    xoffs = [0]

    def pushstdin(args, cbfunc, cbdata):
        payload = args['payload']
        assert isinstance(payload['bytes'], bytearray) and payload['size'] == len(payload['bytes'])
        sources.append(args['source'])
        got.extend(payload['bytes'])
        if not payload['size']:
            with cv:
                ended.set()
                cv.notify()
            return PMIX_OPERATION_SUCCEEDED
        k = len(sources) % 4
        if k == 0:
            cbfunc(PMIX_SUCCESS, cbdata)
            cbfunc(PMIX_ERROR, cbdata)  # a second completion is ignored
            return PMIX_SUCCESS
        if k == 1:
            with cv:
                later.append((cbfunc, cbdata))
                cv.notify()
            return PMIX_SUCCESS
        if k == 2:
            # Taken and suspended; the resume runs on the progress thread
            # after this chunk is finished, since that thread is busy here.
            xoffs[0] += 1
            with cv:
                later.append(None)
                cv.notify()
            return PMIX_ERR_IOF_XOFF
        return PMIX_OPERATION_SUCCEEDED

    resume_rcs = []

    def completer():
        while True:
            with cv:
                if not cv.wait_for(lambda: later or ended.is_set(), timeout=JOIN_S) or not later:
                    return
                item = later.popleft()
            if item is None:
                resume_rcs.append(server.iof_flow_control(None, PMIX_FWD_STDIN_CHANNEL, False, []))
            else:
                item[0](PMIX_SUCCESS, item[1])

    assert server.init([NO_LISTEN, {'key': PMIX_SERVER_NSPACE, 'value': "opmix", 'val_type': PMIX_STRING},
                        {'key': PMIX_SERVER_RANK, 'value': 2, 'val_type': PMIX_UINT32}],
                       {'pushstdin': pushstdin, 'clientconnected': upcall_stub}) == PMIX_SUCCESS
    r, w = os.pipe()
    writer = feed(w, want)
    t = threading.Thread(target=completer, daemon=True)
    t.start()
    try:
        assert server.read_stdin(r) == PMIX_SUCCESS
        assert ended.wait(timeout=JOIN_S)
        writer.join(timeout=JOIN_S)
        t.join(timeout=JOIN_S)
        assert not writer.is_alive() and not t.is_alive()
        assert server.finalize() == PMIX_SUCCESS
    finally:
        os.close(r)
    assert first_mismatch(got, want) is None
    assert all(s == {'nspace': "opmix", 'rank': 2} for s in sources)
    assert len(sources) > 8  # every way of completing was taken
    assert xoffs[0] >= 1 and resume_rcs == [PMIX_OPERATION_SUCCEEDED] * xoffs[0]
    s = pmix.iof_stats()
    assert s["xoff"] == s["xon"] == xoffs[0]


# ---- the flow-control steps of OpenPMIx's test/python/server.py --------------

def test_openpmix_server_py_flow_control_steps():
    """What OpenPMIx's Python server test does for flow control, against
    this module: a non-stdin channel is refused, None and a named source
    are accepted for XOFF and XON, the non-blocking form calls back once
    with the caller's cbdata (or, were it refused, never), and a callback
    of 42 is a bad parameter."""
    foo = PMIxServer()
    assert isinstance(foo.get_version(), str)
    assert foo.init([], {}) == PMIX_SUCCESS
    try:
        assert foo.initialized()
        assert foo.iof_flow_control(None, PMIX_FWD_STDOUT_CHANNEL, True, []) == PMIX_ERR_NOT_SUPPORTED
        for src in (None, {'nspace': "testnspace", 'rank': 0}):
            for xoff in (True, False):
                assert foo.iof_flow_control(src, PMIX_FWD_STDIN_CHANNEL, xoff, []) in \
                    (PMIX_SUCCESS, PMIX_OPERATION_SUCCEEDED)

        done = threading.Event()
        result = {}

        def on_done(status, cbdata):
            result.update(status=status, cbdata=cbdata)
            done.set()

        rc = foo.iof_flow_control(None, PMIX_FWD_STDIN_CHANNEL, True, [], on_done, {'label': "iof_flow_control"})
        if rc == PMIX_SUCCESS:
            assert done.wait(timeout=30), "accepted but never completed"
            assert result['cbdata'] == {'label': "iof_flow_control"}
            assert foo.error_string(result['status']) == "SUCCESS"
        else:
            assert not done.is_set(), "refused, yet called back"
        assert rc == PMIX_SUCCESS  # this library has no reason to refuse it
        done.clear()
        assert foo.iof_flow_control(None, PMIX_FWD_STDIN_CHANNEL, True, [], 42) == PMIX_ERR_BAD_PARAM
    finally:
        assert foo.finalize() == PMIX_SUCCESS
    assert not done.is_set()
    assert not foo.initialized()
