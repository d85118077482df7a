#!/usr/bin/env python3
"""Turns Nsight Compute's FP instruction counts of `deepscope bench mandelbrot` launches into
view,format,strategy,fp64_per_iter,fp32_per_iter lines for `bench mandelbrot --fp-counts`.

Run on the GPU machine (one launch per benchmark row, in the order of iters.csv):
  ncu --csv --metrics smsp__sass_thread_inst_executed_op_dadd_pred_on.sum,smsp__sass_thread_inst_executed_op_dmul_pred_on.sum,\
smsp__sass_thread_inst_executed_op_dfma_pred_on.sum,smsp__sass_thread_inst_executed_op_fadd_pred_on.sum,\
smsp__sass_thread_inst_executed_op_fmul_pred_on.sum,smsp__sass_thread_inst_executed_op_ffma_pred_on.sum \
      -k regex:"pixel_kernel|coop_kernel|refill_kernel" deepscope bench mandelbrot --gpu-only --single-run \
      --iterations-csv iters.csv > ncu.csv
  python3 docs/bench/mandelbrot_fp_counts.py ncu.csv iters.csv > docs/bench/mandelbrot_fp_counts.csv
The counts are thread-level instructions executed (inactive lanes excluded) over the whole launch,
divided by the iterations done, so per-pixel setup and the smooth tail are included."""
import csv
import re
import sys
from collections import OrderedDict


def main(ncu_path, iters_path):
    rows = [r for r in csv.reader(open(ncu_path)) if len(r) > 10]
    head = rows[0]
    idx = {k: head.index(k) for k in ("ID", "Kernel Name", "Metric Name", "Metric Value")}
    launches = OrderedDict()
    for r in rows[1:]:
        rec = launches.setdefault(r[idx["ID"]], {"name": r[idx["Kernel Name"]]})
        rec[r[idx["Metric Name"]]] = float(r[idx["Metric Value"]].replace(",", ""))
    launches = [v for v in launches.values() if re.search(r"(pixel|coop|refill)_kernel", v["name"])]
    bench = list(csv.DictReader(open(iters_path)))
    if len(bench) != len(launches):
        sys.exit("%d benchmark rows but %d kernel launches: run the bench with --single-run" %
                 (len(bench), len(launches)))
    print("view,format,strategy,fp64_per_iter,fp32_per_iter")
    for row, rec in zip(bench, launches):
        it = float(row["iterations"])
        d = sum(v for k, v in rec.items() if re.search(r"op_d(add|mul|fma)", k))
        f = sum(v for k, v in rec.items() if re.search(r"op_f(add|mul|fma)", k))
        print("%s,%s,%s,%.2f,%.2f" % (row["view"], row["format"], row["strategy"], d / it, f / it))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
