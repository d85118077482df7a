#!/usr/bin/env bash
# GPU-machine sessions: build, then either the test suite with compute-sanitizer on the kernels
# (`tests`) or the benchmarks with Nsight Compute FP instruction counts (`bench`). Outputs go to
# $OUT (the device tool's folder) or ./gpu-out. Usage: .ci/gpu-session.sh tests|bench
set -uo pipefail
cd "$(dirname "$0")/.."
what=${1:-tests}
out=${OUT:-gpu-out}
mkdir -p "$out"
raw=/tmp/gpu-raw  # large raw files stay on the machine; $out gets the results
mkdir -p "$raw"
.ci/gpu-build.sh build-gpu > "$raw/build.log" 2>&1 || { tail -60 "$raw/build.log"; exit 1; }
. build-gpu/env.sh
exe=build-gpu/app/deepscope
t=build-gpu/tests
m=smsp__sass_thread_inst_executed_op
metrics=${m}_dadd_pred_on.sum,${m}_dmul_pred_on.sum,${m}_dfma_pred_on.sum,${m}_fadd_pred_on.sum,${m}_fmul_pred_on.sum,${m}_ffma_pred_on.sum
$exe info > "$out/info.txt"; cat "$out/info.txt"
if [ "$what" = tests ]; then
  (cd build-gpu && ctest -j 8 --timeout 300 > "$out/ctest.log" 2>&1); grep -E "tests passed|Failed|Timeout" "$out/ctest.log" | tail -12
  run_san() {  # binary, gtest filter
    timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 "$t/$1" --gtest_filter="$2" > "$out/san_$1.log" 2>&1
    echo "compute-sanitizer memcheck $1 [$2]: rc=$? $(grep -E 'ERROR SUMMARY' "$out/san_$1.log" | tail -1) $(grep -E '^\[  (PASSED|FAILED)' "$out/san_$1.log" | tail -1)"
  }
  run_san arith_test_device_ops 'DeviceOps.*'
  run_san kernels_test_mandelbrot 'MandelbrotCuda.*'
  run_san kernels_test_henon 'HenonDevice.*'
fi
if [ "$what" = bench ]; then
  ncu --csv --metrics $metrics -k regex:chain_kernel $exe bench arith --gpu-only --steps 1000 --chains 1024 \
    > "$raw/ncu_arith.csv" 2> "$raw/ncu_arith.err"
  python3 docs/bench/arith_fp_counts.py "$raw/ncu_arith.csv" 1000 1024 > "$out/arith_fp_counts.csv"
  $exe bench arith --fp-counts "$out/arith_fp_counts.csv" --out "$out/arith.md" > /dev/null 2> "$raw/bench_arith.err"
  ncu --csv --metrics $metrics -k regex:"pixel_kernel|coop_kernel|refill_kernel" $exe bench mandelbrot --gpu-only \
    --single-run --iterations-csv "$raw/mandel_iters.csv" > "$raw/ncu_mandel.csv" 2> "$raw/ncu_mandel.err"
  python3 docs/bench/mandelbrot_fp_counts.py "$raw/ncu_mandel.csv" "$raw/mandel_iters.csv" > "$out/mandelbrot_fp_counts.csv"
  $exe bench mandelbrot --fp-counts "$out/mandelbrot_fp_counts.csv" --out "$out/mandelbrot.md" > /dev/null 2> "$raw/bench_mandel.err"
  $exe bench henon --out "$out/henon.md" > /dev/null 2> "$raw/bench_henon.err"
  tail -n 4 "$raw"/*.err
fi
