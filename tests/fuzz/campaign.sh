#!/usr/bin/env bash
# A fuzzing campaign (docs/quality.md): each target named (default: all six) for RUNS executions
# (libFuzzer's -runs) from its seeds plus what earlier campaigns in WORK found, one after another,
# niced. Prints a markdown row per target (executions, exec/s, seconds, corpus size, crashes: the
# files libFuzzer wrote to WORK/artifacts). Usage:
#   tests/fuzz/campaign.sh BUILD_DIR WORK RUNS [TARGET...]     e.g. build-fuzz /tmp/fuzz 10000000
set -uo pipefail
src=$(cd "$(dirname "$0")" && pwd)
build=$1 work=$2 runs=$3
shift 3
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(location kfr kfp f3_toml png_text henon_csv chunk_file)
mkdir -p "$work/artifacts"
for t in "${targets[@]}"; do
  mkdir -p "$work/corpus/$t"
  dict=$src/location.dict
  [ -f "$src/$t.dict" ] && dict=$src/$t.dict
  t0=$(date +%s)
  nice -n "${NICE:-15}" "$build/tests/fuzz/fuzz_$t" -runs="$runs" -timeout=10 -rss_limit_mb=2048 \
    -dict="$dict" -print_final_stats=1 -artifact_prefix="$work/artifacts/$t-" \
    "$work/corpus/$t" "$src/corpus/$t" > "$work/$t.log" 2>&1
  rc=$?
  stat() { grep -E "^stat::$1:" "$work/$t.log" | grep -oE '[0-9]+$'; }
  crashes=$(find "$work/artifacts" -name "$t-*" | wc -l)
  printf '| %s | %s | %s | %s | %s | %s | %s |\n' "fuzz_$t" "$(stat number_of_executed_units)" \
    "$(stat average_exec_per_sec)" "$(( $(date +%s) - t0 ))" "$(find "$work/corpus/$t" -type f | wc -l)" \
    "$crashes" "$rc"
done
