#!/usr/bin/env bash
# Static FP64 instruction counts of arith/expansion.h for sm_90, per kernel of expansion_probe.cu,
# from the PTX (this machine has nvcc and ptxas but no cuobjdump/nvdisasm): add/sub/mul/fma/setp/
# min/max on .f64 each become one FP64 SASS instruction (DADD DMUL DFMA DSETP DMNMX); abs/neg are
# operand modifiers and selp a 32-bit SEL pair, not counted. Registers and spills from ptxas -v.
# Slow paths that expansion.h keeps out of line (noinline) are separate .func's, not counted.
# Usage: tests/arith/sass/count.sh [outdir]   (run from anywhere; needs nvcc)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
out=${1:-/tmp/expansion_sass}
mkdir -p "$out"
flags=(-std=c++17 -arch=sm_90 --fmad=false --expt-relaxed-constexpr -prec-div=true -prec-sqrt=true
       -ftz=false -Xcompiler=-ffp-contract=off -O3 -I"$root")
nvcc "${flags[@]}" -ptx -o "$out/probe.ptx" "$here/expansion_probe.cu"
ptxas -arch=sm_90 -O3 -v -o "$out/probe.cubin" "$out/probe.ptx" 2> "$out/ptxas.txt"
python3 "$here/count.py" "$out/probe.ptx" "$out/ptxas.txt"
