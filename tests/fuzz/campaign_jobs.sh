#!/usr/bin/env bash
# A fuzzing campaign over many cores (docs/bench/fuzz.md): for each TARGET:WORKERS:RUNS, libFuzzer's
# -jobs=WORKERS -workers=WORKERS, each worker -runs=RUNS from the seeds (tests/fuzz/corpus/TARGET)
# and a shared new-corpus folder in WORK. Prints a markdown row per target (workers x runs,
# executions summed over the workers' logs, exec/s summed, seconds, corpus, crash files, rc). Stop it
# with timeout if need be: the workers' logs in WORK/logs/TARGET keep the counts so far. Usage:
#   tests/fuzz/campaign_jobs.sh BIN_DIR WORK TARGET:WORKERS:RUNS...   (BIN_DIR holds fuzz_TARGET)
set -u
src=$(cd "$(dirname "$0")" && pwd)
bin=$(cd "$1" && pwd) w=$2
shift 2
mkdir -p "$w/artifacts"
w=$(cd "$w" && pwd)
for spec in "$@"; do
  IFS=: read -r t n r <<< "$spec"
  mkdir -p "$w/corpus/$t" "$w/logs/$t"
  dict=$src/location.dict
  [ -f "$src/$t.dict" ] && dict=$src/$t.dict
  s0=$(date +%s)
  (cd "$w/logs/$t" && "$bin/fuzz_$t" -jobs="$n" -workers="$n" -runs="$r" -timeout=10 -rss_limit_mb=2048 \
     -dict="$dict" -print_final_stats=1 -artifact_prefix="$w/artifacts/$t-" \
     "$w/corpus/$t" "$src/corpus/$t" > "$w/logs/$t.out" 2>&1)
  rc=$?
  # A worker's executions: its final stats, or the last status line of one stopped early.
  ex=0 rate=0
  for f in "$w/logs/$t"/fuzz-*.log; do
    s=$(grep -E '^stat::number_of_executed_units' "$f" | awk '{print $2}')
    h=$(grep -oE '^#[0-9]+' "$f" | tr -d '#' | sort -n | tail -1)
    ex=$((ex + ${s:-${h:-0}}))
    v=$(grep -E '^stat::average_exec_per_sec' "$f" | awk '{print $2}' | head -1)
    rate=$((rate + ${v:-0}))
  done
  echo "| fuzz_$t | $n x $r | $ex | $rate | $(( $(date +%s) - s0 )) | $(find "$w/corpus/$t" -type f | wc -l) |" \
       "$(find "$w/artifacts" -name "$t-*" | wc -l) | $rc |"
done
