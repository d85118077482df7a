# GPU steps of the Hénon workspace (sourced by .ci/gpu-session.sh).
if [ "$what" = tests ]; then run_san kernels_test_henon 'HenonDevice.*'; fi
if [ "$what" = bench ]; then
  $exe bench henon --out "$stage/henon.md" > /dev/null 2> "$raw/bench_henon.err"
  tail -n 3 "$raw/bench_henon.err"
  # The paper's sink at (1.4, 0.2999999774905): 1024 start points, 1e7 transient steps, f64 on the
  # GPU; then the cycle's period and eigenvalues from the point found, in f64 and f64x2.
  { time $exe henon scan --a-min 1.4 --a-step 0 --na 1 --b-min 0.2999999774905 --init 1024 \
      --transient 10000000 --pmax 5000 --backend cuda --csv "$stage/henon_sink.csv" ; } > "$stage/henon_sink.log" 2>&1
  tail -n 3 "$stage/henon_sink.log"
fi
