#!/usr/bin/env python3
"""Judges Doxygen's warning log of the public headers.

Fails (exit 1) on an undocumented function declared in a header, and on
every warning that is not about an undocumented macro, type, enumeration,
variable or struct (those are described by the comments around them and by
the manual's pages). Prints what to do for each failure.
Usage: check_doxygen_log.py <warnings.log>
"""
import re
import sys

UNDOCUMENTED = re.compile(r"warning: (Member|Compound) .* is not documented\.$")
FUNCTION = re.compile(r"^(.*?):(\d+): warning: Member (\w+)\(.*\) \(function\) of file")


def main():
    bad = []
    tolerated = 0
    for line in open(sys.argv[1], encoding="utf-8", errors="replace"):
        line = line.rstrip("\n")
        if not line.strip():
            continue
        m = FUNCTION.match(line)
        if m:
            bad.append(f"{m.group(1)}:{m.group(2)}: {m.group(3)} has no comment: write one right above its "
                       f"declaration (what it does, its arguments, return codes, collective or not)")
        elif UNDOCUMENTED.search(line):
            tolerated += 1
        else:
            bad.append(line)
    for b in bad:
        print("check_doxygen_log: " + b, file=sys.stderr)
    print(f"check_doxygen_log: {len(bad)} failures, {tolerated} undocumented macros/types/variables tolerated")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
