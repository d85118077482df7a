#!/usr/bin/env python3
"""Counts FP64 instructions per kernel of a PTX file (see count.sh) and joins ptxas -v's registers
and spills. Only a kernel's own body is counted; .func's (out-of-line slow paths) are listed apart."""
import re
import sys
from collections import defaultdict

FP64 = re.compile(r"^\s*(?:@%p\d+\s+)?(add|sub|mul|fma|setp|min|max)(?:\.\w+)*\.f64\b")

def short(mangled):
    m = re.search(r"_Z\d+(k_\w+?)ILi(\d+)E", mangled)
    return (m.group(1), int(m.group(2))) if m else (mangled, 0)

def main(ptx_path, ptxas_path):
    counts = defaultdict(int)
    current = None
    for line in open(ptx_path):
        m = re.match(r"\s*(?:\.visible\s+|\.weak\s+)?\.(entry|func)\s+(?:\([^)]*\)\s*)?(\w+)", line)
        if m:
            current = m.group(2)
            counts[current] += 0
            continue
        if current and FP64.match(line):
            counts[current] += 1
    regs, spills = {}, {}
    fn = None
    for line in open(ptxas_path):
        m = re.search(r"Compiling entry function '(\S+)'|Function properties for (\S+)", line)
        if m:
            fn = m.group(1) or m.group(2)
        m = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", line)
        if m and fn:
            spills[fn] = (int(m.group(1)), int(m.group(2)))
        m = re.search(r"Used (\d+) registers", line)
        if m and fn:
            regs[fn] = int(m.group(1))
    table = defaultdict(dict)
    for f, c in counts.items():
        name, n = short(f)
        if name.startswith("k_"):
            s = spills.get(f, ("?", "?"))
            table[name][n] = f"{c} ({regs.get(f, '?')}r, {s[0]}/{s[1]})"
    ns = sorted({n for row in table.values() for n in row})
    print("| kernel | " + " | ".join(f"f64x{n}" for n in ns) + " |")
    print("|---|" + "---|" * len(ns))
    for name in sorted(table):
        print(f"| {name} | " + " | ".join(table[name].get(n, "") for n in ns) + " |")
    print("(FP64 instructions (registers, spill store/load bytes))")
    for f, c in counts.items():
        if not short(f)[0].startswith("k_"):
            print(f"out of line: {f}: {c} FP64 instructions")

if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
