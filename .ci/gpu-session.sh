#!/usr/bin/env bash
# GPU-machine sessions: build, then the test suite with compute-sanitizer on the kernels (`tests`),
# compute-sanitizer alone over every kernel family's device tests (`memcheck`), the CPU tests under
# ASan + UBSan (`asan`, docs/quality.md), or the benchmarks (`bench`). Each kernel family adds its
# own steps in .ci/gpu/NAME.sh (sourced with $what = memcheck, tests or bench, and $family, $exe,
# $t, $stage, $raw, run_san and $metrics set), and `only=NAME,...` limits a run to some families.
# Results are packed into $OUT/results.tgz (the device tool returns at most 8 files); `memcheck`
# and `tests` also leave the summary $OUT/memcheck.md beside it, `asan` $OUT/asan.md. Usage:
#   [only=a,b] [san_tool=memcheck] [san_args=...] .ci/gpu-session.sh tests|memcheck|asan|bench|both
set -uo pipefail
cd "$(dirname "$0")/.."
what=${1:-tests}
out=${OUT:-gpu-out}
mkdir -p "$out"
stage=/tmp/gpu-stage; rm -rf "$stage"; mkdir -p "$stage"
raw=/tmp/gpu-raw  # large raw files stay on the machine; $stage gets the results
mkdir -p "$raw"
commit=${DEEPSCOPE_GIT_COMMIT:-$(git rev-parse --short HEAD 2> /dev/null)}
t0=$(date +%s)

if [ "$what" = asan ]; then
  # The CPU program and tests under AddressSanitizer + UndefinedBehaviorSanitizer (the preset
  # asan-ubsan: no CUDA, so the device sections report themselves skipped).
  .ci/gpu-build.sh build-asan --preset asan-ubsan > "$raw/build-asan.log" 2>&1 ||
    { tail -60 "$raw/build-asan.log"; cp "$raw/build-asan.log" "$out/"; exit 1; }
  echo "build (asan-ubsan): $(( $(date +%s) - t0 )) s"
  . build-asan/env.sh
  t1=$(date +%s)
  ctest --preset asan-ubsan -j "$(nproc)" --timeout 900 > "$stage/ctest-asan.log" 2>&1
  rc=$?
  reports=$(grep -E "ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:" "$stage/ctest-asan.log")
  {
    echo "# CPU tests under ASan + UBSan"
    echo
    echo "$(date -u +%F), commit $commit, $(nproc) cores, $(c++ --version | head -1)."
    echo "\`.ci/gpu-session.sh asan\`: \`cmake --preset asan-ubsan\` and \`ctest --preset asan-ubsan\`:" \
      "rc $rc in $(( $(date +%s) - t1 )) s."
    echo
    echo '```'
    grep -E "tests passed|tests failed|\*\*\*|Failed|Timeout|Not Run" "$stage/ctest-asan.log" | tail -40
    echo '```'
    echo
    echo "Sanitizer reports in the log: $(printf '%s' "$reports" | grep -c .)"
    printf '%s\n' "$reports" | sort | uniq -c | head -20
  } > "$stage/asan.md"
  cat "$stage/asan.md"; cp "$stage/asan.md" "$out/"
  tar czf "$out/results.tgz" -C "$stage" .
  echo "done: $(( $(date +%s) - t0 )) s"
  exit 0
fi

.ci/gpu-build.sh build-gpu > "$raw/build.log" 2>&1 || { tail -60 "$raw/build.log"; cp "$raw/build.log" "$out/"; exit 1; }
echo "build: $(( $(date +%s) - t0 )) s"
. build-gpu/env.sh
exe=build-gpu/app/deepscope
t=build-gpu/tests
m=smsp__sass_thread_inst_executed_op
metrics=${m}_dadd_pred_on.sum,${m}_dmul_pred_on.sum,${m}_dfma_pred_on.sum,${m}_fadd_pred_on.sum,${m}_fmul_pred_on.sum,${m}_ffma_pred_on.sum
$exe info > "$stage/info.txt"; cat "$stage/info.txt"

# compute-sanitizer over one test binary's device tests: a log per run, a row of memcheck.md, and
# the tests it ran (for the coverage check at the end). san_tool picks another tool (initcheck,
# racecheck, synccheck); san_args adds options (--leak-check full); san_timeout limits each run.
san_tool=${san_tool:-memcheck}
: > "$raw/memcheck-ran.txt"
printf '| family | test binary | filter | tests | result | errors | s |\n|---|---|---|---|---|---|---|\n' \
  > "$raw/memcheck-rows.md"
