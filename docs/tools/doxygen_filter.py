#!/usr/bin/env python3
"""Doxygen INPUT_FILTER for the public C headers.

The headers document every function in plain C comments (/* ... */) right
above it, as the project's style asks, and one comment often covers a run
of declarations written together (the _any/_some/_vector forms of a wait,
a create and its free). Doxygen reads only /** comments and gives a comment
to the one declaration that follows it, so this filter, without changing
a line number:
  - turns the file's opening comment into its @file description;
  - turns a comment at the end of a code line into a member's trailing
    description (/**< ... */);
  - turns every other block comment into a documentation comment;
  - wraps a comment and the run of declarations right below it (no blank
    line between) in a member group, whose documentation Doxygen then
    gives to each member (DISTRIBUTE_GROUP_DOC).
Usage (by Doxygen): doxygen_filter.py <header>
"""
import re
import sys


def statements(lines):
    """(first line, last line, text) of each statement that ends at brace
    depth 0 in lines, by index into lines."""
    depth, first, found = 0, None, []
    for k, line in enumerate(lines):
        code = re.sub(r"/\*.*?\*/|//.*", "", line)
        if first is None and code.strip():
            first = k
        for ch in code:
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
            elif ch == ";" and depth == 0 and first is not None:
                found.append((first, k, " ".join(lines[first:k + 1])))
                first = None
    return found


FUNCTION = re.compile(r"\b([A-Za-z_]\w*)\s*\((?![^()]*\)\s*\()")


def main():
    text = open(sys.argv[1], encoding="utf-8").read()
    # The shim's headers rename each PMIx function to its exported name
    # (#define PMIx_server_init pmixshim_server_init); Doxygen would fold
    # the function's documentation into that macro. The reference is of
    # the PMIx names, so the renames are left out (as empty lines).
    text = re.sub(r"(?m)^#define (PMIx_\w+) pmixshim_\w+[ \t]*$", "", text)
    text = re.sub(r"\A(\s*)/\*(?!\*)", r"\1/** @file\n", text, count=1)
    text = re.sub(r"(\S[^\n]*?)/\*(?![*<])([^\n]*?)\*/[ \t]*$", r"\1/**<\2*/", text, flags=re.M)
    # A "#word" inside a comment (e.g. "#ifdef X" in a sentence) would be a
    # Doxygen link request.
    text = re.sub(r"(?m)^(?![ \t]*#)([^\n]*?[ \t])#(?=[a-z])", r"\1\\#", text)
    lines = text.split("\n")
    out = list(lines)
    i = 0
    while i < len(lines):
        m = re.match(r"^([ \t]*)/\*(?![*<@])", lines[i])
        if not m:
            i += 1
            continue
        start = i
        while "*/" not in lines[i]:
            i += 1
        end = i
        j = end + 1
        while j < len(lines) and lines[j].strip() and not lines[j].lstrip().startswith("/*"):
            j += 1
        if j == end + 1:
            # A comment with a blank line below it heads a section of the
            # header or explains the file; it documents no declaration, and
            # as a documentation comment Doxygen would glue it to the next.
            i = end + 1
            continue
        out[start] = re.sub(r"/\*(?![*<@])", "/**", out[start], count=1)
        run = statements(lines[end + 1:j])
        names = [FUNCTION.search(text) for _, _, text in run]
        if len(run) >= 2 and names[0] and "typedef" not in run[0][2]:
            for (_, last, text), name in zip(run[1:], names[1:]):
                if name and "typedef" not in text:
                    out[end + 1 + last] += " /**< @copydoc " + names[0].group(1) + " */"
        i = end + 1
    sys.stdout.write("\n".join(out))


if __name__ == "__main__":
    main()
