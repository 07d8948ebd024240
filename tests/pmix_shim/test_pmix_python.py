"""Covers the `pmix` Python module: the seed's example runs as written (the
blocking form returns PMIX_OPERATION_SUCCEEDED), None means every producer,
the constants, and an XOFF/XON reaching a real stream (a pipe read on the
server's own behalf) with paired counts.  Not covered: push_stdin in Python
(the module's host discards data)."""
import os
import threading

from pmix import *
import pmix


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
    assert foo.init([{'key': PMIX_SHIM_LISTEN, 'value': "none", 'val_type': 3}]) == PMIX_SUCCESS
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
