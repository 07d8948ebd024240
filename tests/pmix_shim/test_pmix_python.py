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
PMIX_ERR_WOULD_BLOCK.  Not covered: several producers at once and relays
(test_pmix_tools.cpp), malformed traffic (test_pmix_fuzz.cpp)."""
import collections
import logging
import os
import random
import subprocess
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
    assert PMIX_SUCCESS == 0
    assert PMIX_OPERATION_SUCCEEDED == -157
    assert PMIX_ERR_NOT_SUPPORTED == -47
    assert PMIX_ERR_NOT_AVAILABLE == -64
    assert PMIX_ERR_INIT == -31
    assert PMIX_ERR_WOULD_BLOCK == -15
    assert PMIX_FWD_STDIN_CHANNEL == 1
    assert PMIX_ERR_IOF_XOFF < -3000
    assert pmix.error_string(PMIX_ERR_IOF_XOFF) == "ERR-IOF-XOFF"


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
