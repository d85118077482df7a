#!/usr/bin/env bash
# One GPU-machine session: build, the whole test suite, compute-sanitizer on the kernels, info,
# FP instruction counts and the benchmarks. Outputs go to $OUT (or ./gpu-out). Usage:
#   .ci/gpu-session.sh [all|tests|bench]
set -uo pipefail
cd "$(dirname "$0")/.."
what=${1:-all}
out=${OUT:-gpu-out}
mkdir -p "$out"
.ci/gpu-build.sh build-gpu > "$out/build.log" 2>&1 || { tail -50 "$out/build.log"; exit 1; }
. build-gpu/env.sh
exe=build-gpu/app/deepscope
$exe info | tee "$out/info.txt"
if [ "$what" = all ] || [ "$what" = tests ]; then
  (cd build-gpu && ctest -j 8 --timeout 600 > "$out/ctest.log" 2>&1); tail -15 "$out/ctest.log"
  for t in arith_test_device_ops kernels_test_mandelbrot_device; do
    [ -x build-gpu/tests/$t ] || continue
    compute-sanitizer --tool memcheck --error-exitcode 9 build-gpu/tests/$t > "$out/sanitizer_$t.log" 2>&1
    echo "compute-sanitizer $t: rc=$? $(grep -E 'ERROR SUMMARY' "$out/sanitizer_$t.log" | tail -1)"
  done
fi
if [ "$what" = all ] || [ "$what" = bench ]; then
  m=smsp__sass_thread_inst_executed_op
  ncu --csv --metrics ${m}_dadd_pred_on.sum,${m}_dmul_pred_on.sum,${m}_dfma_pred_on.sum,${m}_fadd_pred_on.sum,${m}_fmul_pred_on.sum,${m}_ffma_pred_on.sum \
    -k regex:chain_kernel $exe bench arith --gpu-only --steps 1000 --chains 1024 > "$out/ncu_arith.csv" 2> "$out/ncu_arith.err"
  python3 docs/bench/arith_fp_counts.py "$out/ncu_arith.csv" 1000 1024 > "$out/arith_fp_counts.csv" || tail "$out/ncu_arith.err"
  $exe bench arith --fp-counts "$out/arith_fp_counts.csv" --out "$out/arith.md" > /dev/null 2> "$out/bench_arith.err"
  tail -40 "$out/arith.md"
fi
