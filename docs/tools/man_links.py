#!/usr/bin/env python3
"""Writes the link pages of the man pages and checks that every exported
symbol has a page.

For each name of docs/man/families.py, each exported symbol of the given
libraries that a family's pattern matches (a pshmem_ symbol counts as its
shmem_ name), each environment variable in docs/environment.md's tables
and each tool alias, writes man<section>/<name>.<section> holding
".so man<section>/<page>.<section>", so that `man <name>` opens the page.
A symbol with one of the public prefixes that no family covers, or that two
families' patterns claim, fails the run with what to add where.

Usage: man_links.py <docs source dir> <man output dir> <library>...
"""
import pathlib
import re
import subprocess
import sys


def exported(lib):
    """The functions a library exports (nm types T, W, i); its data symbols
    (the objects behind SHMEM_TEAM_WORLD and the like) have no pages."""
    out = subprocess.run(["nm", "-D", "--defined-only", lib], check=True, capture_output=True,
                         text=True).stdout
    return {f[2].split("@")[0] for f in (line.split() for line in out.splitlines())
            if len(f) >= 3 and f[1] in "TWi"}


def page_of(name, families, type_re, size_re):
    """(page, section) of a symbol or name, or None; raises on ambiguity."""
    base = re.sub(r"^p(shmemx?_)", r"\1", name)
    for page, section, _summary, names, _patterns in families:
        if base in names or base == page:
            return page, section
    hits = []
    for page, section, _summary, _names, patterns in families:
        for p in patterns:
            if re.fullmatch(p.replace("TYPE", type_re).replace("SIZE", size_re), base):
                hits.append((page, section))
                break
    if len(set(hits)) > 1:
        raise ValueError(f"{name} matches the patterns of several pages: {sorted(set(hits))}; make the "
                         f"patterns in docs/man/families.py exclusive or list {base} by name")
    return hits[0] if hits else None


def link(man, name, section, page):
    if name == page:
        return
    d = man / f"man{section}"
    d.mkdir(parents=True, exist_ok=True)
    (d / f"{name}.{section}").write_text(f".so man{section}/{page}.{section}\n")


def main():
    src, man, libs = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2]), sys.argv[3:]
    sys.path.insert(0, str(src / "man"))
    import families as fam

    # Links of an earlier run go first, so a name that left the libraries
    # or its family leaves no page behind.
    for old in man.glob("man*/*"):
        if old.is_file() and old.read_text(errors="replace").startswith(".so "):
            old.unlink()
    problems, linked = [], 0
    symbols = {}
    for lib in libs:
        for s in exported(lib):
            if s.startswith(fam.PREFIXES):
                symbols.setdefault(s, pathlib.Path(lib).name)
    # The PMIx names are macros of the shim's headers for its exported
    # functions (#define PMIx_server_init pmixshim_server_init): a user
    # looks them up, so each needs a page as a symbol does.
    for h in sorted((src.parent / "pmix_shim" / "include").glob("*.h")):
        for name in re.findall(r"^#define (PMIx_\w+) pmixshim_\w+", h.read_text(), re.M):
            symbols.setdefault(name, h.name)
    for page, section, _summary, names, _patterns in fam.FAMILIES:
        if not (man / f"man{section}" / f"{page}.{section}").exists():
            problems.append(f"man{section}/{page}.{section} was not built: write docs/man/man{section}/{page}.md")
        for n in names:
            link(man, n, section, page)
            linked += 1
    for s, lib in sorted(symbols.items()):
        try:
            where = page_of(s, fam.FAMILIES, fam.TYPE, fam.SIZE)
        except ValueError as e:
            problems.append(str(e))
            continue
        if where is None:
            problems.append(f"{s} (from {lib}) has no man page: add it to the names (or a pattern) of "
                            f"its family in docs/man/families.py, or add a family there and write its page "
                            f"docs/man/man3/<page>.md")
            continue
        link(man, s, where[1], where[0])
        linked += 1
    doc, env_page, env_section, _summary = fam.ENVIRONMENT_PAGE
    text = (src / f"{doc}.md").read_text()
    for var in re.findall(r"^\|\s*`([A-Z][A-Z0-9_]+)`\s*\|", text, re.M):
        link(man, var, env_section, env_page)
        linked += 1
    for alias, page in fam.TOOL_LINKS:
        if (man / "man1" / f"{page}.1").exists():
            link(man, alias, 1, page)
            linked += 1
    for p in problems:
        print("man_links: " + p, file=sys.stderr)
    print(f"man_links: {len(symbols)} exported symbols, {linked} names linked to "
          f"{len(fam.FAMILIES) + 1} pages, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
