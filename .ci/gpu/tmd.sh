# GPU steps of the TMD workspace (sourced by .ci/gpu-session.sh).
if [ "$what" = tests ]; then
  run_san kernels_test_tmd 'TmdDevice.*'
  run_san kernels_test_tmd_lefevre 'TmdDevice.*'
fi
if [ "$what" = bench ]; then
  # Throughput per function on CPU and GPU, then the headline: all 2^32 binary32 arguments of exp2
  # rounded to nearest (k = 20), its cases as CSV/JSON in $stage/tmd-exp2/.
  mkdir -p "$stage/tmd-exp2"
  timeout 600 $exe bench tmd --out "$stage/tmd.md" --full-exp2 "$stage/tmd-exp2" > /dev/null 2> "$raw/bench_tmd.err"
  echo "bench tmd: rc=$?"; tail -n 3 "$raw/bench_tmd.err"
  grep -E "^- (time|CORE-MATH)" "$stage/tmd.md"
fi
