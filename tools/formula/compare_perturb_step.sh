#!/bin/sh
# Compares the formula perturbation pass of this tree (build/, CPU libraries built) with the
# per-pixel function of an older commit's kernels/formula/perturb_step.h, pixel for pixel, at the
# test views of tests/kernels/formula/test_formula_perturb.cpp, without and with BLA.
# Usage: tools/formula/compare_perturb_step.sh [COMMIT] (default 3a3074a: before FloatExp deltas).
set -eu
commit=${1:-3a3074a}
root=$(cd "$(dirname "$0")/../.." && pwd)
b=$root/build
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git -C "$root" show "$commit:kernels/formula/perturb_step.h" |
  sed -e 's/namespace ds::formula {/namespace ds::oldf {\nusing namespace ds::formula;/' \
      -e 's#}  // namespace ds::formula#}  // namespace ds::oldf#' \
      -e 's#"formula.h"#"kernels/formula/formula.h"#' -e 's#"step.h"#"kernels/formula/step.h"#' > "$tmp/old_ps.h"
g++ -O2 -mfma -std=c++17 -ffp-contract=off -I"$root" -I"$tmp" "$root/tools/formula/compare_perturb_step.cpp" \
  "$b/kernels/formula/libdeepscope_formula.a" "$b/kernels/mandelbrot/libdeepscope_mandelbrot.a" \
  "$b/kernels/perturb/libdeepscope_perturb.a" "$b/kernels/core/libdeepscope_core.a" \
  "$b/arith/libdeepscope_arith_host.a" -lmpfr -lgmp -lpthread -o "$tmp/compare"
for bla in no bla; do
  "$tmp/compare" $bla burning-ship
  "$tmp/compare" $bla mandelbar 0.310175907990264547510074843810928955381608532623691 \
    0.452451404255531058853404179332138283843885987485153 1.2676506002282359e30 32000
  "$tmp/compare" $bla celtic -0.77362395931434288945154822652948881053107 \
    0.47086562405041076453212307161421900403961 2.9514790517935312e20 8000
  "$tmp/compare" $bla mandelbrot,burning-ship -0.8019282266674581821045894289848968111814 \
    -0.16507176432579787887486640532584239151177 2.9514790517935312e20 8000
  "$tmp/compare" $bla burning-ship -1.749738990540381325390293428499134907572197280083504 0 1.0141204801825892e31 2000
  "$tmp/compare" $bla mandelbrot5 -0.617720 0.798059 262144 1000
done
