#!/usr/bin/env bash
# Side-by-side CPU timing of deepscope and Fraktaler-3 on one location (issue #48), then a
# pixel-by-pixel count comparison. Needs tools/peers/fraktaler3.sh prepare + build first.
#   tools/peers/f3_bench.sh DEEPSCOPE_EXE LOCATION WxH [RUNS]
# Runs F3 and deepscope alternately RUNS times (default 3), each on every core (F3 uses
# hardware_concurrency; deepscope --backend cpu uses all cores), and prints each wall time and the
# minimum. Then renders the view once more with F3's centre-sampling build and deepscope --counts
# and compares the counts (tools/peers/f3_compare.cpp). Work files go to a temporary directory.
set -euo pipefail
cd "$(dirname "$0")/../.."
ds=${1:?usage: f3_bench.sh DEEPSCOPE_EXE LOCATION WxH [RUNS]}
loc=${2:?location}
size=${3:?WxH}
runs=${4:-3}
b=.peers/fraktaler3/build
wisdom=.peers/fraktaler3/wisdom.toml
[ -x "$b/fraktaler-3" ] || { echo "$0: build F3 first (tools/peers/fraktaler3.sh build)" >&2; exit 2; }
# F3's default wisdom (what -W writes: no OpenCL here, the CPU with its built-in speed table).
[ -f "$wisdom" ] || "$b/fraktaler-3" -W -w "$wisdom" > /dev/null
tmp=$(mktemp -d /tmp/f3bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
tools/peers/loc2f3.py "$loc" --size "$size" --out "$tmp/f3.toml" --exr-stem "$tmp/f3"
iter=$(sed -n 's/^iterations = //p' "$tmp/f3.toml")
wall() { local t0 t1; t0=$(date +%s.%N); "$@" > "$tmp/log" 2>&1 || { cat "$tmp/log" >&2; exit 1; }; t1=$(date +%s.%N); echo "$t1 - $t0" | bc; }
f3_min=; ds_min=
for r in $(seq "$runs"); do
  rm -f "$tmp/f3.exr"
  tf=$(wall "$b/fraktaler-3" -b -P -q -w "$wisdom" "$tmp/f3.toml")
  td=$(wall "$ds" render --backend cpu --location "$loc" --size "$size" --out "$tmp/ds.png")
  echo "run $r: F3 $tf s, deepscope $td s"
  ds_min=$(echo "$ds_min $td" | tr ' ' '\n' | grep . | sort -g | head -n 1)
  f3_min=$(echo "$f3_min $tf" | tr ' ' '\n' | grep . | sort -g | head -n 1)
done
printf "%s %s: F3 min %.2f s, deepscope min %.2f s, deepscope/F3 %.2f\n" "$(basename "$loc")" "$size" \
  "$f3_min" "$ds_min" "$(echo "$ds_min / $f3_min" | bc -l)"
# Counts, pixel by pixel, at the pixel centres.
rm -f "$tmp/f3.exr"
"$b/fraktaler-3-centres" -b -P -q -w "$wisdom" "$tmp/f3.toml" > /dev/null 2>&1
"$ds" render --backend cpu --location "$loc" --size "$size" --out "$tmp/ds.png" --counts "$tmp/ds.npy" 2>&1 | sed -n '1,2p'
"$b/f3_compare" "$tmp/f3.exr" "$tmp/ds.npy" "$iter"
