#!/usr/bin/env bash
# The fuzz smoke test of a normal build (tests/fuzz/CMakeLists.txt): configures a clang tree with
# the preset `fuzz` in BUILD_DIR, builds the fuzz targets and runs each one briefly from its seed
# corpus (FUZZ_SECONDS, default 5) under ASan + UBSan. Exit 77 (ctest: skipped) where clang or
# libFuzzer is missing. Further arguments go to the configure step (where the dependencies are).
# Usage: smoke.sh SOURCE_DIR BUILD_DIR [CMAKE_ARGS...]
set -euo pipefail
src=$1
build=$2
shift 2
seconds=${FUZZ_SECONDS:-5}
if ! command -v clang++ > /dev/null || ! command -v clang > /dev/null; then
  echo "fuzz smoke test SKIPPED: clang++ not found (Debian: apt-get install clang libclang-rt-14-dev)"
  exit 77
fi
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
echo 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }' > "$probe/p.cpp"
if ! clang++ -fsanitize=fuzzer,address,undefined "$probe/p.cpp" -o "$probe/p" > "$probe/log" 2>&1; then
  echo "fuzz smoke test SKIPPED: clang++ cannot link libFuzzer (Debian: apt-get install libclang-rt-14-dev)"
  cat "$probe/log"
  exit 77
fi
t0=$(date +%s)
# MPI and the tests are off in the preset; nothing of the normal build is reused.
cmake --preset fuzz -S "$src" -B "$build" -DDEEPSCOPE_FUZZ_SECONDS="$seconds" "$@" > "$probe/configure.log" 2>&1 ||
  { cat "$probe/configure.log"; exit 1; }
cmake --build "$build" --target deepscope_fuzz -j "$(nproc)" > "$probe/build.log" 2>&1 ||
  { tail -n 60 "$probe/build.log"; exit 1; }
t1=$(date +%s)
echo "fuzz targets built with clang in $((t1 - t0)) s"
rc=0
ctest --test-dir "$build" --output-on-failure || rc=$?
echo "fuzz runs: $(($(date +%s) - t1)) s (${seconds} s per target)"
# One line per target: its executions and rate.
awk '/^[0-9]+\/[0-9]+ Test: / { t = $3 } /^stat::number_of_executed_units:/ { n = $2 }
     /^stat::average_exec_per_sec:/ { printf "  %s: %s executions, %s exec/s\n", t, n, $2 }' \
  "$build/Testing/Temporary/LastTest.log" || true
exit $rc
