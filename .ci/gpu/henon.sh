# GPU steps of the Hénon workspace (sourced by .ci/gpu-session.sh).
if [ "$what" = tests ]; then run_san kernels_test_henon 'HenonDevice.*'; fi
if [ "$what" = bench ]; then
  $exe bench henon --out "$stage/henon.md" > /dev/null 2> "$raw/bench_henon.err"
  tail -n 3 "$raw/bench_henon.err"
fi
