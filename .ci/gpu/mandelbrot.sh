# GPU steps of the Mandelbrot engine (sourced by .ci/gpu-session.sh).
if [ "$what" = tests ]; then run_san kernels_test_mandelbrot 'MandelbrotCuda.*'; fi
if [ "$what" = bench ]; then
  ncu --csv --metrics $metrics -k regex:"pixel_kernel|coop_kernel|refill_kernel" $exe bench mandelbrot --gpu-only \
    --single-run --iterations-csv "$raw/mandel_iters.csv" > "$raw/ncu_mandel.csv" 2> "$raw/ncu_mandel.err"
  python3 docs/bench/mandelbrot_fp_counts.py "$raw/ncu_mandel.csv" "$raw/mandel_iters.csv" > "$stage/mandelbrot_fp_counts.csv"
  $exe bench mandelbrot --fp-counts "$stage/mandelbrot_fp_counts.csv" --out "$stage/mandelbrot.md" > /dev/null 2> "$raw/bench_mandel.err"
  tail -n 3 "$raw/bench_mandel.err"
fi
