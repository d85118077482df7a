#!/usr/bin/env bash
# The Hénon-sinks paper's full scan on the GPU machine (after .ci/gpu-session.sh built build-gpu):
# a in [1.3999, 1.4001) in 1e6 steps of 2e-10, b = 0.3, 1024 start points per parameter, 1e6
# transient steps each, f64. The CSV is large: the sinks' rows and the summary go to $OUT.
# Usage: .ci/gpu-henon-scan.sh [extra scan options]
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-gpu-out}; mkdir -p "$out"
. build-gpu/env.sh
work=/tmp/henon-scan; mkdir -p "$work"
start=$(date +%s)
build-gpu/app/deepscope henon scan --a-min 1.3999 --a-step 2e-10 --na 1000000 --b-min 0.3 --init 1024 \
  --transient 1000000 --pmax 5000 --tol 1e-10 --backend cuda --chunk-file "$work/scan.chunks" \
  --csv "$work/scan.csv" "$@" > "$work/scan.log" 2>&1
rc=$?
echo "rc=$rc wall=$(( $(date +%s) - start )) s"
head -n 2 "$work/scan.log" | tee "$out/scan_head.log"; tail -n 2 "$work/scan.log" | tr '\r' '\n' | tail -n 3 | tee "$out/scan_tail.log"
head -n 1 "$work/scan.csv" > "$out/scan_sinks.csv"
awk -F, 'NR > 1 && $7 == 1' "$work/scan.csv" >> "$out/scan_sinks.csv"
echo "sink rows: $(( $(wc -l < "$out/scan_sinks.csv") - 1 )), parameters with a sink: $(awk -F, 'NR > 1 {print $1}' "$out/scan_sinks.csv" | sort -u | wc -l)"
awk -F, 'NR > 1 && $5 > 0 {p[$5] += $6} END {for (k in p) print k, p[k]}' "$work/scan.csv" | sort -n > "$out/scan_periods.txt"