# "binary Suite.Test" for each test that --gtest_list_tests prints.
gtest_names() {
  awk -v bin="$1" '/^[^ ]/ { suite = $1 } /^  [^ ]/ { print bin " " suite $1 }'
}
run_san() {  # binary, gtest filter
  local log s0 rc passed skipped errors result
  log="$stage/san_$1_$(printf '%s' "$2" | tr -c 'A-Za-z0-9_' '_').log"
  s0=$(date +%s)
  # shellcheck disable=SC2086
  timeout "${san_timeout:-300}" compute-sanitizer --tool "$san_tool" ${san_args:-} --error-exitcode 9 \
    "$t/$1" --gtest_filter="$2" > "$log" 2>&1
  rc=$?
  echo "compute-sanitizer $san_tool $1 [$2]: rc=$rc $(grep -E 'ERROR SUMMARY' "$log" | tail -1) $(grep -E '^\[  (PASSED|FAILED)' "$log" | tail -1)"
  passed=$(grep -E '^\[  PASSED' "$log" | grep -oE '[0-9]+' | head -1)
  skipped=$(grep -E '^\[  SKIPPED \] [0-9]+ test' "$log" | grep -oE '[0-9]+' | head -1)
  errors=$(grep -E 'ERROR SUMMARY' "$log" | tail -1 | grep -oE '[0-9]+' | head -1)
  result=clean
  if [ "$rc" = 124 ]; then result="TIMEOUT (${san_timeout:-300} s)"
  elif [ "$rc" = 9 ] || [ "${errors:-0}" != 0 ]; then result=ERRORS
  elif [ "$rc" != 0 ]; then result="FAILED (rc $rc)"
  elif grep -q 'no CUDA device' "$log"; then result="skipped: no CUDA device"; fi
  printf '| %s | %s | `%s` | %s passed%s | %s | %s | %s |\n' "${family:-?}" "$1" "$2" "${passed:-0}" \
    "${skipped:+, $skipped skipped}" "$result" "${errors:-?}" "$(( $(date +%s) - s0 ))" \
    >> "$raw/memcheck-rows.md"
  "$t/$1" --gtest_list_tests --gtest_filter="$2" 2> /dev/null | gtest_names "$1" >> "$raw/memcheck-ran.txt"
}

# The long oracle tests (DEEPSCOPE_REQUIRE_LONG) run here, not in CI's 2-core run.
export DEEPSCOPE_LONG_TESTS=1
if [ "$what" = tests ] || [ "$what" = both ]; then
  (cd build-gpu && ctest -j 8 --timeout 300 > "$stage/ctest.log" 2>&1); grep -E "tests passed|Failed|Timeout" "$stage/ctest.log" | tail -12
fi
case "$what" in
  tests) phases="memcheck tests" ;;
  both) phases="memcheck tests bench" ;;
  *) phases=$what ;;
esac
for f in .ci/gpu/*.sh; do
  family=$(basename "$f" .sh)
  if [ -n "${only:-}" ] && [[ ",$only," != *",$family,"* ]]; then continue; fi
  for phase in $phases; do
    echo "== $family $phase ($(( $(date +%s) - t0 )) s)"; asked=$what; what=$phase; . "$f"; what=$asked
  done
done

if [[ " $phases " == *" memcheck "* ]]; then
  # Every device test in the test binaries (its suite's name holds Device or Cuda, as in
  # PerturbDevice, DeviceOps, MandelbrotCuda; or a typed test DeviceMatchesHost) should have run
  # under the sanitizer above; those that did not are listed.
  for b in "$t"/*_test_*; do
    if [ -x "$b" ]; then "$b" --gtest_list_tests 2> /dev/null | gtest_names "$(basename "$b")"; fi
  done | grep -E ' [A-Za-z]*(Device|Cuda)[A-Za-z]*(/[0-9]+)?\.|\.DeviceMatchesHost' | sort -u > "$raw/device-tests.txt"
  sort -u "$raw/memcheck-ran.txt" > "$raw/memcheck-ran-sorted.txt"
  missed=$(comm -23 "$raw/device-tests.txt" "$raw/memcheck-ran-sorted.txt")
  {
    echo "# compute-sanitizer $san_tool over the kernel families' device tests"
    echo
    echo "$(date -u +%F), commit $commit," \
      "$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2> /dev/null | head -1)," \
      "compute-sanitizer $(compute-sanitizer --version 2> /dev/null | grep -oE '[0-9]{4}\.[0-9.]+' | head -1)."
    echo "Command: \`${only:+only=$only }${san_args:+san_args=\"$san_args\" }.ci/gpu-session.sh $what\`;" \
      "each run \`compute-sanitizer --tool $san_tool --error-exitcode 9 TEST --gtest_filter=FILTER\`."
    echo
    cat "$raw/memcheck-rows.md"
    echo
    echo "Device tests in the test binaries: $(wc -l < "$raw/device-tests.txt"); run under $san_tool:" \
      "$(comm -12 "$raw/device-tests.txt" "$raw/memcheck-ran-sorted.txt" | wc -l)."
    if [ -n "$missed" ]; then
      echo "Not run under $san_tool${only:+ (only=$only)}:"
      echo
      printf '%s\n' "$missed" | sed 's/^/- /'
    fi
  } > "$stage/memcheck.md"
  cat "$stage/memcheck.md"; cp "$stage/memcheck.md" "$out/"
fi
tar czf "$out/results.tgz" -C "$stage" .
echo "done: $(( $(date +%s) - t0 )) s"
