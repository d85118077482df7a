# GPU steps of the scale-out layer (kernels/work.h; sourced by .ci/gpu-session.sh): the scan over
# several devices and over one device split in two, the scaling benchmark over this host's GPUs,
# and the same scan under mpirun (one rank per GPU) against one process on one GPU.
if [ "$what" = memcheck ]; then run_san kernels_henon_test_henon 'HenonDevice.ScanOverSeveral*'; fi
if [ "$what" = bench ]; then
  $exe bench scale ${scale_args:-} --out "$stage/scale-out.md" > /dev/null 2> "$raw/bench_scale.err"
  tail -n 12 "$raw/bench_scale.err"
  if command -v mpirun > /dev/null && [ "$(nvidia-smi -L | wc -l)" -ge 2 ]; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader
    scan="henon scan --a-min 1.3999 --a-step 6.103515625e-09 --na 32768 --init 1024 --transient 1000000 --pmax 1000 --backend cuda"
    {
      echo "# one process, device 0: deepscope $scan --devices 0"
      t1=$(date +%s.%N); $exe $scan --devices 0 --csv "$raw/one.csv" 2>&1 | tr '\r' '\n' | grep -v "%"
      echo "wall $(python3 -c "print(round($(date +%s.%N) - $t1, 2))") s"
      echo "# mpirun -np $(nvidia-smi -L | wc -l) deepscope $scan (one GPU per rank by local rank)"
      t1=$(date +%s.%N); mpirun -np "$(nvidia-smi -L | wc -l)" $exe $scan --csv "$raw/mpi.csv" 2>&1 | tr '\r' '\n' | grep -v "%"
      echo "wall $(python3 -c "print(round($(date +%s.%N) - $t1, 2))") s"
      cmp "$raw/one.csv" "$raw/mpi.csv" && cmp "$raw/one.json" "$raw/mpi.json" && echo "CSV and JSON identical"
    } > "$stage/scale-mpi.log" 2>&1
    cat "$stage/scale-mpi.log"
  fi
fi
