#!/usr/bin/env python3
"""Turns Nsight Compute's per-launch FP instruction counts of `deepscope bench arith` into
format,op,fp64_per_op,fp32_per_op lines (docs/bench/arith_fp_counts.csv).

Run on the GPU machine:
  ncu --csv --metrics smsp__sass_thread_inst_executed_op_dadd_pred_on.sum,smsp__sass_thread_inst_executed_op_dmul_pred_on.sum,\
smsp__sass_thread_inst_executed_op_dfma_pred_on.sum,smsp__sass_thread_inst_executed_op_fadd_pred_on.sum,\
smsp__sass_thread_inst_executed_op_fmul_pred_on.sum,smsp__sass_thread_inst_executed_op_ffma_pred_on.sum \
      -k regex:chain_kernel deepscope bench arith --gpu-only --steps 1000 --chains 1024 > ncu.csv
  python3 docs/bench/arith_fp_counts.py ncu.csv 1000 1024 > docs/bench/arith_fp_counts.csv
Each (format, op) launches twice: a warm-up of steps/16+1 steps, then the measured run; the
second is used. add counts two operations per step (the add and the sub)."""
import re
import sys

from ncu_counts import format_name, fp_sums, launches

OPS = {"0": "add", "1": "sub", "2": "mul", "3": "sqr", "4": "div", "5": "sqrt", "6": "henon"}


def main(path, steps, chains):
    seen = {}
    out = []
    for rec in launches(path):
        m = re.search(r"chain_kernel<(.*),\s*(?:\(ds::ArithOp\))?(\d)>", rec["name"])
        if not m:
            continue
        key = (format_name(m.group(1)), OPS[m.group(2)])
        seen[key] = seen.get(key, 0) + 1
        if seen[key] != 2:
            continue
        per = chains * steps * (2 if key[1] == "add" else 1)
        d, f = fp_sums(rec)
        out.append("%s,%s,%.2f,%.2f" % (key[0], key[1], d / per, f / per))
    print("format,op,fp64_per_op,fp32_per_op")
    print("\n".join(out))


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))
