# GPU steps of the perturbation engine (sourced by .ci/gpu-session.sh).
if [ "$what" = memcheck ]; then run_san kernels_perturb_test_perturb 'PerturbDevice.*'; fi
if [ "$what" = tests ]; then
  "$t/kernels_perturb_test_perturb" --gtest_filter='PerturbDevice.*' > "$stage/perturb_device.log" 2>&1
  grep -E '^\[  (PASSED|FAILED|SKIPPED)|interior' "$stage/perturb_device.log" | tail -6
  # The real-location suite, deep entries included, on the auto path (CUDA here).
  DEEPSCOPE_SUITE=all "$t/app_test_oracle_suite" > "$stage/oracle_suite.log" 2>&1
  grep -E 'kf-|^\[  (PASSED|FAILED)' "$stage/oracle_suite.log" | tail -24
fi
if [ "$what" = bench ]; then
  $exe bench perturb --kf tests/data/kf-benchmarks --out "$stage/perturbation-kf.md" > /dev/null 2> "$raw/bench_kf.err"
  cat "$raw/bench_kf.err" | tail -n 8
  $exe bench reference --out "$stage/reference.md" > /dev/null 2> "$raw/bench_reference.err"
  tail -n 10 "$raw/bench_reference.err"
  $exe bench perturb --out "$stage/perturbation.md" > /dev/null 2> "$raw/bench_perturb.err"
  tail -n 8 "$raw/bench_perturb.err"
fi
