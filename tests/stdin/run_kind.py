#!/usr/bin/env python3
"""One stdin test through dartrun with a given kind of stdin.

  run_kind.py --gen GEN --dartrun DARTRUN --reader READER --np N --kind KIND
              [--size BYTES] [--stdin TARGET] [--rendezvous MODE] [--attack]
              [--timeout S]

KIND is what dartrun's fd 0 is:
  pipe      stdin_gen SIZE | dartrun
  fifo      a named pipe stdin_gen writes
  file      a regular file of SIZE bytes
  tty       a pseudo-terminal in canonical mode that dartrun has as its
            controlling terminal; SIZE bytes of printable lines are typed,
            then ^D (the reader checks the text stream)
  socket    one end of a Unix socket pair; stdin_gen writes the other
  devnull   /dev/null (SIZE must be 0)
  zero      /dev/zero; each target reads SIZE zero bytes, then closes its
            stdin (the stream has no end)
  closed    descriptor 0 closed (SIZE must be 0)

Checks, as tests/stdin/run_case.sh does: every unit's reader prints OK (it
checks the bytes position by position and that EOF is seen once), dartrun
exits 0, and dartrun received as many XON as XOFF. --attack adds bad peers
at dartrun's rendezvous and unit 0's server (stdin_reader --attack) and
requires dartrun to report having dropped them. Everything is bounded by
--timeout (default 30 s); on expiry the whole process group is killed and
the test fails. Prints "run_kind: PASS" or "run_kind: FAILED".
"""
import argparse
import fcntl
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import termios
import threading
import time

TEXT_LINE = 80
ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789"


