#!/bin/bash
# usage: tools/bench/tier_ab.sh FILE SIZE RUNS -- the 106-bit tier with floatexp2 alone (--no-dw-tier) against
# double words first, alternating, RUNS times each, CPU; prints the min tier seconds and whether the PNGs match.
f=$1; size=$2; runs=$3
best_a=999; best_b=999
for r in $(seq $runs); do
  a=$(${DEEPSCOPE:-build/app/deepscope} render --no-dw-tier --location $f --size $size --backend cpu --out ${TMPDIR:-/tmp}/ab_a.png 2>&1 | grep -o "([0-9.]* s at 106" | tr -d '(' | cut -d' ' -f1)
  b=$(${DEEPSCOPE:-build/app/deepscope} render --location $f --size $size --backend cpu --out ${TMPDIR:-/tmp}/ab_b.png 2>&1 | grep -o "([0-9.]* s at 106" | tr -d '(' | cut -d' ' -f1)
  best_a=$(python3 -c "print(min($best_a,$a))"); best_b=$(python3 -c "print(min($best_b,$b))")
done
cmp -s ${TMPDIR:-/tmp}/ab_a.png ${TMPDIR:-/tmp}/ab_b.png && same=identical || same=DIFFERENT
echo "$(basename $f) $size floatexp2 ${best_a}s dw ${best_b}s ratio $(python3 -c "print(round($best_a/$best_b,2))") images $same"
