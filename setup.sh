#!/usr/bin/env bash
# deepscope set-up for a fresh Debian 12 machine: installs the missing Debian packages, configures
# and builds in ./build, then either runs the main job (`./setup.sh`) or the test suite
# (`./setup.sh test`). Extra CMake options: DEEPSCOPE_CMAKE_ARGS="-DDEEPSCOPE_CUDA=OFF" ./setup.sh
set -euo pipefail
mode=${1:-run}
case "$mode" in run | test) ;; *) echo "usage: ./setup.sh [run|test]" >&2; exit 2 ;; esac
cd "$(dirname "$0")"

packages=(build-essential cmake pkg-config git
  libmpfr-dev libgmp-dev libstb-dev libopenexr-dev libgtest-dev libqd-dev libtoml11-dev libopenmpi-dev openmpi-bin
  libglfw3-dev libimgui-dev python3-glad libglm-dev libgl-dev libgl1-mesa-dri libegl1 libegl-mesa0
  xvfb xauth
  ffmpeg)  # `deepscope video --mp4` pipes its frames to ffmpeg
# The test suite's fuzz smoke test builds tests/fuzz with clang and libFuzzer (it reports itself
# skipped where they are missing).
if [ "$mode" = test ]; then packages+=(clang libclang-rt-dev); fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "== installing: ${missing[*]}"
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo=sudo; fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

jobs=$(nproc)
echo "== configuring (build/)"
# shellcheck disable=SC2086
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release ${DEEPSCOPE_CMAKE_ARGS:-}
echo "== building with $jobs jobs"
cmake --build build -j "$jobs"

if [ "$mode" = test ]; then
  echo "== running the test suite"
  ./build/app/deepscope info | grep -E "^CUDA" | sed 's/^/== /'
  if ! ./build/app/deepscope info | grep -q "^CUDA device"; then
    echo "== no CUDA device here: the GPU test sections report themselves as skipped"
  fi
  cd build
  exec ctest --output-on-failure -j "$jobs" --timeout 1800
fi

if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
  exec ./build/app/deepscope
fi
echo "== no display: rendering the default Mandelbrot view headless"
./build/app/deepscope render --out deepscope-default.png
echo "wrote $(pwd)/deepscope-default.png"
