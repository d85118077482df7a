#!/usr/bin/env bash
# On the GPU host: FractalShark's CLI and deepscope side by side on the same GPU (issue #42,
# docs/bench/hard-views.md). Builds FractalSharkCli (tools/peers/fractalshark.sh build, about 195 s
# on 16 threads; carry .peers/ only when the host has no build of it, since a carried .peers
# replaces the host's) and deepscope (targets only) unless built, then renders each of FractalShark's
# preset views with both programs at the same size, alternating, `runs` times each, with a time
# limit, and logs wall times and both programs' last lines. Each program runs with its own library
# path (the two dependency prefixes differ). Results: $OUT/race.log and the PNGs.
# Usage: [views="5 14 25"] [size=1920x1080] [limit=60] [runs=1] .ci/gpu-race-fractalshark.sh
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-gpu-out}
mkdir -p "$out"
log="$out/race.log"
size=${size:-1920x1080}
w=${size%x*}
h=${size#*x}
fs=$(tools/peers/fractalshark.sh exe)
if [ ! -x "$fs" ]; then
  tools/peers/fractalshark.sh build > "$out/fs-build.log" 2>&1 || { tail -40 "$out/fs-build.log"; exit 1; }
fi
if [ ! -x build-gpu/app/deepscope ]; then
  targets="deepscope" .ci/gpu-build.sh build-gpu > "$out/build.log" 2>&1 || { tail -40 "$out/build.log"; exit 1; }
fi
ds=build-gpu/app/deepscope
{
  echo "# FractalShark vs deepscope: $(date -u +%FT%TZ), deepscope ${DEEPSCOPE_GIT_COMMIT:-?}, FractalShark $(cat .peers/fractalshark/COMMIT)"
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  echo "size $size, limit ${limit:-60} s, runs ${runs:-1}"
} | tee "$log"
# One timed run: NAME, the library path file to source, then the command.
timed() {
  local name=$1 env=$2
  shift 2
  local s0 rc
  s0=$(date +%s.%N)
  (. "$env" && timeout "${limit:-60}" "$@") > "/tmp/race-$name.out" 2>&1
  rc=$?
  printf '%s rc=%s wall=%s\n' "$name" "$rc" "$(awk -v a="$s0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')" | tee -a "$log"
  # The last lines of each (deepscope's summary: reference, period map, the tier's passes, the
  # cache and what was left undecided).
  grep -v -E '^(Alloc|Frees|Delta|Bytes|HeapCpp|Total alloc)' "/tmp/race-$name.out" | tail -8 | cut -c1-400 >> "$log"
}
for v in ${views:-5 14 25}; do
  vv=$(printf %02d "$v")
  for r in $(seq "${runs:-1}"); do
    rm -f "$out/fs-view$vv.png"  # FractalShark will not overwrite it (and then times less)
    timed "fs-view$vv-run$r" .peers/fractalshark/build/env.sh "$fs" --builtin-view "$v" --width "$w" --height "$h" \
      --render-algorithm AutoSelect --out "$out/fs-view$vv.png"
    timed "ds-view$vv-run$r" build-gpu/env.sh "$ds" render --location "assets/locations/fractalshark/view$vv.loc" \
      --size "$size" --backend cuda --out "$out/ds-view$vv.png"
  done
done
echo "done" | tee -a "$log"
