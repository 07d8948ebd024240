#!/usr/bin/env python3
"""Checks docs/environment.md against the variables the code reads.

A variable counts as read when its name, as a string literal, is the first
argument of a getenv-like call (getenv, secure_getenv, read_flag,
read_bytes, read_text, read_choice<...>, env, and any helper whose name
contains "getenv" or starts with "read_" or "env") in the sources of
DART, the OpenSHMEM layer, the PMIx shim and its tools, the registry and
mpifix, or is a $VAR of the OpenSHMEM compiler wrapper's template. A
variable counts as documented when it heads a row of a table in
docs/environment.md. The two sets must be equal.

Usage: check_env.py <source top>
Exit status 0 when they agree; 1 with one line per difference, naming what
to add where.
"""
import pathlib
import re
import sys

PREFIXES = r"(?:DART|DARTRUN|DASH|SHMEM|OSHMEM|PMIX_SHIM|REGISTRY)_"
NAME = PREFIXES + r"[A-Z0-9_]*[A-Z0-9]"
CALL = re.compile(r"\b\w*(?:getenv|read_\w+|env\w*)(?:<[^<>;]*>)?\(\s*\"(" + NAME + r")\"")
SOURCE_DIRS = ["dart/src", "dart/shmem/src", "dart/shmem/tools", "pmix_shim/src",
               "pmix_shim/tools", "registry/src", "mpifix"]
ROW = re.compile(r"^\|\s*`(" + NAME + r")`\s*\|", re.M)


def read_in_code(top):
    found = {}
    for d in SOURCE_DIRS:
        for path in sorted((top / d).rglob("*")):
            if path.suffix not in {".c", ".cc", ".cpp", ".h", ".hpp", ".in"} or not path.is_file():
                continue
            text = path.read_text(errors="replace")
            names = set(CALL.findall(text))
            if path.name == "oshwrapper.in":
                # The wrapper template reads ${SHMEM_@VAR@} and ${OSHMEM_@VAR@};
                # CMake makes oshcc (VAR=CC) and oshc++ (VAR=CXX) of it.
                for stem in re.findall(r"\$\{?((?:OSHMEM|SHMEM)_)@DART_SHMEM_VAR@", text):
                    names |= {stem + "CC", stem + "CXX"}
            for n in names:
                found.setdefault(n, str(path.relative_to(top)))
    return found


def main():
    top = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()
    code = read_in_code(top)
    manual = set(ROW.findall((top / "docs/environment.md").read_text()))
    problems = []
    for name in sorted(set(code) - manual):
        problems.append(f"check_env: {name} is read in {code[name]} but not documented: add a row "
                        f"'| `{name}` | default | meaning |' to the table of its part in docs/environment.md")
    for name in sorted(manual - set(code)):
        problems.append(f"check_env: {name} is documented in docs/environment.md but read nowhere in "
                        f"{', '.join(SOURCE_DIRS)}: remove its row, or read it in the code")
    for p in problems:
        print(p, file=sys.stderr)
    print(f"check_env: {len(code)} variables read in the code, {len(manual)} documented, "
          f"{len(problems)} differences")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
