#!/usr/bin/env bash
# On the GPU host: the hard views of issue #42 (docs/bench/hard-views.md): builds the program and
# the cancellation test (targets only, or `full=1` for everything), then times each view with
# `render --verify 64` on the GPU, runs the cancellation test's device section, and compute-sanitizer
# memcheck over small renders that take each touched kernel through a cancel and to the end.
# Results: $OUT/hard-views.log (and the PNGs' metadata lines). Usage: [views="v25 5e227"] .ci/gpu-hard-views.sh
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-gpu-out}
mkdir -p "$out"
log="$out/hard-views.log"
t0=$(date +%s)
if [ "${full:-0}" = 1 ]; then
  .ci/gpu-build.sh build-gpu > "$out/build.log" 2>&1 || { tail -60 "$out/build.log"; exit 1; }
else
  targets="deepscope app_cli_test_cancel_cli" .ci/gpu-build.sh build-gpu > "$out/build.log" 2>&1 ||
    { tail -60 "$out/build.log"; exit 1; }
fi
. build-gpu/env.sh
exe=build-gpu/app/deepscope
{
  echo "# hard views: $(date -u +%FT%TZ), commit ${DEEPSCOPE_GIT_COMMIT:-$(git rev-parse --short HEAD 2> /dev/null)}"
  echo "build: $(($(date +%s) - t0)) s"
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  echo "host: $(nproc) threads, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
} | tee "$log"
# One timed render: NAME, then render's arguments. Wall time from the shell; the summary lines.
run() {
  local name=$1
  shift
  local s0 rc
  s0=$(date +%s.%N)
  timeout "${limit:-300}" "$exe" render "$@" --out "/tmp/hv-$name.png" > "/tmp/hv-$name.out" 2> "/tmp/hv-$name.err"
  rc=$?
  printf '\n## %s: rc %s, wall %.2f s\n$ deepscope render %s\n' "$name" "$rc" "$(awk -v a="$s0" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')" "$*" | tee -a "$log"
  grep -v $'\r' "/tmp/hv-$name.err" | tail -25 | tee -a "$log"
  tail -5 "/tmp/hv-$name.out" | tee -a "$log"
}
v25=(--re 0.356992006738525396399695724115347205 --im 0.0691411005282446050826514373514151521 --zoom 1e19
  --iter 1100100100)
for v in ${views:-v25 5e227}; do
  case $v in
    v25) run v25-1920 "${v25[@]}" --size 1920x1080 --backend cuda --verify 64 ;;
    v25c) run v25-centre "${v25[@]}" --size 1920x1080 --backend cuda --reference-at centre ;;
    5e227) run 5e227-1024 --location tests/data/kf-benchmarks/5e227.kfr --size 1024x1024 --backend cuda --verify 64 ;;
    v30) run v30-640 --location assets/locations/fractalshark/view30.loc --size 640x360 --backend cuda ;;
    *) [ -f "$v" ] && run "$(basename "$v" .loc)" --location "$v" --size "${size:-1920x1080}" --backend cuda --verify 64 ;;
  esac
done
echo | tee -a "$log"
echo "## cancellation (device section)" | tee -a "$log"
build-gpu/tests/app_cli_test_cancel_cli 2>&1 | tail -15 | tee -a "$log"
if [ "${san:-1}" = 1 ]; then
  echo "## compute-sanitizer memcheck: small renders through each touched kernel" | tee -a "$log"
  for a in "f64 --zoom 100" "f64x2 --zoom 100" "perturb --zoom 1e20" "perturb --zoom 1e20 --delta floatexp"; do
    # shellcheck disable=SC2086
    timeout 300 compute-sanitizer --tool memcheck --error-exitcode 9 "$exe" render --backend cuda --size 96x64 \
      --re -0.7453 --im 0.1127 --iter 20000 --arith $a --out /tmp/san.png > /tmp/san.log 2>&1
    echo "memcheck --arith $a: rc $? $(grep -E 'ERROR SUMMARY' /tmp/san.log | tail -1)" | tee -a "$log"
  done
  # A render cancelled part-way (SIGINT after 3 s): the pinned flag's path under the sanitizer.
  compute-sanitizer --tool memcheck --error-exitcode 9 "$exe" render --backend cuda --size 256x256 --re 0 --im 0 \
    --zoom 1e20 --iter 1e11 --no-interior --no-bla --arith perturb --out /tmp/san2.png > /tmp/san2.log 2>&1 &
  pid=$!
  sleep 8
  kill -INT $pid
  wait $pid
  echo "memcheck cancelled perturb render: rc $? $(grep -E 'ERROR SUMMARY' /tmp/san2.log | tail -1)" | tee -a "$log"
fi
echo "done: $(($(date +%s) - t0)) s" | tee -a "$log"
