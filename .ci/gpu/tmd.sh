# GPU steps of the TMD workspace (sourced by .ci/gpu-session.sh).
if [ "$what" = memcheck ]; then
  run_san kernels_tmd_test_tmd 'TmdDevice.*'
  run_san kernels_tmd_test_lefevre 'TmdDevice.*'
  # The device-resident pipeline (expansion, tests built on the device, atomic-append compaction)
  # against the CPU one and against the previous implementation's records.
  run_san kernels_tmd_test_pipeline 'TmdDevice.*'
  # Two workers on one GPU (--devices 0,0) against one: the same files.
  run_san kernels_tmd_test_scale 'TmdDevice.*'
fi
if [ "$what" = bench ]; then
  # Throughput per function on CPU and GPU, the headline (all 2^32 binary32 arguments of exp2
  # rounded to nearest, k = 20; cases as CSV/JSON in $stage/tmd-exp2/), then the paper's Tables 1,
  # 2 and 5 on exp over [1, 1 + 2^-13) (2^40 precision-54 arguments, both searches; MPFR packets on
  # the host, everything else on the device), and the phase 1+2 time against
  # the hybrid division threshold (Figure 9) on exp over [1, 1 + 2^-16), then Table 5 on a sample of
  # the binade [1, 2): its first 64 intervals of 2^40 arguments (1/128 of it), both searches, phase
  # by phase with one worker and the wall time with two workers on the GPU, extrapolated x 128.
  # FP64 instructions per argument from Nsight Compute (one 2^20-argument launch per function).
  ncu --csv --metrics $metrics -k regex:filter_kernel $exe bench tmd --ncu-probe > "$raw/ncu_tmd.csv" 2> "$raw/ncu_tmd.err"
  fpc=""
  if python3 docs/bench/tmd_fp_counts.py "$raw/ncu_tmd.csv" > "$stage/tmd_fp_counts.csv"; then
    fpc="--fp-counts $stage/tmd_fp_counts.csv"
  else
    echo "tmd: no Nsight Compute counts ($(tail -n 2 "$raw/ncu_tmd.err"))"
  fi
  mkdir -p "$stage/tmd-exp2"
  timeout 480 $exe bench tmd $fpc --out "$stage/tmd.md" --full-exp2 "$stage/tmd-exp2" --table1 13 --div-sweep 16 --binade-chunks 64 > /dev/null 2> "$raw/bench_tmd.err"
  echo "bench tmd: rc=$?"; tail -n 5 "$raw/bench_tmd.err"
  grep -E "^- (time|CORE-MATH)|^HR-cases|^Per interval|^\| (1|wall)" "$stage/tmd.md"
fi
