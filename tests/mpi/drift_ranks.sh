#!/usr/bin/env bash
# `deepscope drift md` under `mpirun -np 2` and `-np 3` (a slab of cell layers per rank, halos
# exchanged every step: kernels/drift/md_ranks.cpp) writes the same files, byte for byte, as one
# process, for every precision (float, double, composite, ff, mixed, fixed); a resume file written by
# one process is taken by the ranks; a checkpoint taken by 2 ranks at Ctrl-C is continued by 3 to
# the same files; too many ranks for the box, or CUDA, are refused with exit 2,
# naming the ranks, and nothing is written.
# usage: drift_ranks.sh DEEPSCOPE MPIEXEC PART, PART files (the same files, resume, refusals) or
#   stop (Ctrl-C on one rank, checkpoints across rank counts): two tests, each under a minute on
#   2 cores. Exit 77 (skipped, shown by CTest) when MPI cannot start here.
set -euo pipefail
exe=$1 mpiexec=$2 part=$3
dir=$(mktemp -d /tmp/deepscope-mpi-drift-XXXXXX)
job=
trap '[ -n "$job" ] && kill $job 2>/dev/null; rm -rf "$dir"' EXIT
# Open MPI refuses root unless told; CI containers run as root. Any rank count on any core count.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
if ! "$mpiexec" -np 2 "$exe" info > "$dir/probe.txt" 2>&1; then
  echo "SKIPPED: $mpiexec -np 2 cannot start here:"; cat "$dir/probe.txt"; exit 77
fi
grep -q "rank 1 of 2" "$dir/probe.txt" || { echo "FAIL: the ranks do not see each other:"; cat "$dir/probe.txt"; exit 1; }

# 500 atoms: 3 cell layers of 2.8 sigma, so 2 ranks own 2 + 1 layers and 3 ranks one each; the
# lattice melts at T* = 3 and atoms cross the slabs' faces every few steps.
loud=(drift md --cells 5 --steps 120 --every 10 --backend cpu)
md=("${loud[@]}" --quiet)
files=(lj.csv lj_drift.csv lj.json lj_drift.png lj_pe.png)

if [ "$part" = files ]; then
mkdir -p "$dir/one" "$dir/resume"
"$exe" "${md[@]}" --out "$dir/one/lj" > "$dir/one.log" 2>&1 || { cat "$dir/one.log"; exit 1; }
for np in 2 3; do
  mkdir -p "$dir/np$np"
  start=$(date +%s.%N)
  "$mpiexec" -np $np "$exe" "${md[@]}" --out "$dir/np$np/lj" > "$dir/np$np.log" 2>&1 ||
    { cat "$dir/np$np.log"; exit 1; }
  echo "mpirun -np $np: $(echo "$(date +%s.%N) - $start" | bc) s"
  [ -s "$dir/np$np.log" ] && { echo "FAIL: --quiet ranks printed:"; cat "$dir/np$np.log"; exit 1; }
  for f in "${files[@]}"; do
    [ -s "$dir/one/$f" ] || { echo "FAIL: one process wrote no $f"; exit 1; }
    cmp "$dir/one/$f" "$dir/np$np/$f" || { echo "FAIL: $f differs between 1 process and $np ranks"; exit 1; }
  done
  echo "same: ${files[*]} (1 process and $np ranks)"
done

# Resume: float and fixed finished by one process; 2 ranks run the other four and load those two.
"$exe" "${md[@]}" --precision float,fixed --out "$dir/resume/lj" > "$dir/resume.log" 2>&1 ||
  { cat "$dir/resume.log"; exit 1; }
"$mpiexec" -np 2 "$exe" "${loud[@]}" --out "$dir/resume/lj" > "$dir/resume2.log" 2>&1 ||
  { cat "$dir/resume2.log"; exit 1; }
[ "$(grep -c 'resumed from' "$dir/resume2.log")" = 2 ] || { echo "FAIL: expected 2 resumed runs:"; cat "$dir/resume2.log"; exit 1; }
for f in "${files[@]}"; do
  cmp "$dir/one/$f" "$dir/resume/$f" || { echo "FAIL: $f differs after resuming under 2 ranks"; exit 1; }
done
echo "same: ${files[*]} (2 ranks resuming one process's float and fixed)"

# Bad input: 4 ranks for 3 layers, and CUDA under ranks: exit 2, the ranks named, no file written.
bad() {  # bad NP EXPECTED-TEXT ARGS...
  local np=$1 want=$2 rc=0
  shift 2
  mkdir -p "$dir/bad"
  "$mpiexec" -np "$np" "$exe" "$@" --out "$dir/bad/lj" > "$dir/bad.log" 2>&1 || rc=$?
  [ $rc = 2 ] || { echo "FAIL: exit $rc, not 2, for -np $np $*:"; cat "$dir/bad.log"; exit 1; }
  grep -qF "$want" "$dir/bad.log" || { echo "FAIL: no \"$want\" in:"; cat "$dir/bad.log"; exit 1; }
  [ -z "$(ls -A "$dir/bad")" ] || { echo "FAIL: files written:"; ls "$dir/bad"; exit 1; }
  echo "refused (exit 2): -np $np $*: $(grep -m1 -F "$want" "$dir/bad.log")"
}
bad 4 "ranks (mpirun -np 4)" drift md --cells 5 --steps 10 --backend cpu
bad 2 "ranks (mpirun -np 2): the domain decomposition runs on the CPU engine" drift md --cells 5 --steps 10 --backend cuda
fi

