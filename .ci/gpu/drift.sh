# GPU steps of the MD-drift workspace (sourced by .ci/gpu-session.sh): the device tests (CUDA sums,
# do/undo and Lennard-Jones trajectories equal to the CPU's to the bit, LAMMPS melt's step-0 energy
# on CUDA) under memcheck (phase memcheck), and `deepscope bench drift` (about 2 minutes on an H100).
if [ "$what" = memcheck ]; then run_san kernels_drift_test_drift 'DriftDevice.*'; fi
if [ "$what" = bench ]; then
  $exe bench drift --out "$stage/drift.md" > /dev/null 2> "$raw/bench_drift.err"
  tail -n 3 "$raw/bench_drift.err"
fi
