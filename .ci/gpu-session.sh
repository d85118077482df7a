#!/usr/bin/env bash
# GPU-machine sessions: build, then either the test suite with compute-sanitizer on the kernels
# (`tests`) or the benchmarks (`bench`). Each kernel family adds its own steps in .ci/gpu/NAME.sh
# (sourced with $what, $exe, $t, $stage, $raw, run_san and $metrics set), and `only=NAME,...`
# limits a run to some families. Results are packed into $OUT/results.tgz (the device tool
# returns at most 8 files). Usage: [only=a,b] .ci/gpu-session.sh tests|bench|both
set -uo pipefail
cd "$(dirname "$0")/.."
what=${1:-tests}
out=${OUT:-gpu-out}
mkdir -p "$out"
stage=/tmp/gpu-stage; rm -rf "$stage"; mkdir -p "$stage"
raw=/tmp/gpu-raw  # large raw files stay on the machine; $stage gets the results
mkdir -p "$raw"
t0=$(date +%s)
.ci/gpu-build.sh build-gpu > "$raw/build.log" 2>&1 || { tail -60 "$raw/build.log"; cp "$raw/build.log" "$out/"; exit 1; }
echo "build: $(( $(date +%s) - t0 )) s"
. build-gpu/env.sh
exe=build-gpu/app/deepscope
t=build-gpu/tests
m=smsp__sass_thread_inst_executed_op
metrics=${m}_dadd_pred_on.sum,${m}_dmul_pred_on.sum,${m}_dfma_pred_on.sum,${m}_fadd_pred_on.sum,${m}_fmul_pred_on.sum,${m}_ffma_pred_on.sum
$exe info > "$stage/info.txt"; cat "$stage/info.txt"
run_san() {  # binary, gtest filter
  timeout 300 compute-sanitizer --tool memcheck --error-exitcode 9 "$t/$1" --gtest_filter="$2" > "$stage/san_$1.log" 2>&1
  echo "compute-sanitizer memcheck $1 [$2]: rc=$? $(grep -E 'ERROR SUMMARY' "$stage/san_$1.log" | tail -1) $(grep -E '^\[  (PASSED|FAILED)' "$stage/san_$1.log" | tail -1)"
}
if [ "$what" = tests ] || [ "$what" = both ]; then
  (cd build-gpu && ctest -j 8 --timeout 300 > "$stage/ctest.log" 2>&1); grep -E "tests passed|Failed|Timeout" "$stage/ctest.log" | tail -12
fi
for f in .ci/gpu/*.sh; do
  name=$(basename "$f" .sh)
  if [ -n "${only:-}" ] && [[ ",$only," != *",$name,"* ]]; then continue; fi
  for phase in tests bench; do
    if [ "$what" = "$phase" ] || [ "$what" = both ]; then
      echo "== $name $phase ($(( $(date +%s) - t0 )) s)"; asked=$what; what=$phase; . "$f"; what=$asked
    fi
  done
done
tar czf "$out/results.tgz" -C "$stage" .
echo "done: $(( $(date +%s) - t0 )) s"
