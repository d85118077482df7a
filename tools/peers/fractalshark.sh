#!/usr/bin/env bash
# FractalShark (https://github.com/mattsaccount364/FractalShark, GPL-3.0) as a peer for the hard
# views of issue #42: its Linux CLI, built outside our tree in the ignored .peers/ area, never linked
# into deepscope. Three steps:
#   tools/peers/fractalshark.sh prepare SRC_GIT_DIR   (connected machine) exports FractalShark's
#       sources from a git checkout or bare mirror into .peers/fractalshark/src (recording the commit)
#       and downloads the Debian .debs its CMake needs (GMP, QD, X11 and GL headers) into
#       .peers/fractalshark/debs.
#   tools/peers/fractalshark.sh build                 (GPU host, no network: carry .peers/) unpacks
#       the .debs into a private prefix and builds FractalSharkCli for sm_90 only, Release.
#   tools/peers/fractalshark.sh exe                   prints the built CLI's path.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=.peers/fractalshark
case ${1:-} in
  prepare)
    src=${2:?usage: prepare SRC_GIT_DIR}
    rm -rf "$root/src"
    mkdir -p "$root/src" "$root/debs"
    # Pictures and notes are not needed to build; they would only weigh on what is carried.
    git -C "$src" archive HEAD | tar -x -C "$root/src" --exclude=Pics --exclude=Notes
    git -C "$src" rev-parse HEAD > "$root/COMMIT"
    (cd "$root/debs" && apt-get download libgmp-dev libgmp10 libgmpxx4ldbl libqd-dev libqd0v5 \
      libx11-dev x11proto-dev xtrans-dev libxcb1-dev libxau-dev libxdmcp-dev libx11-6 libxcb1 libxau6 \
      libxdmcp6 libbsd0 libmd0 libgl-dev libglx-dev libglu1-mesa-dev libglu1-mesa libgl1 libglx0 \
      libglvnd0 libopengl0 libopengl-dev libglvnd-dev libegl-dev libgles-dev libegl1 libgles2 2>&1 | tail -n 1)
    echo "FractalShark $(cat "$root/COMMIT") in $root/src; $(ls "$root/debs" | wc -l) .debs"
    ;;
  build)
    prefix=/tmp/fractalshark-deps
    mkdir -p "$prefix"
    for f in "$root"/debs/*.deb; do dpkg-deb -x "$f" "$prefix"; done
    lib=$prefix/usr/lib/x86_64-linux-gnu
    # Only the CLI is wanted: the Linux GUI fetches ImGui at configure time (no network here), and
    # the test programs are not needed. Their add_subdirectory lines are dropped from the copy.
    sed -i -E '/add_subdirectory\((FractalSharkGuiLinux|HpSharkFloatTest|FractalSharkTest)\)/d' "$root/src/CMakeLists.txt"
    # Its list (75 89 120) is set in CMakeLists.txt, over any -D: Hopper's own code, sm_90, only.
    sed -i -E 's/set\(CMAKE_CUDA_ARCHITECTURES [0-9 ]+\)/set(CMAKE_CUDA_ARCHITECTURES 90)/' "$root/src/CMakeLists.txt"
    # The -dev packages' .so links are absolute or relative to the prefix; the runtime libraries lie beside them.
    export LD_LIBRARY_PATH="$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    cmake -S "$root/src" -B "$root/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_CUDA_ARCHITECTURES=90 -DHAVE_MPZ_EXPORT=1 -DHAVE_MPZ_IMPORT=1 -DHAVE_MPZ_OUT_RAW=1 -DCMAKE_PREFIX_PATH="$prefix/usr" -DCMAKE_LIBRARY_PATH="$lib" \
      -DCMAKE_INCLUDE_PATH="$prefix/usr/include" -DCMAKE_CXX_FLAGS="-include x86intrin.h -I$prefix/usr/include -I$prefix/usr/include/x86_64-linux-gnu" \
      -DCMAKE_CUDA_FLAGS="-I$prefix/usr/include -I$prefix/usr/include/x86_64-linux-gnu" -DCMAKE_EXE_LINKER_FLAGS="-L$lib -Wl,-rpath-link,$lib"
    cmake --build "$root/build" -j "$(nproc)" --target FractalSharkCli
    echo "export LD_LIBRARY_PATH=$LD_LIBRARY_PATH" > "$root/build/env.sh"
    ;;
  exe) echo "$root/build/FractalSharkCli/FractalSharkCli" ;;
  *)
    echo "usage: $0 prepare SRC_GIT_DIR | build | exe" >&2
    exit 2
    ;;
esac
