#!/usr/bin/env bash
# On the GPU machine, after .ci/gpu-build.sh build-gpu: issue #47's 32,000-atom drift runs
# (docs/bench/drift.md, "32,000 atoms on the H200"). Each argument is one precision, run for three
# seeds on CUDA: 60,000 sampled steps of dt 0.002 after 5,000 of equilibration, shifted force. Every
# run writes to the same prefix under build-gpu/ (kept between calls on a warm machine), so finished
# runs accumulate in build-gpu/drift32k/h200.resume; `all` then loads the six precisions' runs and
# writes the combined table, CSVs, JSON and plots without running anything again. A SIGINT stops
# within a second and keeps the runs already finished. Usage:
#   .ci/gpu-drift-32k.sh float double ...   |   .ci/gpu-drift-32k.sh all
set -euo pipefail
cd "$(dirname "$0")/.."
. build-gpu/env.sh
mkdir -p build-gpu/drift32k
run() {
  build-gpu/app/deepscope drift md --atoms 32000 --steps 60000 --every 300 --equilibrate 5000 --dt 0.002 \
    --shifted-force --seeds 1,2,3 --backend cuda --out build-gpu/drift32k/h200 "$@"
}
for p in "$@"; do
  if [ "$p" = all ]; then
    run --precision float,double,composite,ff,mixed,fixed
  else
    start=$(date +%s.%N)
    run --precision "$p" --quiet
    echo "== $p: 3 seeds in $(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s"
  fi
done
