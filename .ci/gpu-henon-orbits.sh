#!/usr/bin/env bash
# The certified Hénon orbit catalogue at (1.4, 0.3) to period N on the GPU host's CPU cores (after
# .ci/gpu-build.sh built build-gpu), resumable across calls: each call runs at most BUDGET seconds
# (default 540, under the device's 600 s per call), is then interrupted (SIGINT: finished chunks are
# kept), and the next call with the same N resumes from the chunk file kept in build-gpu/henon-orbits
# (ignored by git, so it stays while the machine stays warm). When the catalogue is whole it prints
# the counts per period beside tests/data/henon/galias-counts.csv and copies the JSON to $OUT.
# A call that does not finish also writes the chunk file gzipped in parts of 15 MiB to $OUT
# (cN.chunks.gz.partNN: what comes back from the device), so that a later machine can resume it:
# put the parts in .henon-chunks/ (git-ignored), carry that folder, and the next call starts from
# them when build-gpu/henon-orbits has no chunk file of its own (period 31 resumed so, on this
# host and then on the 2-core machine, docs/bench/henon-orbits.md).
# Usage: .ci/gpu-henon-orbits.sh N [BUDGET_S [extra henon orbits options, e.g. --threads 16]]
set -uo pipefail
cd "$(dirname "$0")/.."
n=${1:?usage: .ci/gpu-henon-orbits.sh N [BUDGET_S [options]]}
budget=${2:-540}
shift; shift || true
out=${OUT:-gpu-out}; mkdir -p "$out"
[ -f build-gpu/env.sh ] && . build-gpu/env.sh
work=build-gpu/henon-orbits; mkdir -p "$work"
csv="$work/c$n.csv"; json="$work/c$n.json"; chunks="$work/c$n.chunks"
if [ ! -f "$chunks" ] && [ ! -f "$json" ] && ls .henon-chunks/c$n.chunks.gz.part* > /dev/null 2>&1; then
  cat .henon-chunks/c$n.chunks.gz.part* | gunzip > "$chunks" || { echo "period $n: the carried chunk parts do not unpack"; rm -f "$chunks"; exit 1; }
  echo "period $n: resuming from the carried chunk file ($(grep -c '^end ' "$chunks") chunks)"
fi
if [ -f "$json" ] && [ ! -f "$chunks" ]; then
  echo "period $n: already complete ($json)"
else
  done_before=$(grep -c '^end ' "$chunks" 2>/dev/null || echo 0)
  echo "period $n: $(nproc) cores, budget $budget s, $done_before chunks already in $chunks; started $(date -u +%H:%M:%S)"
  start=$(date +%s)
  timeout -s INT -k 30 "$budget" build-gpu/app/deepscope henon orbits --period-max "$n" --out "$csv" \
    --json "$json" --chunk-file "$chunks" "$@" > "$work/c$n.out" 2> "$work/c$n.log"
  rc=$?
  echo "rc=$rc wall=$(( $(date +%s) - start )) s"
  tr '\r' '\n' < "$work/c$n.log" | grep -v '^ *$' | tail -n 4
  if [ "$rc" -eq 130 ] || [ "$rc" -eq 124 ]; then
    echo "period $n: not finished, $(grep -c '^end ' "$chunks" 2>/dev/null || echo 0) chunks done: run the same command again to resume"
    gzip -6 -c "$chunks" | split -b 15M -d - "$out/c$n.chunks.gz.part"
    echo "period $n: the chunk file is in $out/c$n.chunks.gz.part* ($(ls "$out"/c$n.chunks.gz.part* | wc -l) parts) for a later machine"
    exit 0
  fi
  [ "$rc" -eq 0 ] || { echo "period $n: failed (rc=$rc)"; exit "$rc"; }
fi
cp "$json" "$out/henon-orbits-c$n.json"
# Counts per period from the JSON, beside Galias's (where the table in tests/data has them).
if ! command -v python3 > /dev/null; then
  grep -E '"(complete|orbits|undecided)"|"n":' "$json"
  exit 0
fi
python3 - "$json" tests/data/henon/galias-counts.csv <<'EOF'
import json, sys
j = json.load(open(sys.argv[1]))
g = {}
for line in open(sys.argv[2]):
    if line[:1].isdigit():
        k, v = line.strip().split(",")[:2]
        g[int(k)] = int(v)
print(f"complete={j['complete']} orbits={j['orbits']} undecided={j['undecided']} seconds(last call)={j['seconds']:.1f}")
print(" n  orbits  undecided  sinks  walks  galias")
for r in j["per_period"]:
    n = r["n"]
    mark = "" if n not in g else ("  ==" if g[n] == r["orbits"] else "  DIFFERS")
    print(f"{n:2d}  {r['orbits']:6d}  {r['undecided']:9d}  {r['sinks']:5d}  {r['walks']:10d}  {g.get(n, '-')}{mark}")
EOF
