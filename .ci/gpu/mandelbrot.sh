# GPU steps of the Mandelbrot engine (sourced by .ci/gpu-session.sh).
if [ "$what" = memcheck ]; then
  run_san kernels_mandelbrot_test_mandelbrot 'MandelbrotCuda.*'
  run_san kernels_mandelbrot_test_render_rows 'RenderRowsDevice.*'
fi
if [ "$what" = tests ]; then
  # deepscope render on one GPU split into two logical devices (strips, frames): the same bytes as
  # one render on one device.
  d=$(mktemp -d)
  for m in "--arith f64 --zoom 100" "--arith perturb --zoom 1e40"; do
    a="--re -0.74530000000000000000000000000000000000000000001 --im 0.1127 --iter 4000 --size 1280x720 $m --backend cuda --quiet"
    $exe render $a --devices 0 --out "$d/one.png" && $exe render $a --devices 0,0 --out "$d/two.png" &&
      $exe render $a --devices 0,0 --tile-rows 7 --out "$d/strips.png" &&
      cmp "$d/one.png" "$d/two.png" && cmp "$d/one.png" "$d/strips.png" &&
      echo "render $m: strips on cuda 0,0 byte-identical to one render" || echo "render $m: FAILED"
    $exe render $a --size 320x180 --frames 4 --zoom-to 1e3 --devices 0 --out "$d/s1.png" &&
      $exe render $a --size 320x180 --frames 4 --zoom-to 1e3 --devices 0,0 --out "$d/s2.png" &&
      cmp "$d/s1_00001.png" "$d/s2_00001.png" && cmp "$d/s1_00002.png" "$d/s2_00002.png" &&
      cmp "$d/s1_00003.png" "$d/s2_00003.png" && cmp "$d/s1_00004.png" "$d/s2_00004.png" &&
      echo "render $m: frames on cuda 0,0 byte-identical to one device" || echo "render $m frames: FAILED"
  done
  rm -rf "$d"
fi
if [ "$what" = bench ]; then
  ncu --csv --metrics $metrics -k regex:"pixel_kernel|coop_kernel|refill_kernel" $exe bench mandelbrot --gpu-only \
    --single-run --iterations-csv "$raw/mandel_iters.csv" > "$raw/ncu_mandel.csv" 2> "$raw/ncu_mandel.err"
  python3 docs/bench/mandelbrot_fp_counts.py "$raw/ncu_mandel.csv" "$raw/mandel_iters.csv" > "$stage/mandelbrot_fp_counts.csv"
  $exe bench mandelbrot --fp-counts "$stage/mandelbrot_fp_counts.csv" --out "$stage/mandelbrot.md" > /dev/null 2> "$raw/bench_mandel.err"
  tail -n 3 "$raw/bench_mandel.err"
fi
