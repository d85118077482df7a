#!/usr/bin/env bash
# On the GPU machine (16 cores): MPFR oracle grids (deepscope oracle) for suite entries too costly
# for two cores, one after another on every core, each resumable from its chunk file. Stops
# starting new ones after DEADLINE seconds (a device call is limited), stops a running one at the
# deadline (its finished pixels stay in the chunk file), and packs what it has into $OUT/oracles.tgz.
# Usage: DEADLINE=S .ci/gpu-oracles.sh BUILD_DIR SIZE GRID NAME:LOCATION ...   (LOCATION under tests/data)
set -uo pipefail
cd "$(dirname "$0")/.."
build=$1 size=$2 grid=$3
shift 3
. "$build/env.sh"
end=$(( $(date +%s) + ${DEADLINE:-480} ))
dir=tests/data/oracle
for spec in "$@"; do
  name=${spec%%:*} loc=${spec#*:}
  left=$(( end - $(date +%s) ))
  [ "$left" -gt 10 ] || break
  /usr/bin/time -f "$name %e s" timeout "$left" "$build/app/deepscope" oracle --location "tests/data/$loc" --size "$size" \
    --grid "$grid" --out "$dir/$name.npy" --quiet 2>&1 | tail -n 2
done
tar czf "${OUT:-.}/oracles.tgz" $dir/*.npy $dir/*.json $(ls $dir/*.chunks 2>/dev/null)
