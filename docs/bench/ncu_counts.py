"""Shared reader of Nsight Compute CSV (`ncu --csv --metrics ...`) for the *_fp_counts.py scripts:
per-launch records, FP instruction sums, and the format named by a kernel's template argument."""
import csv
import re
from collections import OrderedDict


def launches(path):
    """The launches in order, each a dict with "name" and one entry per metric."""
    rows = [r for r in csv.reader(open(path)) if len(r) > 10]
    # The program's own output may precede Nsight Compute's table: start at its header.
    start = next(i for i, r in enumerate(rows) if "Kernel Name" in r and "Metric Value" in r)
    rows = rows[start:]
    head = rows[0]
    idx = {k: head.index(k) for k in ("ID", "Kernel Name", "Metric Name", "Metric Value")}
    out = OrderedDict()
    for r in rows[1:]:
        rec = out.setdefault(r[idx["ID"]], {"name": r[idx["Kernel Name"]]})
        rec[r[idx["Metric Name"]]] = float(r[idx["Metric Value"]].replace(",", ""))
    return list(out.values())


def fp_sums(rec):
    """(FP64, FP32) thread-level add/mul/fma instructions of one launch."""
    d = sum(v for k, v in rec.items() if re.search(r"op_d(add|mul|fma)", k))
    f = sum(v for k, v in rec.items() if re.search(r"op_f(add|mul|fma)", k))
    return d, f


def format_name(t):
    """deepscope's format name for a demangled number type."""
    t = t.replace(" ", "")
    if "Native<float>" in t: return "f32"
    if "Native<double>" in t: return "f64"
    if "Composite" in t: return "composite"
    if "FloatFloat" in t: return "ff"
    m = re.search(r"Expansion<(?:\(int\))?(\d+)>", t)
    if m: return "f64x" + m.group(1)
    if "Fx128" in t: return "fx128"
    m = re.search(r"Limb<(?:\(int\))?(\d+)>", t)
    if m: return "limb" + m.group(1)
    raise ValueError(t)
