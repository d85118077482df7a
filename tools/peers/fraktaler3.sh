#!/usr/bin/env bash
# Fraktaler-3 (Claude Heiland-Allen, AGPL-3.0; mirror https://github.com/LegalizeAdulthood/fraktaler)
# as a CPU peer for issue #48: its batch program, built CPU-only outside our tree in the ignored
# .peers/ area, never linked into deepscope. Steps:
#   tools/peers/fraktaler3.sh prepare SRC_GIT_DIR   exports F3's sources from a git checkout or bare
#       mirror into .peers/fraktaler3/src and records the commit and version (git describe).
#   tools/peers/fraktaler3.sh build                 compiles the batch program (no GUI, no OpenCL)
#       with F3's own flags (g++ -std=c++17 -O3 -march=native) into .peers/fraktaler3/build.
#       It also builds tools/peers/f3_compare.cpp (F3's EXR counts against deepscope's --counts).
#   tools/peers/fraktaler3.sh exe                   prints the built program's path.
# Then `deepscope bench perturb --peer f3 --kf tests/data/kf-benchmarks` (or --location FILE) times
# both programs side by side and checks where they differ against MPFR (docs/bench/cpu-peers.md).
# Debian 12 packages it needs (optional peer: not in setup.sh; install by hand with apt-get):
#   g++ pkg-config xxd libsdl2-dev libmpfrc++-dev libmpfr-dev libgmp-dev libtoml11-dev
#   libopenexr-dev libimath-dev libglm-dev zlib1g-dev
# SDL2 is only used by the batch program for SDL_GetPrefPath (where wisdom and persistence live);
# run it with -P (no persistence) and -w FILE (explicit wisdom) to keep it off the home directory.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=.peers/fraktaler3
case ${1:-} in
  prepare)
    src=${2:?usage: prepare SRC_GIT_DIR}
    rm -rf "$root/src"
    mkdir -p "$root/src"
    git -C "$src" archive HEAD | tar -x -C "$root/src"
    git -C "$src" rev-parse HEAD > "$root/COMMIT"
    # The tree has no VERSION.txt; F3's Makefile takes the version from git describe.
    git -C "$src" describe --tags --always > "$root/VERSION"
    echo "Fraktaler-3 $(cat "$root/VERSION") at $(cat "$root/COMMIT") in $root/src"
    ;;
  build)
    [ -f "$root/src/src/main.cc" ] || { echo "$0: run prepare first" >&2; exit 2; }
    version=$(cat "$root/VERSION")
    out=$root/build
    rm -rf "$out"
    mkdir -p "$out/gen"
    # source.cc embeds a 7z archive of F3's own source for its --export-source mode. That mode is
    # of no use to a benchmark peer, so the archive is replaced by a one-line text saying so
    # (xxd writes the array in the same form F3's Makefile would).
    echo "source export not built in this peer build (tools/peers/fraktaler3.sh)" > "$out/gen/fraktaler-3-source.7z"
    (cd "$out/gen" && xxd -i fraktaler-3-source.7z | sed "s/unsigned/const unsigned/g" > fraktaler-3-source.7z.h)
    # F3's Makefile, build/native-gcc.mk, minus -DHAVE_GUI and -DHAVE_CL (CPU only, no window).
    flags=(-std=c++17 -Wall -Wextra -pedantic -O3 -march=native -DHAVE_EXR=3 -DHAVE_FS
      "-DFRAKTALER_3_VERSION_STRING=\"$version\"" '-DIMGUI_GIT_VERSION_STRING="none"'
      '-DIMGUI_FILEBROWSER_GIT_VERSION_STRING="none"' '-DTOML11_GIT_VERSION_STRING="debian"'
      '-DCLEW_GIT_VERSION_STRING="none"' "-I$out/gen" $(pkg-config --cflags glm mpfr OpenEXR zlib sdl2))
    srcs="batch bla engine gui histogram hybrid image_raw image_rgb main param render source version wisdom"
    for s in $srcs; do
      while [ "$(jobs -rp | wc -l)" -ge "$(nproc)" ]; do sleep 0.2; done
      g++ "${flags[@]}" -c "$root/src/src/$s.cc" -o "$out/$s.o" &
    done
    for j in $(jobs -p); do wait "$j"; done
    g++ -o "$out/fraktaler-3" $(for s in $srcs; do echo "$out/$s.o"; done) \
      $(pkg-config --libs glm mpfr OpenEXR zlib sdl2) -lstdc++fs -lm -pthread
    # F3 shifts every pixel by a hashed jitter of up to a pixel even at one sample a pixel
    # (src/hybrid.cc calls jitter() unconditionally), so its counts are not those of the pixel
    # centres. For the pixel-by-pixel comparison only, a second program samples the centres: the
    # same sources with the jitter() call's outputs overwritten by 0. Timings use fraktaler-3.
    sed -E 's/^( *)jitter\(width, height, frame, i, j, subframe, di, dj\);/&\n\1di = 0; dj = 0;/' \
      "$root/src/src/hybrid.cc" > "$out/gen/hybrid_centres.cc"
    grep -q "di = 0; dj = 0;" "$out/gen/hybrid_centres.cc" || { echo "$0: jitter line not found in hybrid.cc" >&2; exit 1; }
    g++ "${flags[@]}" -I"$root/src/src" -c "$out/gen/hybrid_centres.cc" -o "$out/hybrid_centres.o"
    g++ -o "$out/fraktaler-3-centres" $(for s in $srcs; do [ "$s" = hybrid ] && echo "$out/hybrid_centres.o" || echo "$out/$s.o"; done) \
      $(pkg-config --libs glm mpfr OpenEXR zlib sdl2) -lstdc++fs -lm -pthread
    # Our comparison tool (F3's raw EXR counts against deepscope --counts .npy).
    g++ -std=c++17 -O2 -Wall -Wextra tools/peers/f3_compare.cpp -o "$out/f3_compare" \
      $(pkg-config --cflags --libs OpenEXR)
    echo "built $out/fraktaler-3 ($version, $(cat "$root/COMMIT" 2>/dev/null || echo 'commit unknown'))"
    ;;
  exe) echo "$root/build/fraktaler-3" ;;
  *)
    echo "usage: $0 prepare SRC_GIT_DIR | build | exe" >&2
    exit 2
    ;;
esac