def text_stream(size):
    """The printable stream of pattern.hpp's text_byte()."""
    out = bytearray()
    line = 0
    while len(out) < size:
        body = "".join(ALPHABET[(line * 7 + j) % 36] for j in range(TEXT_LINE - 10))
        out += ("%08d %s\n" % (line % 100000000, body)).encode()
        line += 1
    return bytes(out[:size])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gen", required=True)
    ap.add_argument("--dartrun", required=True)
    ap.add_argument("--reader", required=True)
    ap.add_argument("--np", type=int, required=True)
    ap.add_argument("--kind", required=True,
                    choices=["pipe", "fifo", "file", "tty", "socket", "devnull", "zero", "closed"])
    ap.add_argument("--size", type=int, default=1 << 20)
    ap.add_argument("--stdin", default="0")
    ap.add_argument("--rendezvous", default=None)
    ap.add_argument("--attack", action="store_true")
    ap.add_argument("--timeout", type=float, default=30.0)
    a = ap.parse_args()

    if a.kind in ("devnull", "closed"):
        a.size = 0
    if a.kind == "tty":
        a.size -= a.size % TEXT_LINE

    work = tempfile.mkdtemp(prefix="stdin-kind-")
    cmd = [a.dartrun, "--stats", "--stdin", a.stdin]
    if a.rendezvous:
        cmd += ["--rendezvous", a.rendezvous]
    cmd += ["-n", str(a.np), a.reader, "--size", str(a.size), "--targets", a.stdin]
    if a.kind == "zero":
        cmd += ["--zeros", "--close-after", str(a.size)]
    if a.kind == "tty":
        cmd += ["--text"]
    if a.attack:
        cmd += ["--attack"]

    out_path = os.path.join(work, "out")
    out = open(out_path, "wb")
    helpers = []          # processes feeding dartrun's stdin
    close_after_start = []
    writer = None
    preexec = os.setsid   # a process group of its own, to kill it whole
    stdin = None

    if a.kind == "pipe":
        gen = subprocess.Popen([a.gen, str(a.size), "--quiet"], stdout=subprocess.PIPE)
        helpers.append(gen)
        stdin = gen.stdout
    elif a.kind == "fifo":
        fifo = os.path.join(work, "fifo")
        os.mkfifo(fifo)
        gen = subprocess.Popen(["sh", "-c", 'exec "$0" "$1" --quiet > "$2"', a.gen, str(a.size), fifo])
        helpers.append(gen)
        stdin = open(fifo, "rb")  # returns once the generator opened its end
        close_after_start.append(stdin)
    elif a.kind == "file":
        path = os.path.join(work, "input")
        with open(path, "wb") as f:
            subprocess.run([a.gen, str(a.size), "--quiet"], stdout=f, check=True)
        stdin = open(path, "rb")
        close_after_start.append(stdin)
    elif a.kind == "socket":
        ours, theirs = socket.socketpair()
        gen = subprocess.Popen([a.gen, str(a.size), "--quiet"], stdout=ours.fileno())
        helpers.append(gen)
        ours.close()      # the generator holds it; its exit is the EOF
        stdin = theirs
        close_after_start.append(theirs)
    elif a.kind == "devnull":
        stdin = open("/dev/null", "rb")
        close_after_start.append(stdin)
    elif a.kind == "zero":
        stdin = open("/dev/zero", "rb")
        close_after_start.append(stdin)
    elif a.kind == "closed":
        cmd = ["sh", "-c", 'exec "$@" <&-', "sh"] + cmd
    elif a.kind == "tty":
        master, slave = os.openpty()
        attrs = termios.tcgetattr(slave)
        attrs[3] &= ~termios.ECHO          # no echo: nobody reads it back
        attrs[3] |= termios.ICANON         # line by line; ^D ends the input
        termios.tcsetattr(slave, termios.TCSANOW, attrs)

        def controlling_terminal():
            os.setsid()
            fcntl.ioctl(0, termios.TIOCSCTTY, 0)

        preexec = controlling_terminal
        stdin = slave
        data = text_stream(a.size)

        def type_it():
            # A terminal takes a line at a time; the kernel blocks us while
            # its input queue is full (dartrun suspended, or not reading yet).
            for i in range(0, len(data), TEXT_LINE):
                os.write(master, data[i:i + TEXT_LINE])
            os.write(master, b"\x04")       # ^D at the start of a line: EOF

        writer = threading.Thread(target=type_it, daemon=True)

    t0 = time.monotonic()
    proc = subprocess.Popen(cmd, stdin=stdin, stdout=out, stderr=subprocess.STDOUT, preexec_fn=preexec)
    for f in close_after_start:
        f.close()
    if a.kind == "tty":
        os.close(slave)
        writer.start()
    try:
        rc = proc.wait(timeout=a.timeout)
        timed_out = False
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        rc = proc.wait()
        timed_out = True
    secs = time.monotonic() - t0
    for h in helpers:
        try:
            h.wait(timeout=5)
        except subprocess.TimeoutExpired:
            h.kill()
    out.close()
    text = open(out_path, "rb").read().decode(errors="replace")
    sys.stdout.write(text)

    fail = []
    if timed_out:
        fail.append("dartrun did not end within %.0f s (killed)" % a.timeout)
    # hydra may glue the units' lines together: match pieces, not lines.
    ok = len(re.findall(r"stdin_reader: unit \d+: [^:]*OK ", text))
    if ok != a.np:
        fail.append("%d of %d units OK" % (ok, a.np))
    if re.search(r"stdin_reader: .*FAIL", text):
        fail.append("a unit failed")
    if not timed_out and rc != 0:
        fail.append("dartrun exited %d" % rc)
    m = re.search(r"dartrun: stats: .*xoff_received=(\d+) xon_received=(\d+)", text)
    if not m or m.group(1) != m.group(2):
        fail.append("dartrun XOFF != XON (%s)" % (str(m.groups()) if m else "no stats"))
    if a.attack and (a.rendezvous or "").startswith("tcp"):
        # stdin_reader --attack: four bad peers per unit at the rendezvous.
        # Unit 0's come before its own hello, so dartrun must drop them; the
        # other units' may arrive after dartrun closed its listener (then
        # they are refused or reset, which each reader counts as closed).
        d = re.search(r"peers_dropped=(\d+)", text)
        if not d or not 4 <= int(d.group(1)) <= 4 * a.np:
            fail.append("dartrun dropped %s bad peers, expected 4 to %d" % (d.group(1) if d else "?", 4 * a.np))
    print("run_kind: kind=%s np=%d size=%d target=%s %.2f s" % (a.kind, a.np, a.size, a.stdin, secs))
    for f in fail:
        print("FAIL: " + f)
    print("run_kind: PASS" if not fail else "run_kind: FAILED")
    subprocess.run(["rm", "-rf", work])
    return 0 if not fail else 1


if __name__ == "__main__":
    sys.exit(main())
