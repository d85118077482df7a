#!/usr/bin/env bash
# On a connected Debian 12 machine: downloads the .deb files the headless build and the tests need
# into .deps/ (git-ignored), to be carried to a GPU machine that has nvcc and cmake but no Debian
# -dev packages and no network (docs/gpu.md).
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .deps
cd .deps
apt-get download libmpfr6 libmpfr-dev libgmp10 libgmp-dev libgmpxx4ldbl libgtest-dev \
  libstb0 libstb-dev libqd0v5 libqd-dev 2>&1 | tail -n 2
ls -1 *.deb
