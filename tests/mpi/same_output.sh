#!/usr/bin/env bash
# `mpirun -np 2` gives byte-identical outputs to one process (issue #10), on the CPU.
# usage: same_output.sh DEEPSCOPE MPIEXEC CASE
#   CASE: henon | tmd | render. Exit 77 (skipped, shown by CTest) when MPI cannot start here.
set -euo pipefail
exe=$1 mpiexec=$2 case=$3
dir=$(mktemp -d /tmp/deepscope-mpi-XXXXXX)
trap 'rm -rf "$dir"' EXIT
# Open MPI refuses root unless told; CI containers run as root. Two ranks on any core count.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
if ! "$mpiexec" -np 2 "$exe" info > "$dir/probe.txt" 2>&1; then
  echo "SKIPPED: $mpiexec -np 2 cannot start here:"; cat "$dir/probe.txt"; exit 77
fi
grep -q "rank 1 of 2" "$dir/probe.txt" || { echo "FAIL: the ranks do not see each other:"; cat "$dir/probe.txt"; exit 1; }

run_case() {  # run_case TAG OUT-FILES... -- ARGS (ARGS use @OUT@ for the output directory)
  local files=() args=()
  while [ "$1" != "--" ]; do files+=("$1"); shift; done
  shift
  for a in "$@"; do args+=("${a//@OUT@/$dir/one}"); done
  mkdir -p "$dir/one" "$dir/two"
  "$exe" "${args[@]}" > "$dir/one.log" 2>&1 || { cat "$dir/one.log"; exit 1; }
  args=()
  for a in "$@"; do args+=("${a//@OUT@/$dir/two}"); done
  "$mpiexec" -np 2 "$exe" "${args[@]}" > "$dir/two.log" 2>&1 || { cat "$dir/two.log"; exit 1; }
  cat "$dir/two.log"
  for f in "${files[@]}"; do
    [ -s "$dir/one/$f" ] || { echo "FAIL: one process wrote no $f"; exit 1; }
    cmp "$dir/one/$f" "$dir/two/$f" || { echo "FAIL: $f differs between 1 process and 2 ranks"; exit 1; }
    echo "same: $f ($(wc -c < "$dir/one/$f") bytes)"
  done
}

case $case in
  henon)
    run_case scan.csv scan.json -- henon scan --a-min 1.2 --a-step 0.0007 --na 60 --init 16 --transient 3000 \
      --pmax 200 --chunk 2 --backend cpu --csv @OUT@/scan.csv
    run_case plane.png plane.npy -- henon plane --centre-a 1.0 --centre-b 0.2 --width 0.8 --size 32x16 \
      --transient 2000 --pmax 32 --chunk 64 --backend cpu --quiet --out @OUT@/plane.png
    run_case basin.png basin.npy -- henon basin --a 1.0 --b 0.3 --width 6 --size 32x32 --transient 2000 \
      --pmax 32 --chunk 100 --backend cpu --quiet --out @OUT@/basin.png ;;
  tmd)
    run_case exp2.csv -- tmd exhaustive --func exp2 --mode nearest --k 14 --range 0x3f800000:0x3f87ffff \
      --chunk 65536 --backend cpu --quiet --out @OUT@/exp2.csv
    run_case exp.csv exp.json -- tmd regular --func exp --mode directed --k 16 --range 0x3f800000:0x3f83ffff \
      --backend cpu --quiet --out @OUT@/exp.csv
    run_case exp.tmdc exp.json -- tmd regular --func exp --mode directed --k 16 --range 0x3f800000:0x3f83ffff \
      --backend cpu --quiet --out @OUT@/exp.tmdc ;;
  render)
    run_case view.png view.npy -- render --size 320x240 --iter 400 --backend cpu --tile-rows 16 --quiet \
      --counts @OUT@/view.npy --out @OUT@/view.png
    run_case f_00001.png f_00004.png -- render --size 96x64 --iter 300 --backend cpu --frames 4 --zoom-to 40 \
      --quiet --out @OUT@/f_%05d.png ;;
  *) echo "unknown case $case"; exit 2 ;;
esac
echo "PASS: $case"
