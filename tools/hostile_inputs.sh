#!/bin/bash
# The hostile-input audit of issue 43 (docs/hostile-audit.md): every case the issue lists and ~170
# further ones, each run by the built program in an empty folder under `timeout`; one TSV line a
# case: name, exit code, files left in the output folder, first line of the message.
# usage: tools/hostile_inputs.sh BUILD/app/deepscope > audit.tsv
set -u
B=$(readlink -f "$1"); REPO=$(cd "$(dirname "$0")/.." && pwd)
T=$(mktemp -d /tmp/hostile.XXXX); cd "$T" || exit 1
trap 'rm -rf "$T"' EXIT
mkdir in; echo 're = -0.5' > in/garbage.loc; echo 'zoom = 1' >> in/garbage.loc
: > in/empty.loc; mkfifo in/fifo.loc in/fifo; truncate -s 100M in/big100.loc; mkdir in/dir.loc in/dir
python3 -c "import random,sys; r=random.Random(43); sys.stdout.buffer.write(bytes(r.randrange(256) for _ in range(64)))" > in/garbage.chunks
printf 're = nan\nim = 0\nzoom = 1\n' > in/nan.loc
printf 're = 0\nim = 0\nzoom = -5\n' > in/negzoom.loc
printf 're = 0\nim = 0\nzoom = 1\niterations = 99999999999999999999999\n' > in/hugeiter.loc
: > in/empty.kfp
printf 're = 0\nim = 0\nzoom = 1\nre = 1\n' > in/dup.loc
printf 're = 0\r\nim = 0\r\nzoom = 1\r\n' > in/crlf.loc
python3 -c "import random,sys; r=random.Random(44); sys.stdout.buffer.write(bytes(r.randrange(256) for _ in range(4096)))" > in/bin.loc; cp in/bin.loc in/bin.png
python3 -c "print('re = ' + '1'*5000000); print('im = 0'); print('zoom = 1')" > in/longline.loc
printf 'deepscope-henon-scan v2 x\nchunk 0 2\nabend 0\n' > in/ok.chunks
echo x > in/file
printf 're = 1\x1b[31mRED\x07\nim = 0\nzoom = 1\n' > in/esc.loc
printf 'Re: nan\r\nIm: 0\r\nZoom: 1\r\nIterations: 100\r\n' > in/a.kfr
printf 'Re: 0\r\nIm: 0\r\nZoom: 1e99999999999\r\nIterations: -5\r\n' > in/b.kfr
printf 'Re: 0\r\nIm: 0\r\nZoom: 1\r\nIterations: 100\r\nColors: nan,nan,nan,\r\nIterDiv: nan\r\n' > in/c.kfr
printf 'Colors: 1,2,3,\r\nIterDiv: inf\r\n' > in/d.kfp; printf 'Colors: 999999,2,3,\r\n' > in/e.kfp
python3 -c "print('Colors: ' + '1,2,3,'*3000000)" > in/f.kfp
printf 're = 0\nim = 0\nzoom = 1\nwidth = 0\n' > in/w.loc
printf 're = 0\nim = 0\nzoom = 1\nheight = 99999999999\n' > in/h.loc
printf 're = 0\nim = 0\nzoom = 1\npalette = /dev/zero\n' > in/p.loc
printf 're = 0\nim = 0\nzoom = 1\nformula = \x1b[2J\n' > in/fm.loc
SEA=$REPO/assets/locations/seahorse.loc
# c NAME ARGS...: outputs go to o/ (o/d is a folder made beforehand); blocker: o/BLOCKER is made a
# folder first (cb NAME BLOCKER ARGS...).
run_case() {
  local name="$1" blocker="$2"; shift 2
  rm -rf o; mkdir o o/d; [ -n "$blocker" ] && mkdir -p "o/$blocker"
  timeout 10 "$B" "$@" > out.txt 2> err.txt; local rc=$?
  local left left2 msg
  left=$(cd o && ls -A | grep -v -x -e d -e "${blocker%%/*}" | tr '\n' ' ')
  left2=$(ls -A o/d | grep -v -x "${blocker#d/}" | tr '\n' ' ')
  msg=$(grep -a -v -E '^\s*$|^henon (scan|plane|basin|orbits):|^estimate:|^tmd (exhaustive|lefevre|regular):' err.txt |
        grep -a -v -E '^(float|double|fixed|composite|ff|mixed) ' | head -1 | cut -c1-110 | tr '\t|' '  ')
  grep -a -q '^deepscope: ' err.txt && msg=$(grep -a -m1 '^deepscope: ' err.txt | cut -c1-110 | tr '\t|' '  ')
  [ -z "$msg" ] && msg="(stdout) $(head -1 out.txt | cut -c1-100 | tr '\t|' '  ')"
  # A refusal must come first: anything printed before it (a banner, an estimate, progress) is marked.
  local first; first=$(grep -a -v -E '^\s*$' err.txt | head -1)
  if [ "$rc" = 2 ] && { [ -s out.txt ] || [ "${first#deepscope: }" = "$first" ]; }; then
    msg="[printed before the refusal: $(printf '%s' "$first" | cut -c1-40)] $msg"
  fi
  # SHOW=REGEX: the stdout line matching it is the message (what a valid run reports).
  [ -n "${SHOW:-}" ] && msg="(stdout) $(grep -a -m1 -E "$SHOW" out.txt | cut -c1-100 | tr '\t|' '  ')"
  printf '%s\t%s\t%s\t%s\n' "$name" "$rc" "${left}${left2:+ d/:$left2}" "$(printf '%s' "$msg" | cat -v)"
}
c() { local n="$1"; shift; run_case "$n" "" "$@"; }
cb() { local n="$1" b="$2"; shift 2; run_case "$n" "$b" "$@"; }
R="render --size 8x8 --iter 50 --backend cpu --quiet"
MD="drift md --atoms 500 --steps 10 --backend cpu --quiet"
# --- issue 43's list
c "render --location /dev/zero" $R --location /dev/zero --out o/x.png
c "render --location /dev/urandom" $R --location /dev/urandom --out o/x.png
c "directory as location" $R --location in/dir.loc --out o/x.png
c "merge --out o.chunks garbage.loc" merge --out o/o.chunks in/garbage.loc
c "find period --out x.loc" find period --location $SEA --out o/x.loc
c "oracle --start-bits 200 --max-bits 60" oracle --size 16x16 --grid 2 --start-bits 200 --max-bits 60 --out o/g.npy
c "garbage --chunk-file (henon scan)" henon scan --a-min 0.2 --a-step 0.125 --na 4 --backend cpu --quiet --csv o/s.csv --chunk-file in/garbage.chunks
c "henon scan --csv DIR" henon scan --a-min 0.2 --a-step 0.125 --na 4 --backend cpu --quiet --csv o/d
c "render --out DIR" render --size 1024x1024 --iter 100000 --backend cpu --quiet --out o/d
c "render --counts DIR" render --size 1024x1024 --iter 100000 --backend cpu --quiet --out o/x.png --counts o/d
c "oracle --out DIR" oracle --size 64x64 --grid 32 --iter 100000 --out o/d
c "render --iter twice" $R --iter 60 --out o/x.png
c "tmd lefevre --x-lo nan" tmd lefevre --func exp --k 16 --backend cpu --quiet --x-lo nan --x-hi 2 --out o/c.csv
c "find nucleus seahorse --at 474,468" find nucleus --location $SEA --size 768x961 --at 474,468 --out o/n.loc
c "find nucleus seahorse --at 600,200" find nucleus --location $SEA --size 768x961 --at 600,200 --out o/n.loc
# --- further hostile inputs
c "empty location file" $R --location in/empty.loc --out o/x.png
c "FIFO location (find)" find period --location in/fifo.loc
c "100 MB location file" $R --location in/big100.loc --out o/x.png
c "location re = nan" $R --location in/nan.loc --out o/x.png
c "location zoom = -5" $R --location in/negzoom.loc --out o/x.png
c "location iterations 1e23" $R --location in/hugeiter.loc --out o/x.png
c "empty .kfp palette" $R --palette in/empty.kfp --out o/x.png
c ".kfr Re: nan" $R --location in/a.kfr --out o/x.png
c ".kfr Zoom: 1e99999999999" $R --location in/b.kfr --out o/x.png
c ".kfr Colors: nan" $R --location in/c.kfr --out o/x.png
c ".kfp IterDiv: inf" $R --palette in/d.kfp --out o/x.png
c ".kfp colour 999999" $R --palette in/e.kfp --out o/x.png
c ".kfp of 18 MB" $R --palette in/f.kfp --out o/x.png
c "location width = 0" $R --location in/w.loc --out o/x.png
c "location height = 99999999999" $R --location in/h.loc --out o/x.png
c "location palette = /dev/zero" $R --location in/p.loc --out o/x.png
c "location formula with an ESC sequence" $R --location in/fm.loc --out o/x.png
c "render --size 1048576x1048576 (19 TiB)" render --size 1048576x1048576 --iter 10 --backend cpu --quiet --out o/x.png
c "render --size -8x8" render --size -8x8 --backend cpu --quiet --out o/x.png
c "render --size 0x8" render --size 0x8 --backend cpu --quiet --out o/x.png
c "render --size 100000000x100000000" render --size 100000000x100000000 --backend cpu --quiet --out o/x.png
c "render --iter 1e30" render --size 8x8 --iter 1e30 --backend cpu --quiet --out o/x.png
c "render --iter -5" render --size 8x8 --iter -5 --backend cpu --quiet --out o/x.png
c "render --zoom 1e999999999" $R --zoom 1e999999999 --out o/x.png
c "render --zoom -1" $R --zoom -1 --out o/x.png
c "render --re nan" $R --re nan --im 0 --zoom 1 --out o/x.png
c "render --im inf" $R --re 0 --im inf --zoom 1 --out o/x.png
c "render --zoom nan" $R --re 0 --im 0 --zoom nan --out o/x.png
c "render --density nan" $R --density nan --out o/x.png
c "render --offset inf" $R --offset inf --out o/x.png
c "render --stripe-memory nan" $R --stripe-memory nan --out o/x.png
c "render --frames 3 --zoom-to nan" $R --frames 3 --zoom-to nan --out o/x.png
c "render --aa -2" $R --aa -2 --out o/x.png
c "render --verify nan" $R --verify nan --out o/x.png
c "render --shader-param x=nan" $R --shader stripe --shader-param x=nan --out o/x.png
c "render --reference-memory -1G" $R --reference-memory -1G --out o/x.png
c "render --out missing dir" $R --out o/no/such/x.png
c "render --counts missing dir" $R --out o/x.png --counts o/no/c.npy
c "render --smooth missing dir" $R --out o/x.png --smooth o/no/s.npy
c "render --exr missing dir" $R --out o/x.png --exr o/no/x.exr
c "render --out = --counts" $R --out o/x.png --counts o/x.png
c "find nucleus --radius nan" find nucleus --radius nan --out o/n.loc
c "find nucleus --fit inf" find nucleus --fit inf --out o/n.loc
c "find nucleus --at nan,1" find nucleus --at nan,1 --out o/n.loc
c "find nucleus --at -5,-5" find nucleus --size 64x64 --at -5,-5 --out o/n.loc
c "find nucleus --period -3" find nucleus --period -3 --out o/n.loc
c "find period --max-period 1e30" find period --max-period 1e30
c "find nucleus --out missing dir" find nucleus --re -1 --im 0 --zoom 4 --out o/no/n.loc
c "find misiurewicz --out missing dir" find misiurewicz --re -0.1011 --im 0.9563 --zoom 100 --out o/no/m.loc
c "find nucleus --out DIR" find nucleus --re -1 --im 0 --zoom 4 --out o/d
c "find --radius twice" find period --radius 2 --radius 3
c "oracle --re nan" oracle --re nan --im 0 --zoom 1 --grid 2 --out o/g.npy
c "oracle --zoom inf" oracle --re 0 --im 0 --zoom inf --grid 2 --out o/g.npy
c "oracle --grid -1" oracle --grid -1 --out o/g.npy
c "oracle --grid 1e30" oracle --grid 1e30 --out o/g.npy
c "oracle --max-bits nan" oracle --grid 2 --max-bits nan --out o/g.npy
c "oracle --pixel-map nan,0,0,1" oracle --grid 2 --pixel-map nan,0,0,1 --out o/g.npy
c "oracle --out missing dir" oracle --grid 2 --out o/no/g.npy
c "oracle --meta missing dir" oracle --grid 2 --out o/g.npy --meta o/no/m.json
c "oracle --grid twice" oracle --grid 2 --grid 3 --out o/g.npy
c "henon orbit --a nan" henon orbit --a nan --b 0.3 --out o/h.csv
c "henon orbit --x0 inf" henon orbit --a 1.4 --b 0.3 --x0 inf --y0 0 --out o/h.csv
c "henon orbit --bound nan" henon orbit --a 1.4 --b 0.3 --bound nan --out o/h.csv
c "henon orbit --points -1" henon orbit --a 1.4 --b 0.3 --points -1 --out o/h.csv
c "henon orbit --points 1e30" henon orbit --a 1.4 --b 0.3 --points 1e30 --out o/h.csv
c "henon orbit --out missing dir" henon orbit --a 1.4 --b 0.3 --out o/no/h.csv
c "henon period --tol inf" henon period --a 1.4 --b 0.3 --tol inf
c "henon period --b twice" henon period --a 1.4 --b 0.3 --b 0.2
c "henon scan --a-step nan" henon scan --a-min 0.2 --a-step nan --na 4 --backend cpu --quiet --csv o/s.csv
c "henon scan --na -4" henon scan --a-min 0.2 --a-step 0.1 --na -4 --backend cpu --quiet --csv o/s.csv
c "henon scan --box 0,nan,0,1" henon scan --a-min 0.2 --a-step 0.1 --na 4 --box 0,nan,0,1 --backend cpu --quiet --csv o/s.csv
c "henon scan --json missing dir" henon scan --a-min 0.2 --a-step 0.1 --na 4 --backend cpu --quiet --csv o/s.csv --json o/no/s.json
c "henon plane --width nan" henon plane --centre-a 1 --centre-b 0.3 --width nan --size 8x8 --out o/p.png
c "henon plane --width -1" henon plane --centre-a 1 --centre-b 0.3 --width -1 --size 8x8 --out o/p.png
c "henon plane --lyapunov-scale inf" henon plane --centre-a 1 --centre-b 0.3 --width 1 --size 8x8 --colour lyapunov --lyapunov-scale inf --out o/p.png
c "henon plane --npy missing dir" henon plane --centre-a 1 --centre-b 0.3 --width 1 --size 8x8 --out o/p.png --npy o/no/p.npy
c "henon basin --centre-x nan" henon basin --a 1.4 --b 0.3 --centre-x nan --centre-y 0 --width 1 --size 8x8 --out o/b.png
c "henon basin --out missing dir" henon basin --a 1.4 --b 0.3 --width 1 --size 8x8 --out o/no/b.png
c "henon orbits --period-max -1" henon orbits --period-max -1 --out o/o.csv
c "henon orbits --memory-budget nan" henon orbits --period-max 2 --memory-budget nan --out o/o.csv
c "tmd lefevre --x-lo inf" tmd lefevre --func exp --k 16 --backend cpu --quiet --x-lo inf --x-hi 2 --out o/c.csv
c "tmd lefevre --x-lo 2 --x-hi 1" tmd lefevre --func exp --k 16 --backend cpu --quiet --x-lo 2 --x-hi 1 --out o/c.csv
c "tmd lefevre --k nan" tmd lefevre --func exp --k nan --backend cpu --quiet --x-lo 1 --x-hi 2 --out o/c.csv
c "tmd lefevre --max-seconds nan" tmd lefevre --func exp --k 16 --backend cpu --quiet --x-lo 1 --x-hi 2 --max-seconds nan --out o/c.csv
c "tmd lefevre --max-seconds -1" tmd lefevre --func exp --k 16 --backend cpu --quiet --x-lo 1 --x-hi 2 --max-seconds -1 --out o/c.csv
c "tmd lefevre --out missing dir" tmd lefevre --func exp --k 16 --backend cpu --quiet --x-lo 1 --x-hi 2 --out o/no/c.csv
c "tmd exhaustive --json missing dir" tmd exhaustive --func exp2 --k 24 --range 0xbcf30000:0xbcf300ff --backend cpu --quiet --out o/c.csv --json o/no/c.json
c "tmd exhaustive --range hi<lo" tmd exhaustive --func exp2 --k 24 --range 0xbcf300ff:0xbcf30000 --backend cpu --quiet --out o/c.csv
c "tmd exhaustive --k twice" tmd exhaustive --func exp2 --k 24 --k 20 --range 0xbcf30000:0xbcf300ff --backend cpu --quiet --out o/c.csv
c "drift md --atoms -32" drift md --atoms -32 --steps 10 --backend cpu --out o/md
c "drift md --steps 1e30" drift md --atoms 500 --backend cpu --quiet --steps 1e30 --out o/md  # ($MD has --steps)
c "drift md --dt twice" $MD --dt 0.001 --dt 0.002 --out o/md
c "drift sum --out missing dir" drift sum --n 100 --backend cpu --out o/no/s.csv
c "drift doundo --out-dir missing" drift doundo --iterations 10 --backend cpu --out-dir o/no/dd
c "merge --out missing dir" merge --out o/no/o.chunks in/garbage.chunks
c "video --out missing dir" video --re 0 --im 0 --zoom 1 --zoom-to 10 --frames 2 --size 8x8 --iter 50 --backend cpu --out o/no/f%05d.png
c "video --fps nan" video --re 0 --im 0 --zoom 1 --zoom-to 10 --frames 2 --size 8x8 --iter 50 --fps nan --backend cpu --out o/f%05d.png
c "tmd export --csv missing dir" tmd export in/garbage.chunks --csv o/no/x.csv
c "bench arith --out missing dir" bench arith --quick --cpu-only --out o/no/b.md
# --- second round
c "drift md --dt nan (500 atoms)" $MD --dt nan --out o/md
c "drift md --temp inf" $MD --temp inf --out o/md
c "drift md --density -1" $MD --density -1 --out o/md
c "drift md --density nan" $MD --density nan --out o/md
c "drift md --cutoff 1e308" $MD --cutoff 1e308 --out o/md
c "drift md --fixed-bits -5" $MD --precision fixed --fixed-bits -5 --out o/md
c "drift md --every 0" $MD --every 0 --out o/md
c "drift md --out missing dir" $MD --out o/no/md
c "drift md --out DIR/ (a folder, no prefix)" $MD --out o/d/
c "drift md --seeds 1,nan" $MD --seeds 1,nan --out o/md
c "drift sum --n -1" drift sum --n -1 --backend cpu --out o/s.csv
c "drift sum --threads 1,nan" drift sum --n 100 --threads 1,nan --backend cpu --out o/s.csv
c "drift doundo --repeat -1" drift doundo --iterations 10 --repeat -1 --backend cpu --out-dir o/dd
c "location with duplicate re" $R --location in/dup.loc --out o/x.png
c "location with CRLF" $R --location in/crlf.loc --out o/x.png
c "location of random bytes" $R --location in/bin.loc --out o/x.png
c "location .png of random bytes" $R --location in/bin.png --out o/x.png
c "location with a 5 MB line" $R --location in/longline.loc --out o/x.png
c "location missing" $R --location in/none.loc --out o/x.png
c "--palette /dev/zero" $R --palette /dev/zero --out o/x.png
c "--shader FIFO" $R --shader in/fifo --out o/x.png
c "--reference-cache missing dir" $R --reference-cache in/none --out o/x.png
c "--reference-cache a FIFO" $R --reference-cache in/fifo --out o/x.png
c "render --out /dev/null" $R --out /dev/null
c "render --out in a regular file (file/x.png)" $R --out in/file/x.png
c "render --out empty string" $R --out ""
c "render --out ends in /" $R --out o/x/
c "render no --out" $R
c "render --out as last arg" $R --out
c "render --size 8x" render --size 8x --backend cpu --quiet --out o/x.png
c "render --size 8x8x8" render --size 8x8x8 --backend cpu --quiet --out o/x.png
c "render --iter empty" render --size 8x8 --iter "" --backend cpu --quiet --out o/x.png
c "render --re without --im" $R --re 0.1 --out o/x.png
c "render --location and --re" $R --location $SEA --re 0 --out o/x.png
c "location value with an ESC sequence" $R --location in/esc.loc --out o/x.png
c "option name with an ESC sequence" $R $'--\x1b[2Jfoo' 1 --out o/x.png
c "render unknown option" $R --frobnicate 3 --out o/x.png
c "render --iter=100 --iter 100" render --size 8x8 --iter=100 --iter 100 --backend cpu --quiet --out o/x.png
c "render --tile-rows -1" $R --tile-rows -1 --out o/x.png
c "render --shard 3/2" $R --frames 2 --zoom-to 2 --shard 3/2 --out o/x.png
c "render --devices nan" $R --devices nan --out o/x.png
c "render --max-references -1" $R --max-references -1 --out o/x.png
c "render --verify-seed nan" $R --verify 4 --verify-seed nan --out o/x.png
c "render --stripe-density inf" $R --stripe-density inf --out o/x.png
c "render --zoom 0" $R --re 0 --im 0 --zoom 0 --out o/x.png
c "render --zoom-to -1" $R --frames 2 --zoom-to -1 --out o/x.png
c "henon scan --chunk-file FIFO" henon scan --a-min 0.2 --a-step 0.125 --na 4 --backend cpu --quiet --csv o/s.csv --chunk-file in/fifo
c "henon scan --chunk missing dir" henon scan --a-min 0.2 --a-step 0.125 --na 4 --backend cpu --quiet --csv o/s.csv --chunk-file o/no/c.chunks
c "henon orbits --chunk-file dir" henon orbits --period-max 2 --chunk-file in/dir --out o/o.csv
c "henon plane --resume FIFO" henon plane --centre-a 1 --centre-b 0.3 --width 1 --size 8x8 --resume in/fifo --out o/p.png
c "henon plane --resume missing dir" henon plane --centre-a 1 --centre-b 0.3 --width 1 --size 8x8 --resume o/no/r --out o/p.png
c "merge FIFO" merge --out o/o.chunks in/fifo
c "merge --out = input" merge --out in/ok.chunks in/ok.chunks
c "merge no inputs" merge --out o/o.chunks
c "tmd export FIFO" tmd export in/fifo --csv o/x.csv
c "tmd export dir" tmd export in/dir --csv o/x.csv
c "tmd lefevre --json missing dir" tmd lefevre --func exp --k 16 --backend cpu --quiet --x-lo 1 --x-hi 2 --out o/c.csv --json o/no/c.json
c "tmd lefevre --x-lo 1e99999" tmd lefevre --func exp --k 16 --backend cpu --quiet --x-lo 1e99999 --x-hi 1e100000 --out o/c.csv
c "tmd lefevre --precision 1e9" tmd lefevre --func exp --k 16 --backend cpu --quiet --x-lo 1 --x-hi 2 --precision 1000000000 --out o/c.csv
c "tmd exhaustive --out DIR" tmd exhaustive --func exp2 --k 24 --range 0xbcf30000:0xbcf300ff --backend cpu --quiet --out o/d
c "tmd exhaustive --max-cases -1" tmd exhaustive --func exp2 --k 24 --range 0xbcf30000:0xbcf300ff --max-cases -1 --backend cpu --quiet --out o/c.csv
c "oracle --threads -1" oracle --grid 2 --threads -1 --out o/g.npy
c "oracle --escalations 1e9" oracle --grid 2 --escalations 1000000000 --out o/g.npy
c "oracle --iter 0" oracle --grid 2 --iter 0 --out o/g.npy
c "oracle --size 8x8 --grid 64" oracle --size 8x8 --grid 64 --out o/g.npy
c "find --at 1e30,1" find nucleus --at 1e30,1 --out o/n.loc
c "find --preperiod nan" find misiurewicz --preperiod nan --out o/n.loc
c "find --fit -1" find nucleus --fit -1 --out o/n.loc
c "find --fit 0" find nucleus --fit 0 --out o/n.loc
c "find --radius 0" find period --radius 0
c "find --radius 1e300" find period --radius 1e300
c "find period --location FIFO" find period --location in/fifo
c "video --crf nan" video --re 0 --im 0 --zoom 1 --zoom-to 10 --frames 2 --size 8x8 --iter 50 --crf nan --backend cpu --out o/f%05d.png
c "video --frames -2" video --re 0 --im 0 --zoom 1 --zoom-to 10 --frames -2 --size 8x8 --iter 50 --backend cpu --out o/f%05d.png
c "video --out without %d" video --re 0 --im 0 --zoom 1 --zoom-to 10 --frames 2 --size 8x8 --iter 50 --backend cpu --out o/f.png
c "video --mp4 missing dir" video --re 0 --im 0 --zoom 1 --zoom-to 10 --frames 2 --size 8x8 --iter 50 --backend cpu --mp4 o/no/v.mp4 --out o/f%05d.png
# --- added after docs/hostile-audit.md's first tally (branch badin)
c "find --radius 450.1 (the default view allows < 450)" find period --radius 450.1
c "find --radius inf" find period --radius inf
c "find nucleus --radius -1" find nucleus --radius -1 --out o/n.loc
c "find nucleus --period 4e9 (orbit over memory)" find nucleus --period 4000000000 --out o/n.loc
c "find --at 4294967296,0 (past an int)" find period --size 64x64 --at 4294967296,0
c "drift sum --threads 4294967297 (past an int)" drift sum --n 1000 --threads 4294967297 --out o/s.csv
c "find misiurewicz --period 4e9 (past an int)" find misiurewicz --preperiod 2 --period 4000000000 --out o/m.loc
SHOW='atom domain' c "find nucleus of period 1: its atom domain" find nucleus --re -0.1 --im 0.05 --zoom 1 --radius 100 --out o/n.loc
c "henon scan (no --quiet) --chunk-file garbage" henon scan --a-min 0.2 --a-step 0.125 --na 4 --backend cpu --csv o/s.csv --chunk-file in/garbage.chunks
c "henon scan (no --quiet) --csv DIR" henon scan --a-min 0.2 --a-step 0.125 --na 4 --backend cpu --csv o/d
c "henon scan (no --quiet) --csv missing dir" henon scan --a-min 0.2 --a-step 0.125 --na 4 --backend cpu --csv o/no/s.csv
c "tmd exhaustive --chunk-file garbage" tmd exhaustive --func exp2 --k 24 --range 0xbcf30000:0xbcf300ff --backend cpu --out o/c.csv --chunk-file in/garbage.chunks
c "tmd exhaustive: more cases than --max-cases" tmd exhaustive --func exp2 --mode directed --k 4 --range 0x00800000:0x3f80ffff --backend cpu --out o/c.csv
c "tmd exhaustive --out DIR (no --quiet)" tmd exhaustive --func exp2 --k 24 --range 0xbcf30000:0xbcf300ff --backend cpu --out o/d
c "tmd lefevre --chunk-file garbage" tmd lefevre --func exp --k 16 --backend cpu --x-lo 1 --x-hi 1.01 --out o/c.csv --chunk-file in/garbage.chunks
c "henon scan --na 1e5 --nb 1e5 (1e10 parameters)" henon scan --na 100000 --nb 100000 --backend cpu --csv o/s.csv
c "henon plane over memory (--size 32768x30000 --init 1e6)" henon plane --centre-a 1.4 --centre-b 0.3 --width 0.1 --size 32768x30000 --init 1000000 --out o/p.png
c "henon plane --resume garbage" henon plane --centre-a 1 --centre-b 0.3 --width 1 --size 8x8 --out o/p.png --resume in/garbage.chunks
c "henon basin --resume garbage" henon basin --a 1.4 --b 0.3 --width 1 --size 8x8 --out o/b.png --resume in/garbage.chunks
c "henon orbits --chunk-file garbage" henon orbits --period-max 3 --out o/o.csv --chunk-file in/garbage.chunks
c "henon plane --size 32768x32768 (1.07e9 pixels)" henon plane --centre-a 1.4 --centre-b 0.3 --width 0.1 --size 32768x32768 --out o/p.png
c "henon orbits --period-max 1000 (memory)" henon orbits --period-max 1000 --out o/o.csv
c "drift md --atoms 4e9" drift md --atoms 4000000000 --steps 10 --backend cpu --out o/md
# More worker threads than the machine starts (a 6 GB address-space limit: 8 MiB stacks).
run_case_limited() { ( ulimit -v 6000000; run_case "$@" ); }
run_case_limited "oracle --threads 4096 under ulimit -v 6 GB" "" oracle --size 64x64 --grid 4 --iter 100 --threads 4096 --out o/g.npy
# --- files a command writes beside its --out, made folders beforehand
cb "oracle: DIR at g_bits.npy" g_bits.npy oracle --size 64x64 --grid 8 --iter 2000 --quiet --out o/g.npy
cb "oracle: DIR at g_trusted.npy" g_trusted.npy oracle --size 64x64 --grid 8 --iter 2000 --quiet --out o/g.npy
cb "oracle: DIR at g.json" g.json oracle --size 64x64 --grid 8 --iter 2000 --quiet --out o/g.npy
cb "oracle: DIR at g.npy.chunks" g.npy.chunks oracle --size 64x64 --grid 8 --iter 2000 --quiet --out o/g.npy
cb "render: DIR at x.png.chunks" x.png.chunks render --size 64x64 --iter 2000 --backend cpu --quiet --out o/x.png
cb "render --frames: DIR at x_00002.png" x_00002.png render --size 16x16 --iter 200 --frames 2 --zoom-to 2 --backend cpu --quiet --out o/x.png
cb "henon scan: DIR at s.csv.chunks" s.csv.chunks henon scan --a-min 0.2 --a-step 0.125 --na 4 --backend cpu --quiet --csv o/s.csv
cb "henon plane: DIR at p.png.chunks" p.png.chunks henon plane --centre-a 1 --centre-b 0.3 --width 1 --size 8x8 --quiet --out o/p.png
cb "henon plane: DIR at p.npy" p.npy henon plane --centre-a 1 --centre-b 0.3 --width 1 --size 8x8 --quiet --out o/p.png
cb "henon orbits: DIR at o.json" o.json henon orbits --period-max 2 --quiet --out o/o.csv
cb "tmd exhaustive: DIR at c.json" c.json tmd exhaustive --func exp2 --k 24 --range 0xbcf30000:0xbcf300ff --backend cpu --quiet --out o/c.csv
cb "tmd exhaustive: DIR at c.csv.chunks" c.csv.chunks tmd exhaustive --func exp2 --k 24 --range 0xbcf30000:0xbcf300ff --backend cpu --quiet --out o/c.csv
cb "tmd lefevre: DIR at c.json" c.json tmd lefevre --func exp --k 16 --backend cpu --quiet --x-lo 1 --x-hi 1.001 --out o/c.csv
cb "drift md: DIR at md_pe.png" md_pe.png drift md --atoms 500 --steps 10 --backend cpu --out o/md
cb "drift md: DIR at md.resume" md.resume drift md --atoms 500 --steps 10 --backend cpu --out o/md

cb "drift doundo: DIR at d/doundo_trial2_muldiv.png" d/doundo_trial2_muldiv.png drift doundo --iterations 1000 --every 100 --trials 2 --backend cpu --out-dir o/d
cb "video: DIR at f00002.png" f00002.png video --re 0 --im 0 --zoom 1 --zoom-to 10 --frames 2 --size 8x8 --iter 50 --backend cpu --out o/f%05d.png
cb "find nucleus: DIR at n.loc" n.loc find nucleus --re -1 --im 0 --zoom 4 --out o/n.loc
# A FIFO where md's resume file goes (a read of it used to block until a writer came).
rm -rf o; mkdir o o/d; mkfifo o/md.resume
timeout 10 "$B" $MD --out o/md > out.txt 2> err.txt; rc=$?
printf '%s\t%s\t%s\t%s\n' "drift md: FIFO at md.resume" "$rc" "$(cd o && ls -A | grep -v -x -e d -e md.resume | tr '\n' ' ')" \
  "$(grep -a -v '^\s*$' err.txt | tail -1 | cut -c1-110 | tr '\t|' '  ')"
