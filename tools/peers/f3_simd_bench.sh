#!/usr/bin/env bash
# Side-by-side CPU timing of Fraktaler-3 and deepscope's binary64 pixel loop at each vector width
# (DEEPSCOPE_CPU_SIMD = scalar, avx2, avx512: kernels/perturb/cpu_simd.h; issue #48).
#   tools/peers/f3_simd_bench.sh DEEPSCOPE_EXE LOCATION WxH [RUNS] [F3_DIR]
# Runs F3, then deepscope once per width, RUNS rounds (default 3), timing the wall clock of each
# whole process, with the 1-minute load average before each round (the machine may be shared);
# prints the minimum of each, and checks that every width wrote the same counts (cmp of the
# --counts files). F3_DIR: where tools/peers/fraktaler3.sh built F3 (default .peers/fraktaler3).
set -euo pipefail
cd "$(dirname "$0")/../.."
ds=$(realpath "${1:?usage: f3_simd_bench.sh DEEPSCOPE_EXE LOCATION WxH [RUNS] [F3_DIR]}")
loc=${2:?location}
size=${3:?WxH}
runs=${4:-3}
f3=${5:-.peers/fraktaler3}
[ -x "$f3/build/fraktaler-3" ] || { echo "$0: no F3 build in $f3 (tools/peers/fraktaler3.sh build)" >&2; exit 2; }
tmp=$(mktemp -d /tmp/f3simd.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
tools/peers/loc2f3.py "$loc" --size "$size" --out "$tmp/f3.toml" --exr-stem "$tmp/f3"
wall() { local t0 t1; t0=$(date +%s.%N); "$@" > "$tmp/log" 2>&1 || { cat "$tmp/log" >&2; exit 1; }; t1=$(date +%s.%N); echo "$t1 - $t0" | bc; }
# deepscope exits 1 where it left pixels undecided, and says so (render_target.cpp,
# unresolved_exit): timed all the same.
wall_ds() {
  local t0 t1 rc=0; t0=$(date +%s.%N); "$@" > "$tmp/log" 2>&1 || rc=$?; t1=$(date +%s.%N)
  [ "$rc" = 0 ] || { [ "$rc" = 1 ] && grep -q "could not be decided" "$tmp/log"; } || { cat "$tmp/log" >&2; exit 1; }
  echo "$t1 - $t0" | bc
}
declare -A all
for r in $(seq "$runs"); do
  load=$(cut -d' ' -f1 /proc/loadavg)
  rm -f "$tmp/f3.exr"
  t=$(wall "$f3/build/fraktaler-3" -b -P -q -w "$f3/wisdom.toml" "$tmp/f3.toml")
  all[f3]+="$t "
  line="run $r (load $load): F3 $t s"
  for w in scalar avx2 avx512; do
    t=$(wall_ds env DEEPSCOPE_CPU_SIMD=$w "$ds" render --backend cpu --location "$loc" --size "$size" \
          --out "$tmp/$w.png" --counts "$tmp/$w.npy")
    all[$w]+="$t "
    line+=", $w $t s"
  done
  echo "$line"
done
grep -o "CPU pixel loop.*" "$tmp/log" || true
min() { echo "$1" | tr ' ' '\n' | grep . | sort -g | head -n 1; }
f3min=$(min "${all[f3]}")
printf "%s %s: F3 min %.2f s" "$(basename "$loc")" "$size" "$f3min"
for w in scalar avx2 avx512; do
  m=$(min "${all[$w]}")
  printf ", %s min %.2f s (/F3 %.2f)" "$w" "$m" "$(echo "$m / $f3min" | bc -l)"
done
echo
cmp "$tmp/scalar.npy" "$tmp/avx2.npy" && cmp "$tmp/scalar.npy" "$tmp/avx512.npy" && echo "counts: identical at every width"
