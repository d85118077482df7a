# GPU steps of the perturbation engine (sourced by .ci/gpu-session.sh).
if [ "$what" = tests ]; then
  run_san kernels_test_perturb 'PerturbDevice.*'
  "$t/kernels_test_perturb" --gtest_filter='PerturbDevice.*' > "$stage/perturb_device.log" 2>&1
  grep -E '^\[  (PASSED|FAILED|SKIPPED)' "$stage/perturb_device.log" | tail -3
fi
if [ "$what" = bench ]; then
  $exe bench perturb --out "$stage/perturbation.md" > /dev/null 2> "$raw/bench_perturb.err"
  tail -n 8 "$raw/bench_perturb.err"
fi
