#!/usr/bin/env bash
# A/B on one GPU machine: builds an earlier tree (git archive REV into .before/, carried; see
# docs/bench/layout-rates.md) and this tree
# side by side, then runs the same `deepscope bench PHASE` commands alternately (after, before, after,
# before; drift once each), and packs the tables into $OUT. Usage:
#   AFTER=rev BEFORE=rev .ci/gpu-ab.sh build PHASE...     (PHASE: mandelbrot, henon, arith, tmd, drift)
set -u
p=/tmp/deepscope-deps; mkdir -p $p /tmp/r
for f in .deps/*.deb; do dpkg-deb -x $f $p; done
export LD_LIBRARY_PATH=$p/usr/lib/x86_64-linux-gnu
t0=$(date +%s)
build() { # src dir, build dir, name, commit
  DEEPSCOPE_GIT_COMMIT=$4 cmake -S $1 -B $2 -G Ninja -DCMAKE_BUILD_TYPE=Release -DDEEPSCOPE_GUI=OFF \
    -DDEEPSCOPE_GLAD_DIR=$PWD/.deps/glad -DCMAKE_PREFIX_PATH=$p/usr -DCMAKE_LIBRARY_PATH=$p/usr/lib/x86_64-linux-gnu \
    -DCMAKE_INCLUDE_PATH=$p/usr/include > /tmp/cfg_$3.log 2>&1 &&
  cmake --build $2 -j 16 --target deepscope > /tmp/b_$3.log 2>&1
  echo "$3 build rc=$? $(( $(date +%s)-t0 )) s"; tail -3 /tmp/b_$3.log
}
for ph in "$@"; do
  case $ph in
    build) build . /tmp/ba after "${AFTER:-}" & build .before /tmp/bb before "${BEFORE:-}" & wait ;;
    *) for k in after before after before; do
         d=/tmp/ba; [ $k = before ] && d=/tmp/bb
         n=$(ls /tmp/r | grep -c "^${ph}_$k") 
         timeout 200 $d/app/deepscope bench $ph --out /tmp/r/${ph}_${k}_$n.md > /dev/null 2> /tmp/r/${ph}_${k}_$n.err
         echo "bench $ph $k rc=$? $(( $(date +%s)-t0 )) s"
         [ $ph = drift ] && [ $n -ge 0 ] && [ $k = before ] && break
       done ;;
  esac
done
tar czf $OUT/ab_$(date +%H%M%S).tgz -C /tmp/r .
