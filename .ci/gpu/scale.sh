# GPU steps of the scale-out layer (kernels/work.h; sourced by .ci/gpu-session.sh): the scan over
# several devices and over one device split in two, and the scaling benchmark over this host's GPUs.
if [ "$what" = tests ]; then run_san kernels_test_henon 'HenonDevice.ScanOverSeveral*'; fi
if [ "$what" = bench ]; then
  $exe bench scale ${scale_args:-} --out "$stage/scale-out.md" > /dev/null 2> "$raw/bench_scale.err"
  tail -n 12 "$raw/bench_scale.err"
fi
