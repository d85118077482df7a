#!/usr/bin/env python3
# The tables of docs/hostile-audit.md from two runs of tools/hostile_inputs.sh (TSV: case, exit,
# files left, message): BEFORE and AFTER, plus the first audit's "before" column (0342352) taken
# from the doc's current tables where a case was there.
# usage: tools/hostile_table.py BEFORE.tsv AFTER.tsv docs/hostile-audit.md > tables.md
import re
import sys


def read_tsv(path):
    rows = []
    for line in open(path, encoding="utf-8", errors="replace"):
        parts = line.rstrip("\n").split("\t")
        while len(parts) < 4:
            parts.append("")
        rows.append((parts[0], parts[1], parts[2].strip(), parts[3]))
    return rows


def first_audit(doc):
    """case -> the first audit's 'before (0342352)' cell, from the doc's tables."""
    out = {}
    for line in open(doc, encoding="utf-8"):
        m = re.match(r"^\| (\d+) \| (.*?) \| (.*?) \| ", line)
        if m:
            out.setdefault(m.group(2), m.group(3))
    return out


def same_text(a, b):
    """Messages equal up to the timings they print ("0.000021 s")."""
    t = lambda m: re.sub(r"\d+\.\d+ s\b", "T s", m)
    return t(a) == t(b)


def cell(rc, left):
    return rc + (", left: `" + left + "`" if left else "")


def main():
    before, after, doc = sys.argv[1], sys.argv[2], sys.argv[3]
    b = {r[0]: r for r in read_tsv(before)}
    old = first_audit(doc)
    issue_cases = 15  # the first 15 rows are issue 43's list (tools/hostile_inputs.sh)
    header = ("| # | case | first audit, before (0342352) | before (3a3074a): exit, files left "
              "| now: exit, files left | message now |\n|---|---|---|---|---|---|")
    print("## The cases issue 43 lists\n")
    print(header)
    for i, (name, rc, left, msg) in enumerate(read_tsv(after), 1):
        if i == issue_cases + 1:
            print("\n## Further hostile inputs\n")
            print(header)
        first = old.get(name, "(not in it)")
        if name in b:
            _, brc, bleft, bmsg = b[name]
            was = cell(brc, bleft)
            same = (brc, bleft) == (rc, left)
            now = "same" if same else "**" + cell(rc, left) + "**"
            text = msg if same_text(bmsg, msg) else "**" + msg + "** (was: " + bmsg + ")"
        else:
            was, now, text = "(not run)", cell(rc, left), msg
        print(f"| {i} | {name} | {first} | {was} | {now} | {text} |")


if __name__ == "__main__":
    main()
