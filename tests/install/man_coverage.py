#!/usr/bin/env python3
"""Checks an installed tree's man pages against what it installs.

- Every function the installed libraries export with a public prefix
  (dart_, shmem_, shmemx_, pshmem_, pshmemx_, registry_, pmixshim_) and
  every PMIx_ name the installed headers define has a page in
  share/man/man3: a file <name>.3, either the page or a ".so" link whose
  target exists.
- Every installed tool among dartrun, oshrun, oshcc, oshc++, oshcxx,
  pmix_push and oshmem_info has share/man/man1/<tool>.1, and every option
  its --help prints (for the compiler wrappers, the options their header
  lists) appears on that page.
Prints the counts found/expected of each, and one line per miss.
Usage: man_coverage.py <prefix>
"""
import pathlib
import re
import subprocess
import sys

PREFIXES = ("dart_", "shmem_", "shmemx_", "pshmem_", "pshmemx_", "registry_", "pmixshim_")
TOOLS = ["dartrun", "oshrun", "oshcc", "oshc++", "oshcxx", "pmix_push", "oshmem_info"]
WRAPPERS = {"oshcc", "oshc++", "oshcxx"}


def page_file(man, section, name):
    """The file `man` would show for name, following .so links, or None."""
    f = man / f"man{section}" / f"{name}.{section}"
    for _ in range(4):
        if not f.is_file():
            return None
        first = f.read_text(errors="replace").split("\n", 1)[0]
        if not first.startswith(".so "):
            return f
        f = man / first[4:].strip()
    return None


def roff_text(f):
    """A page's text with roff's escapes taken out, for option lookups."""
    t = f.read_text(errors="replace")
    t = re.sub(r"\\f[BIRP]|\\f\(..|\\&|\\%", "", t)
    return t.replace("\\-", "-").replace("\\(aq", "'")


def exported_functions(lib):
    out = subprocess.run(["nm", "-D", "--defined-only", str(lib)], check=True, capture_output=True,
                         text=True).stdout
    return {f[2].split("@")[0] for f in (line.split() for line in out.splitlines())
            if len(f) >= 3 and f[1] in "TWi"}


def main():
    prefix = pathlib.Path(sys.argv[1])
    man = prefix / "share" / "man"
    misses = []

    names = set()
    libs = sorted(p for d in ("lib", "lib64") for p in (prefix / d).glob("lib*.so*")
                  if p.is_file() and not p.is_symlink())
    for lib in libs:
        names |= {s for s in exported_functions(lib) if s.startswith(PREFIXES)}
    for h in (prefix / "include").rglob("*.h"):
        names |= set(re.findall(r"^#define (PMIx_\w+) pmixshim_\w+", h.read_text(errors="replace"), re.M))
    found = 0
    for n in sorted(names):
        if page_file(man, 3, n):
            found += 1
        else:
            misses.append(f"no page for {n}: man3/{n}.3 is missing (docs/man/families.py lists the names "
                          f"and patterns of each page)")
    print(f"man_coverage: functions {found}/{len(names)} have a page "
          f"({len(libs)} libraries: {', '.join(l.name for l in libs)})")

    tools = [t for t in TOOLS if (prefix / "bin" / t).exists()]
    tools_found = options_found = options_expected = 0
    for t in tools:
        page = page_file(man, 1, t)
        if not page:
            misses.append(f"no page for the tool {t}: man1/{t}.1 is missing (write docs/man/man1/{t}.md "
                          f"and list it in TOOLS of docs/man/families.py)")
            continue
        tools_found += 1
        exe = prefix / "bin" / t
        if t in WRAPPERS:
            # The wrappers pass --help to the compiler; their own options are
            # the ones their header comment lists.
            text = "\n".join(l for l in exe.read_text(errors="replace").splitlines() if l.startswith("#   -"))
        else:
            r = subprocess.run([str(exe), "--help"], capture_output=True, text=True, timeout=30)
            text = r.stdout + r.stderr
        options = sorted(set(re.findall(r"(?<![\w-])(--?[a-z][a-z0-9-]*(?::[a-z]+)?)", text)))
        options = [o for o in options if o.startswith("--") or t in WRAPPERS]
        page_text = roff_text(page)
        for o in options:
            options_expected += 1
            if re.search(r"(?<![\w-])" + re.escape(o) + r"(?![\w-])", page_text):
                options_found += 1
            else:
                misses.append(f"{t}: option {o} (from {'its header' if t in WRAPPERS else '--help'}) is not "
                              f"on its page: describe it in docs/man/man1/{page.stem.replace('+', 'x')}.md")
    print(f"man_coverage: tools {tools_found}/{len(tools)} have a page ({', '.join(tools)}); "
          f"options {options_found}/{options_expected} on their pages")

    env = page_file(man, 7, "dart-environment")
    print(f"man_coverage: dart-environment(7) {'found' if env else 'MISSING'}")
    if not env:
        misses.append("no page dart-environment(7)")
    for m in misses:
        print("man_coverage: " + m, file=sys.stderr)
    return 1 if misses else 0


if __name__ == "__main__":
    sys.exit(main())
