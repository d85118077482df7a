#!/usr/bin/env bash
# On the GPU machine: unpacks the carried .debs (.ci/gpu-deps.sh) into a private prefix, then
# configures and builds the headless program and the tests there (no GUI). Further arguments go to
# the configure step (`.ci/gpu-build.sh build-asan --preset asan-ubsan`). Usage:
#   .ci/gpu-build.sh [BUILD_DIR [CMAKE_ARGS...]]       (default build-gpu)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-gpu}
shift || true
prefix=/tmp/deepscope-deps
mkdir -p "$prefix"
for f in .deps/*.deb; do dpkg-deb -x "$f" "$prefix"; done
# The -dev packages' unversioned .so links point at the runtime libraries unpacked beside them.
export LD_LIBRARY_PATH="$prefix/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DDEEPSCOPE_GUI=OFF -DDEEPSCOPE_GLAD_DIR="$PWD/.deps/glad" \
  -DCMAKE_PREFIX_PATH="$prefix/usr" -DCMAKE_LIBRARY_PATH="$prefix/usr/lib/x86_64-linux-gnu" \
  -DCMAKE_INCLUDE_PATH="$prefix/usr/include" -DDEEPSCOPE_LONG_TESTS=ON "$@"
# targets="a b": only those (and what they need), e.g. the program and one test for a quick session.
# shellcheck disable=SC2086
cmake --build "$build" -j "$(nproc)" ${targets:+--target $targets}
echo "export LD_LIBRARY_PATH=$LD_LIBRARY_PATH" > "$build/env.sh"
# EGL: glvnd (unpacked above) finds NVIDIA's vendor library through its JSON file.
for f in /usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json /usr/share/glvnd/egl_vendor.d/10_nvidia.json; do
  if [ -f "$f" ]; then echo "export __EGL_VENDOR_LIBRARY_FILENAMES=$f" >> "$build/env.sh"; break; fi
done
