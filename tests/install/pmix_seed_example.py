"""The Python example of the PMIx_server_IOF_flow_control man page (seed
002), run against an installed tree.  The example's code is kept as the man
page has it; the lines added are the init() its comment presupposes, a check
of each return code, and a finalize.  It then reports where the module and
libpmix_shim were loaded from, so the caller can tell the installed tree
from the build tree."""
import pmix


def report(what, rc):
    print(f"{what}: rc={rc} ({pmix.error_string(rc)})")
    assert rc == pmix.PMIX_OPERATION_SUCCEEDED, what


from pmix import *

foo = PMIxServer()
assert foo.init() == PMIX_SUCCESS
# ... after a successful foo.init() ...
pydirs = []

# stop every process feeding us stdin
rc = foo.iof_flow_control(None, PMIX_FWD_STDIN_CHANNEL, True, pydirs)
report("xoff, every producer", rc)

# ... and later, let them resume
rc = foo.iof_flow_control(None, PMIX_FWD_STDIN_CHANNEL, False, pydirs)
report("xon, every producer", rc)

# or name a single producer
source = {'nspace': "mytool", 'rank': 0}
rc = foo.iof_flow_control(source, PMIX_FWD_STDIN_CHANNEL, True, pydirs)
report("xoff, mytool:0", rc)

assert foo.finalize() == PMIX_SUCCESS

print(f"pmix module: {pmix.__file__}")
with open("/proc/self/maps") as maps:
    libs = sorted({line.split()[-1] for line in maps if "libpmix_shim" in line})
for lib in libs:
    print(f"libpmix_shim: {lib}")
