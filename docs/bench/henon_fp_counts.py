#!/usr/bin/env python3
"""Turns Nsight Compute's FP instruction counts of `deepscope bench henon` launches into
format,fp64_per_step,fp32_per_step lines for `bench henon --fp-counts`.

Run on the GPU machine (the scan's transient kernel, every launch of every format):
  ncu --csv --metrics <dadd,dmul,dfma,fadd,fmul,ffma ..._pred_on.sum> -k regex:advance_ \
      deepscope bench henon --gpu-only --steps S --orbits N > ncu.csv
  python3 docs/bench/henon_fp_counts.py ncu.csv S N [+d] > henon_fp_counts.csv
Each format runs a warm-up of min(S, 1000) steps and then S steps, all N orbits (none escapes),
so the counts are divided by N (min(S, 1000) + S): the escape pre-test and the loop are included.
f32 and f64 also run a row over 512 parameters (another kernel, advance_kernel<T, false>): only
their one-parameter kernel (advance_kernel<T, true>) is counted. Likewise f64xN with a and b
doubles (+d): only their one-parameter kernel (advance_double_ab_kernel<T>) is counted.
The ncu filter must match both kernels: -k regex:advance_."""
import re
import sys

from ncu_counts import format_name, fp_sums, launches


def main(path, steps, orbits, suffix=""):
    total = {}
    for rec in launches(path):
        m = re.search(r"advance_double_ab_kernel<(.*?)>\(", rec["name"])
        if m:
            d, f = fp_sums(rec)
            old = total.setdefault(format_name(m.group(1)), [0.0, 0.0])
            old[0] += d
            old[1] += f
            continue
        m = re.search(r"advance_kernel<(.*?)(?:, ?(true|false|1|0|\(bool\)1|\(bool\)0))?>\(", rec["name"])
        if not m:
            continue
        name = format_name(m.group(1))
        # f32/f64 rows: the one-parameter kernel (a, b kernel arguments, flag true); the extra row
        # over 512 parameters runs the per-thread kernel (false) and is not counted.
        if name in ("f32", "f64") and m.group(2) in ("false", "0", "(bool)0"):
            continue
        # f64xN with a and b doubles ("+d"): the one-parameter rows run advance_double_ab_kernel
        # (not matched here: counted below); the rows over 512 parameters run advance_kernel.
        if suffix == "+d":
            continue
        d, f = fp_sums(rec)
        old = total.setdefault(name, [0.0, 0.0])
        old[0] += d
        old[1] += f
    per = float(orbits) * (min(steps, 1000) + steps)
    print("format,fp64_per_step,fp32_per_step")
    for name, (d, f) in total.items():
        print("%s%s,%.2f,%.2f" % (name, suffix, d / per, f / per))


if __name__ == "__main__":
    # An optional 4th argument is appended to the format names ("+d": the run with --params double).
    main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] if len(sys.argv) > 4 else "")
