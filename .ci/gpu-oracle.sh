#!/usr/bin/env bash
# On the GPU machine (16 cores): MPFR oracle grids for the deep suite entries, started in the
# background (setsid) right after the build so they run while the GPU tests and benches do.
# Results land in /tmp/oracle (copied into tests/data/oracle by the next call, then brought home).
# Usage: .ci/gpu-oracle.sh BUILD_DIR NAME:LOCATION ...   (LOCATION under tests/data)
set -uo pipefail
cd "$(dirname "$0")/.."
build=$1
shift
mkdir -p /tmp/oracle
. "$build/env.sh"
for spec in "$@"; do
  name=${spec%%:*}
  loc=${spec#*:}
  /usr/bin/time -f "$name %e s" "$build/app/deepscope" oracle --location "tests/data/$loc" --size 1024x1024 --grid 32 \
    --out "/tmp/oracle/$name.npy" --quiet >> /tmp/oracle/log 2>&1
done
echo done >> /tmp/oracle/log
