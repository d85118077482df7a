#!/usr/bin/env python3
"""Turns Nsight Compute's FP instruction counts of `deepscope bench tmd --ncu-probe` launches into
func,fp64_per_arg,fp32_per_arg lines for `bench tmd --fp-counts`.

Run on the GPU machine (the probe launches filter_kernel once per function, in the order exp, exp2,
log, log2, sin, cos, over 2^20 arguments from 1.0, or 3.0 for log and log2):
  ncu --csv --metrics smsp__sass_thread_inst_executed_op_dadd_pred_on.sum,smsp__sass_thread_inst_executed_op_dmul_pred_on.sum,\
smsp__sass_thread_inst_executed_op_dfma_pred_on.sum,smsp__sass_thread_inst_executed_op_fadd_pred_on.sum,\
smsp__sass_thread_inst_executed_op_fmul_pred_on.sum,smsp__sass_thread_inst_executed_op_ffma_pred_on.sum \
      -k regex:filter_kernel deepscope bench tmd --ncu-probe > ncu.csv
  python3 docs/bench/tmd_fp_counts.py ncu.csv > tmd_fp_counts.csv
The counts are thread-level instructions executed over the whole launch divided by its 2^20
arguments (double division and its Newton steps included, as DFMA/DMUL)."""
import csv
import re
import sys
from collections import OrderedDict

FUNCS = ["exp", "exp2", "log", "log2", "sin", "cos"]
ARGS = float(1 << 20)


def main(ncu_path):
    rows = [r for r in csv.reader(open(ncu_path)) if len(r) > 10]
    head = rows[0]
    idx = {k: head.index(k) for k in ("ID", "Kernel Name", "Metric Name", "Metric Value")}
    launches = OrderedDict()
    for r in rows[1:]:
        rec = launches.setdefault(r[idx["ID"]], {"name": r[idx["Kernel Name"]]})
        rec[r[idx["Metric Name"]]] = float(r[idx["Metric Value"]].replace(",", ""))
    launches = [v for v in launches.values() if "filter_kernel" in v["name"]]
    if len(launches) != len(FUNCS):
        sys.exit("%d filter_kernel launches, expected %d: run bench tmd --ncu-probe" % (len(launches), len(FUNCS)))
    print("func,fp64_per_arg,fp32_per_arg")
    for f, rec in zip(FUNCS, launches):
        d = sum(v for k, v in rec.items() if re.search(r"op_d(add|mul|fma)", k))
        s = sum(v for k, v in rec.items() if re.search(r"op_f(add|mul|fma)", k))
        print("%s,%.2f,%.2f" % (f, d / ARGS, s / ARGS))


if __name__ == "__main__":
    main(sys.argv[1])
