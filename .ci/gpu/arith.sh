# GPU steps of the arithmetic core (sourced by .ci/gpu-session.sh).
if [ "$what" = memcheck ]; then
  run_san arith_test_device_ops 'DeviceOps.*'
  run_san arith_test_expansion '*DeviceMatchesHost*'
fi
if [ "$what" = bench ]; then
  ncu --csv --metrics $metrics -k regex:chain_kernel $exe bench arith --gpu-only --steps 1000 --chains 1024 \
    > "$raw/ncu_arith.csv" 2> "$raw/ncu_arith.err"
  python3 docs/bench/arith_fp_counts.py "$raw/ncu_arith.csv" 1000 1024 > "$stage/arith_fp_counts.csv"
  $exe bench arith --fp-counts "$stage/arith_fp_counts.csv" --out "$stage/arith.md" > /dev/null 2> "$raw/bench_arith.err"
  tail -n 3 "$raw/bench_arith.err"
fi
