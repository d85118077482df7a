#!/usr/bin/env bash
# On a connected Debian 12 machine: downloads the .deb files the headless build and the tests need
# into .deps/ (git-ignored), to be carried to a GPU machine that has nvcc and cmake but no Debian
# -dev packages and no network (docs/gpu.md).
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .deps
cd .deps
apt-get download libmpfr6 libmpfr-dev libgmp10 libgmp-dev libgmpxx4ldbl libgtest-dev \
  libstb0 libstb-dev libqd0v5 libqd-dev libtoml11-dev 2>&1 | tail -n 2
# OpenEXR (`render --exr`) with its CMake config's dependencies Imath and zlib.
apt-get download libopenexr-3-1-30 libopenexr-dev libimath-3-1-29 libimath-dev zlib1g-dev 2>&1 | tail -n 1
# The headless GL context of the interop test and `bench interop`: the GL vendor-neutral EGL
# library (NVIDIA's driver there supplies libEGL_nvidia), and glad's loaders, pre-generated because
# that machine has no python3-glad.
apt-get download libegl1 libglvnd0 2>&1 | tail -n 1
rm -rf glad
glad --api gl:core=3.3,egl=1.5 --out-path glad --reproducible --quiet c --loader
ls -1 *.deb glad/src