if [ "$part" = stop ]; then
# Ctrl-C seen by one rank only (a signal to rank 1's process): every rank stops at the same sample,
# rank 0 writes the samples so far (status interrupted) and the job exits 130.
mkdir -p "$dir/cancel"
timeout -s KILL 120 "$mpiexec" -np 2 "$exe" drift md --cells 5 --steps 1000000 --every 10 --precision double \
  --backend cpu --out "$dir/cancel/lj" > "$dir/cancel.log" 2>&1 &
job=$!
for _ in $(seq 600); do grep -q "double" "$dir/cancel.log" && break; sleep 0.1; done  # running (progress)
launcher=$(ps -o pid= --ppid $job)  # timeout's child: mpirun
ranks=($(ps -o pid= --ppid $launcher))
[ ${#ranks[@]} = 2 ] || { echo "FAIL: expected 2 rank processes under mpirun, got ${ranks[*]}"; exit 1; }
kill -INT "${ranks[1]}"
rc=0
wait $job || rc=$?
job=
[ $rc = 130 ] || { echo "FAIL: exit $rc, not 130, after Ctrl-C on one rank:"; cat "$dir/cancel.log"; exit 1; }
grep -q "^double,87287,500,1497,0.005,[0-9]*,interrupted," "$dir/cancel/lj_drift.csv" ||
  { echo "FAIL: no interrupted run in lj_drift.csv:"; cat "$dir/cancel/lj_drift.csv"; exit 1; }
echo "cancelled on one rank: exit 130, $(grep -m1 interrupted "$dir/cancel/lj_drift.csv" | cut -d, -f6) steps written"

[ -s "$dir/cancel/lj.ckpt" ] || { echo "FAIL: no checkpoint written at the cancel"; exit 1; }

# Checkpoints under ranks: 2 ranks stopped (SIGINT to rank 1) once lj.ckpt is written, continued by
# 3 ranks, write the uninterrupted one-process run's files byte for byte and remove the checkpoint.
ckl=(drift md --cells 5 --steps 3000 --every 10 --precision double --backend cpu --checkpoint-every 0.2)
ck=("${ckl[@]}" --quiet)
mkdir -p "$dir/ck1" "$dir/ck"
"$exe" "${ck[@]}" --out "$dir/ck1/lj" > "$dir/ck1.log" 2>&1 || { cat "$dir/ck1.log"; exit 1; }
timeout -s KILL 120 "$mpiexec" -np 2 "$exe" "${ck[@]}" --out "$dir/ck/lj" > "$dir/ck.log" 2>&1 &
job=$!
for _ in $(seq 600); do [ -s "$dir/ck/lj.ckpt" ] && break; sleep 0.05; done
[ -s "$dir/ck/lj.ckpt" ] || { echo "FAIL: no lj.ckpt under 2 ranks:"; cat "$dir/ck.log"; exit 1; }
launcher=$(ps -o pid= --ppid $job)
ranks=($(ps -o pid= --ppid $launcher))
kill -INT "${ranks[1]}"
rc=0
wait $job || rc=$?
job=
[ $rc = 130 ] || { echo "FAIL: exit $rc, not 130, after Ctrl-C with checkpoints:"; cat "$dir/ck.log"; exit 1; }
[ -s "$dir/ck/lj.ckpt" ] || { echo "FAIL: the interrupted ranks left no checkpoint"; exit 1; }
"$mpiexec" -np 3 "$exe" "${ckl[@]}" --out "$dir/ck/lj" > "$dir/ck3.log" 2>&1 || { cat "$dir/ck3.log"; exit 1; }
grep -q "double     resumed from $dir/ck/lj.ckpt at sampling step" "$dir/ck3.log" ||
  { echo "FAIL: 3 ranks did not resume from the checkpoint:"; cat "$dir/ck3.log"; exit 1; }
for f in "${files[@]}"; do
  cmp "$dir/ck1/$f" "$dir/ck/$f" || { echo "FAIL: $f differs after a checkpoint taken by 2 ranks, resumed by 3"; exit 1; }
done
[ ! -e "$dir/ck/lj.ckpt" ] || { echo "FAIL: the finished run's checkpoint is still there"; exit 1; }
echo "same: ${files[*]} (2 ranks stopped at $(grep -o 'sampling step [0-9]*' "$dir/ck3.log"), 3 ranks resumed)"
# A truncated checkpoint under ranks: exit 2, one message (rank 0's), nothing written.
mkdir -p "$dir/badck"
head -c 1000 "$dir/cancel/lj.ckpt" > "$dir/badck/lj.ckpt"
rc=0
"$mpiexec" -np 2 "$exe" drift md --cells 5 --steps 1000000 --every 10 --precision double --backend cpu \
  --out "$dir/badck/lj" > "$dir/badck.log" 2>&1 || rc=$?
[ $rc = 2 ] || { echo "FAIL: exit $rc, not 2, for a truncated checkpoint under 2 ranks:"; cat "$dir/badck.log"; exit 1; }
[ "$(grep -c 'checksum' "$dir/badck.log")" = 1 ] || { echo "FAIL: expected one checksum message:"; cat "$dir/badck.log"; exit 1; }
[ "$(ls "$dir/badck")" = lj.ckpt ] || { echo "FAIL: files written:"; ls "$dir/badck"; exit 1; }
echo "refused (exit 2): a truncated checkpoint under 2 ranks: $(grep -m1 checksum "$dir/badck.log")"

fi
echo "PASS: drift ranks ($part)"
