# GPU steps of the display path (render/canvas_texture.h; sourced by .ci/gpu-session.sh): device
# canvases against host renders, the frame drawn through CUDA-GL interop in a headless EGL context
# against the CPU-rendered frame, and `bench interop` (frame times at 1920x1080).
if [ "$what" = memcheck ]; then
  run_san kernels_colour_test_canvas 'CanvasDevice.*'
  run_san kernels_colour_test_point_cloud 'PointCloudDevice.*'
  run_san render_test_display '*'
  grep -E "^GL:|equals|DIFFERS" "$stage/san_render_test_display__.log" | head -8
fi
if [ "$what" = bench ]; then
  $exe bench interop ${interop_args:-} --out "$stage/interop.md" > /dev/null 2> "$raw/bench_interop.err"
  echo "bench interop rc=$?"; tail -n 30 "$raw/bench_interop.err"
fi
