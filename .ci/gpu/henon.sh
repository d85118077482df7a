# GPU steps of the Hénon workspace (sourced by .ci/gpu-session.sh).
if [ "$what" = memcheck ]; then
  run_san kernels_henon_test_henon 'HenonDevice.*'
  run_san kernels_henon_test_henon_plane 'HenonPlaneDevice.*'
fi
if [ "$what" = bench ]; then
  # FP instructions per step of the transient loop (Nsight Compute replays every launch, so a small
  # run: the floating formats at 2,000 steps x 16,896 orbits; the counts per step do not change),
  # once with a and b in each format and once with a and b doubles for f64xN (names + "+d").
  ncu --csv --metrics $metrics -k regex:advance_ $exe bench henon --gpu-only --steps 2000 --orbits 16896 \
    --params format --formats f32,f64,composite,ff,f64x2,f64x3,f64x4,f64x5,f64x6,f64x7,f64x8 \
    > "$raw/ncu_henon.csv" 2> "$raw/ncu_henon.err"
  ncu --csv --metrics $metrics -k regex:advance_ $exe bench henon --gpu-only --steps 2000 --orbits 16896 \
    --params double --formats f64x2,f64x3,f64x4,f64x5,f64x6,f64x7,f64x8 > "$raw/ncu_henon_d.csv" 2>> "$raw/ncu_henon.err"
  { python3 docs/bench/henon_fp_counts.py "$raw/ncu_henon.csv" 2000 16896;
    python3 docs/bench/henon_fp_counts.py "$raw/ncu_henon_d.csv" 2000 16896 +d | tail -n +2; } > "$stage/henon_fp_counts.csv"
  $exe bench henon ${henon_bench_args:-} --fp-counts "$stage/henon_fp_counts.csv" --out "$stage/henon.md" > /dev/null 2> "$raw/bench_henon.err"
  tail -n 3 "$raw/bench_henon.err"
  if [ -z "${henon_bench_args:-}" ]; then
  # The paper's sink at (1.4, 0.2999999774905): 65,536 start points (its basin is small: about one
  # start point in 2,000 reaches it), 1e7 transient steps, f64 on the GPU; the period and
  # eigenvalues of the point found are in docs/bench/henon-paper.md.
  { time $exe henon scan --a-min 1.4 --a-step 0 --na 1 --b-min 0.2999999774905 --init 65536 \
      --transient 10000000 --pmax 5000 --backend cuda --csv "$stage/henon_sink.csv" ; } > "$stage/henon_sink.log" 2>&1
  tail -n 3 "$stage/henon_sink.log"
  fi
  # The parameter plane (docs/henon.md, "Parameter plane and basins"): 1920x1080 pixels, one start
  # point each, 1e5 transient steps, p_max 1000, over a in [-0.5, 2], b in [-0.70, 0.70]. Targets:
  # f64 <= 1 s, f64x2 <= 10 s. Then the Lyapunov colouring (f64, 1e4 steps) and a 1024x1024 basin.
  for ar in f64 f64x2; do
    { time $exe henon plane --centre-a 0.75 --centre-b 0 --width 2.5 --size 1920x1080 --transient 100000 \
        --pmax 1000 --arith $ar --backend cuda --out "$stage/henon_plane_$ar.png" ; } > "$stage/henon_plane_$ar.log" 2>&1
    tail -n 4 "$stage/henon_plane_$ar.log"
  done
  { time $exe henon plane --centre-a 0.75 --centre-b 0 --width 2.5 --size 1920x1080 --transient 100000 \
      --colour lyapunov --lyapunov-steps 10000 --backend cuda --out "$stage/henon_plane_lyap.png" ; } \
    > "$stage/henon_plane_lyap.log" 2>&1
  tail -n 4 "$stage/henon_plane_lyap.log"
  { time $exe henon basin --a 1.0 --b 0.3 --width 6 --size 1024x1024 --transient 100000 --pmax 1000 \
      --backend cuda --out "$stage/henon_basin.png" ; } > "$stage/henon_basin.log" 2>&1
  tail -n 4 "$stage/henon_basin.log"
fi
