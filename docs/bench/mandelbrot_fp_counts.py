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

from ncu_counts import fp_sums, launches


def main(ncu_path, iters_path):
    runs = [v for v in launches(ncu_path) if re.search(r"(pixel|coop|refill)_kernel", v["name"])]
    bench = list(csv.DictReader(open(iters_path)))
    if len(bench) != len(runs):
        sys.exit("%d benchmark rows but %d kernel launches: run the bench with --single-run" %
                 (len(bench), len(runs)))
    print("view,format,strategy,fp64_per_iter,fp32_per_iter")
    for row, rec in zip(bench, runs):
        it = float(row["iterations"])
        d, f = fp_sums(rec)
        print("%s,%s,%s,%.2f,%.2f" % (row["view"], row["format"], row["strategy"], d / it, f / it))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
