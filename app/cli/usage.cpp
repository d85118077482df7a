// The help text of every subcommand.
#include <sstream>
#include <string>
#include <vector>

#include "commands.h"

namespace ds::app {

const char* usage_text() {
  return R"(usage: deepscope [COMMAND] [OPTIONS]

With no command, opens the explorer window (needs a display).

Commands:
  deepscope [--location FILE] [--open FILE] [--tab mandelbrot|henon|tmd|drift] [--frames N]
            [--screenshot FILE.png] [--size WxH] [--ui-scale S] [--script FILE]
        open the window (at a location file, .kfr or deepscope PNG; --open also takes a Hénon scan
        CSV, like a file dropped on the window); --frames/--screenshot render N frames, save the
        window, and quit; --ui-scale sets the HiDPI UI scale (0.5 to 4; default: the monitor's)
        --script FILE runs a scripted session: one command a line, wait-idle [S], wait N, sleep S,
        move X Y, click X Y [left|right|middle], scroll X Y STEPS, key NAME (F12, Home, ctrl+z),
        png PATH, screenshot PATH, tab NAME, shader NAME|FILE, palette NAME|FILE.kfp, quit; X Y are
        Mandelbrot image pixels (docs/window.md)
  deepscope render [--re R --im I --zoom Z | --location FILE] [--iter N] [--size WxH]
                   [--arith NAME|auto|perturb] [--no-bla] [--no-period-map] [--period-map-always]
                   [--backend auto|cpu|cuda] [--palette P]
                   [--density D] [--offset O] [--scale log|linear] [--counts FILE.npy] [--smooth FILE.npy]
                   [--frames N --zoom-to Z2] [--limb-strategy thread|coop] [--device K]
                   [--devices LIST] [--shard I/N] [--tile-rows R] [--verify N [--verify-seed S]]
                   [--delta auto|f64|f64-scaled|floatexp] [--max-references N] [--no-interior] [--no-refine]
                   [--no-dw-tier] [--no-wide-tiers] [--no-error-bound]
                   [--reference-cache DIR] [--reference-memory SIZE] [--reference auto|mpfr|gpu]
                   [--reference-at auto|centre]
                   [--auto-iter] [--aa N] [--exr FILE.exr] [--expmap]
                   [--shader NAME|FILE.glsl] [--shader-param NAME=VALUE]...
                   [--stripe-density D] [--stripe-memory M] [--formula NAME]
                   [--julia-re RE --julia-im IM] [--quiet] --out FILE.png
        render a Mandelbrot view headless to a PNG with the location embedded; auto uses
        perturbation (MPFR reference, BLA) beyond the hardware formats' zoom; where the reference
        wraps (a minibrot's period) and the view's pixels x iterations pay for it, a pixel near it
        takes the whole period as one polynomial step (--no-period-map: BLA alone;
        --period-map-always: whatever the view's size; docs/perturbation/references.md, "The
        period map").
        --iter N: 1 to 2^63 - 1
        (5000000000 or 5e9); --counts is uint64 where a count passes 2^32 - 1. Frames go one per
        worker (every CUDA device, or --devices 0,2; MPI ranks) and a rerun skips frames already
        written; --shard I/N renders frames F with (F-1) % N == I and writes them itself (no merge).
        One image is split into strips of rows (--tile-rows R, or 64 strips when several workers
        share it), resumable from FILE.png.chunks, and written as one render would write it.
        --verify N [--verify-seed S] checks N pixels (a sqrt(N) grid, the rest random) against the
        MPFR oracle (a formula's or Julia set's: its own certified MPFR orbits), records the result
        in the PNG, and exits 1 when a trusted pixel differs by > 1.
        Perturbation re-renders pixels that its deltas cannot decide with 106-bit deltas (not with
        --no-refine; double words first where the view allows, floatexp2 alone with --no-dw-tier,
        both to compare; on an orbit that wraps, then 212- and 424-bit deltas against a wider orbit,
        not with --no-wide-tiers), then from up to --max-references N secondary references (default 10000);
        pixels left unresolved are counted in the PNG and the command exits 1. The direct formats
        re-decide pixels whose error estimate reaches the escape test in wider formats (the same
        counts and exit code); --no-error-bound turns the estimate off in both methods, to measure
        its cost only (the PNG then says error_estimate = off).
        --reference-cache DIR keeps reference orbits as files in DIR, keyed by centre, precision and
        iterations (and the view's disk for an orbit cut at the ball's period or a nucleus's): a later
        render of the same reference loads it instead of computing it.
        --reference-memory SIZE (e.g. 8G): what the reference orbit may take (default: three quarters
        of this machine's memory); past an eighth of it, or 4,194,304 points, the orbit is kept
        compressed without loss (about 2 bytes a point instead of 48); past all of it, exit 2.
        --reference: the reference orbit's arithmetic (auto: fixed point on the GPU from 32,768 bits
        where a device is, its error bounded like MPFR's; else MPFR; a failing GPU falls back to MPFR)
        --reference-at auto: at 1,048,576 iterations and more, the reference is the orbit of a minibrot's
        nucleus in the view (ball method, Newton, proven by the orbit's own periodic stop), one period
        long, where one is found within 4 half-diagonals; else the centre's (always with centre)
        --delta forces the perturbation delta type (auto: f64 to 2^-900 pixel spacing, f64 scaled by
        2^500 to 2^-1400, then floatexp)
        --auto-iter renders again with twice the iterations (up to 8 times) while too many pixels
        still iterate at the limit (docs/finder.md, "Auto iterations"); with --frames, each frame
        on its own
        --scale log (the default, except with a KF palette) walks the palette by the log of the
        smooth count above the frame's lowest, so deep views with counts in the millions colour
        smoothly; linear cycles it every 32 / D iterations (KF's IterDiv; docs/colouring.md)
        --location F.kfr colours as the file does: its Colors, ColorMethod, Differences, IterDiv,
        ColorOffset, Smooth, Slopes by the kf shader (docs/colouring.md) unless --palette/--shader
        --expmap renders KF's and Fraktaler-3's exponential map (docs/mandelbrot.md): columns are angles,
        rows radii from the half-diagonal down to half of it, for zoom-video keyframes
        --aa N antialiases with N x N stratified jittered samples a pixel (N to 16; each a render of
        the view shifted by a fraction of a pixel), averaged in linear light; undecided pixels of
        any sample stay magenta and counted. --exr FILE.exr also writes Kalles Fraktaler's channels
        for zoomasm: N, NF (N + NF = the smooth count), DEX, DEY, T (the distance estimate and
        phase), and linear R, G, B as half floats, with the location in the header (builds with
        OpenEXR only)
        --shader colours with a GLSL shader (docs/colouring.md): palette (default), distance, slopes,
        decomposition, stripe, or a .glsl file; --shader-param sets its uniforms. --stripe-density D
        (1..16, default 4) and --stripe-memory M (0..1, default 0.8) shape the stripe average the
        engine computes for a shader that reads it. It runs in a headless EGL
        context (C++ fallback for palette where there is none, said on stderr and in the PNG).
        --palette takes a built-in name or a Kalles Fraktaler .kfp file (IterDiv, ColorOffset
        become density and offset unless those are given)
        --formula NAME iterates another formula (docs/formulas.md): mandelbrot3..8, burning-ship,
        burning-ship3, mandelbar, celtic, buffalo, mandelbar-celtic, perpendicular-mandelbrot,
        perpendicular-burning-ship, perpendicular-celtic, perpendicular-buffalo, opcodes such as
        "absx absy sqr add", and hybrids "mandelbrot,burning-ship" (a phase a step); a .kfr's
        FractalType and Power choose it too. On the CPU: direct binary64 where it resolves the
        view, perturbation beyond (binary64 deltas, FloatExp past zoom about 1e268; --arith perturb or
        f64 forces one); pixels binary64 cannot certify are re-decided by their own MPFR orbit
        (up to --max-references N of them), and any left undecided make render exit 1. --frames,
        --aa, --exr and the GPU are refused (exit 2)
        --julia-re RE --julia-im IM draws the formula's Julia set of c = RE + i IM (both needed,
        |c| <= 2): the pixel is the orbit's first point, c fixed; the same CPU engines, references
        and MPFR checks as --formula, for every formula; the PNG records the seed (julia_re,
        julia_im), which --location reads back. --backend cuda is refused (exit 2)
  deepscope video [--re R --im I --zoom Z | --location FILE] --zoom-to Z2 --frames N
                  [--easing linear|smooth|in|out] [--aa N] [--exr FILE%05d.exr] [--mp4 FILE.mp4]
                  [--fps F] [--crf C] [--no-auto-iter] [render's options] --out DIR/frame%05d.png
        a zoom video: N frames from zoom Z to Z2, log zoom moving along the easing curve (linear: the
        same factor every frame; smooth eases in and out), rendered as render --frames renders them
        (a rerun skips the frames already written, so a stopped video resumes); --mp4 pipes the
        frames to ffmpeg (x264, yuv420p, --crf default 18, --fps default 30) into FILE.mp4, written
        whole or not at all; without ffmpeg (PATH, or DEEPSCOPE_FFMPEG; ./setup.sh installs Debian's)
        --mp4 exits 2 at once; auto iterations are on for every frame (--auto-iter; off with
        --no-auto-iter or --aa): a frame whose counts say its limit is too low is rendered again
  deepscope oracle [--re R --im I --zoom Z | --location FILE] [--iter N] [--size WxH] [--grid N]
                   [--pixel-map M0,M1,M2,M3] [--start-bits B] [--max-bits B] [--escalations K]
                   [--no-confirm] [--threads T] [--quiet] [--meta FILE.json] [--formula NAME] --out FILE.npy
        counts of an N x N grid of the view's pixels (default 32) by direct MPFR iteration with a
        rigorous error bound, escalating precision until certified and confirmed one rung higher:
        FILE.npy (uint32), FILE_smooth.npy, FILE_trusted.npy (uint8 mask), FILE_bits.npy and the
        JSON record; resumable from FILE.npy.chunks. A formula other than z^2 + c (--formula, or
        the location's): its own MPFR orbit at --start-bits and one rung higher, trusted where the
        two counts agree (no smooth file, no escalation; square, unrotated pixels only)
  deepscope find period|nucleus|misiurewicz [--re R --im I --zoom Z | --location FILE] [--iter N]
                   [--size WxH] [--at X,Y] [--radius PIXELS] [--max-period N] [--period P]
                   [--preperiod Q] [--fit F] [--quiet] [--out FILE.loc]
        the feature finder at the view's centre or pixel X,Y (docs/finder.md): period: the lowest
        period of a component within --radius pixels (default 4; the disk must not hold the whole
        set, radius < |point| + 2) by the ball method, up to --max-period (default: the
        iterations); nucleus: that period's (or --period's) nucleus by Newton's method, with its
        size, orientation and atom domain (none at period 1), written as a location whose
        view shows the minibrot at --fit of its height (default 0.5); misiurewicz: the Misiurewicz
        point of --preperiod Q and --period P (default: the nearest pair up to 64 each). A feature is
        reported only when proven (least period, convergence, in the view, plausible size); else
        "not found: REASON" and exit 1, nothing written. --out (nucleus, misiurewicz only) FILE.loc
  deepscope henon orbit --a A --b B [--x0 X --y0 Y] [--transient N] [--points N] [--arith NAME]
                        [--backend cpu|cuda] [--bound R] --out FILE.csv
  deepscope henon period --a A --b B [--x0 X --y0 Y] [--transient N] [--pmax P] [--tol T] [--arith NAME]
  deepscope henon scan --a-min A --a-step DA --na N [--b-min B --b-step DB --nb M] [--init K]
                       [--box XLO,XHI,YLO,YHI] [--transient N] [--pmax P] [--tol T] [--arith NAME]
                       [--backend auto|cpu|cuda] [--devices LIST] [--shard I/N] [--chunk C] [--chunk-file F]
                       [--json F] [--estimate] --csv FILE
  deepscope henon plane --centre-a A --centre-b B --width W [--size WxH] [--colour period|lyapunov]
                        [--init K] [--box XLO,XHI,YLO,YHI] [--transient N] [--pmax P] [--tol T]
                        [--lyapunov-steps N] [--lyapunov-scale S] [--arith NAME|auto] [--bound R]
                        [--backend auto|cpu|cuda] [--chunk C] [--resume FILE] [--npy F.npy] [--quiet] --out FILE.png
  deepscope henon basin --a A --b B [--centre-x X --centre-y Y] --width W [--size WxH] [--transient N]
                        [--pmax P] [--tol T] [--arith NAME] [--bound R] [--backend auto|cpu|cuda] [--chunk C]
                        [--resume FILE] [--npy F.npy] [--quiet] --out FILE.png
        Hénon map orbits (CSV), period detection with eigenvalues, and resumable grid sink scans;
        scans use every CUDA device (--devices 0,2 picks; 0,0 splits one), mpirun ranks, and shards.
        plane: the (a, b) plane (|b| <= 1.5) coloured by the period of the sink reached (black: none
        within --pmax, white: escape) or by the largest Lyapunov exponent (blue < 0 < red), with an
        int32 (period) or float64 (exponent) .npy beside the PNG (--arith auto: the cheapest format that
        resolves the pixels, as the Mandelbrot view picks); basin: the (x, y) plane of one (a, b),
        each start point coloured by the attracting cycle it reaches (int32 ids in the .npy)
  deepscope henon orbits [--a A --b B] --period-max N [--box XLO,XHI,YLO,YHI] [--graph-level L]
                         [--refine-levels K] [--memory-budget BYTES] [--chunk-file F] [--json F] [--quiet]
                         [--threads T (default: every core)] [--split-depth D] --out FILE.csv
        Every periodic orbit of least period <= N in Hénon's trapping quadrilateral (or the box),
        proven by interval Krawczyk tests; undecided box sequences counted in the JSON (docs/henon.md);
        rerun the same command to resume from the chunk file (default FILE.csv.chunks)
  deepscope drift sum [--n N] [--seed S] [--threads 1,10,100,1000] [--backend auto|cpu|cuda] [--out FILE.csv]
  deepscope drift doundo [--iterations N] [--every K] [--arith LIST] [--trials 1,2,3] [--repeat R]
                         [--backend auto|cpu|cuda] --out-dir DIR
  deepscope drift md [--cells C | --atoms N] [--precision float,double,composite,ff,mixed,fixed] [--steps N]
                     [--dt DT] [--every K] [--equilibrate N] [--temp T] [--density D] [--cutoff RC]
                     [--fixed-bits K (fixed point: terms scaled by 2^K, default 32)]
                     [--unshifted | --shifted-force] [--seed S | --seeds S1,S2,...] [--backend auto|cpu|cuda]
                     [--checkpoint-every SECONDS (default 30)] --out PREFIX
        MD energy drift: global summation and do/undo suites, Lennard-Jones NVE runs (CSV and PNG plots;
        md: drift in kT/ns/dof for argon, mean and standard error over --seeds, in PREFIX_drift.csv and .json;
        finished runs are kept in PREFIX.resume and the running one's state in PREFIX.ckpt (at most every
        SECONDS and at Ctrl-C): the same command again continues to the same files to the bit;
        under mpirun -np R, md is split into R slabs of the box on the CPU, the same files to the bit)
  deepscope tmd exhaustive --range 0xLO:0xHI|all [--func exp|exp2|log|log2|sin|cos] [--mode nearest|directed]
                           [--k K] [--precision P] [--backend auto|cpu|cuda] [--chunk N] [--chunk-file F]
                           [--max-cases N] [--json F] [--hardest N] [--estimate] [--quiet]
                           [--devices LIST] [--shard I/N] --out FILE.csv|FILE.tmdc
        hard-to-round cases of binary32 arguments (f(x) within 2^-K ulp of a breakpoint), MPFR-checked
  deepscope tmd lefevre|regular --range 0xLO:0xHI | --x-lo X --x-hi Y [--func exp|exp2|log|log2] [--mode nearest|directed]
                                [--k K] [--precision P] [--log2n N] [--split S] [--div-threshold K]
                                [--poly hierarchical|taylor] [--log2-packet P] [--backend auto|cpu|cuda]
                                [--max-cases N] [--chunk-file F] [--json F] [--quiet] [--log2-block B]
                                [--devices LIST] [--shard I/N] [--max-seconds S] --out FILE.csv|FILE.tmdc
        the paper's searches over one binade: phase counts, loop iterations and the NMDM histogram;
        with --x-lo/--x-hi the precision-P numbers of [X, Y) for P up to 64
        tmd: --devices 0,1 shares the chunks (--chunk bit patterns, blocks of 2^B intervals) between
        CUDA devices (0,0: two workers on one GPU; lefevre/regular default to four a GPU), as do
        mpirun ranks; --shard I/N runs chunks C with C mod N = I into FILE.csv.chunks.shard-I-of-N
        and writes no CSV: join the shards with deepscope merge, then rerun without --shard.
        --out FILE.csv writes a CSV row per case and FILE.json with every case; --out FILE.tmdc a
        binary case file (72 bytes a case, checksummed; docs/tmd.md) and FILE.json with the hardest only
  deepscope tmd export FILE.tmdc [--csv OUT.csv] [--json OUT.json] [--quiet]
        a binary case file as the CSV and JSON (every case) the search writes with --out OUT.csv
  deepscope merge --out FILE CHUNKFILE...
        join the chunk files of a job's shards (--shard i/n); then rerun the job without --shard
  deepscope info [--arith]
        build options, CUDA devices, GL renderer; --arith lists the number formats and traits
  deepscope bench arith [--out FILE.md] [--quick] [--formats LIST] [--cpu-only|--gpu-only]
                        [--fp-counts FILE.csv] [--steps N --chains N]
  deepscope bench mandelbrot [--out FILE.md] [--quick] [--formats LIST] [--cpu-only|--gpu-only]
                             [--repeat N] [--fp-counts FILE.csv] [--single-run] [--iterations-csv FILE]
  deepscope bench perturb [--out FILE.md] [--quick] [--cpu-only|--gpu-only] [--size N] [--depths LIST]
                          [--locations DIR] [--kf DIR [--oracle DIR] [--fields]]
  deepscope bench perturb --formulas [--out FILE.md] [--quick] [--size N] [--repeat N] [--views LIST]
                          [--locations DIR]   (formula perturbation on the CPU with and without BLA; views
                          burning-ship-1e30, burning-ship-1e60, mandelbar-1e30,
                          fs-perpendicular-burning-ship-21-trees, fs-burning-ship-14-deeper)
  deepscope bench perturb --peer f3 (--kf DIR [--depths LIST] | --location FILE) [--size WxH] [--runs N]
                          [--check N] [--peer-dir DIR] [--out FILE.md]
        Fraktaler-3 (built by tools/peers/fraktaler3.sh into .peers/fraktaler3/build) beside `render
        --backend cpu`, alternating, the minimum of --runs (3) wall times each; then both images
        compared pixel for pixel at the pixel centres, and up to --check (16) of the pixels where they
        differ by more than one checked against the MPFR oracle (docs/bench/cpu-peers.md).
  deepscope bench henon [--out FILE.md] [--quick] [--formats LIST] [--steps N] [--orbits N] [--cpu-only|--gpu-only]
                        [--fp-counts FILE.csv] [--params format|double|both]
  deepscope bench drift [--out FILE.md] [--quick] [--cpu-only|--gpu-only]
  deepscope bench tmd [--out FILE.md] [--quick] [--full-exp2 DIR] [--table1 S] [--div-sweep S] [--fp-counts FILE.csv]
                      [--binade-chunks K [--binade-first I] [--binade-packet P]]
                      [--ncu-probe] [--cpu-only|--gpu-only]
                      [--write-cases N [--write-dir DIR]]   (only the output files' write times)
  deepscope bench scale [--out FILE.md] [--quick] [--only henon,tmd] [--henon-params N] [--henon-transient N]
                        [--tmd-width W]
  deepscope bench finder [--locations DIR] [--out FILE.md] [--repeat N]
        the feature finder at KF's and rust-fractal's locations (tests/data): period and nucleus
        times against one MPFR orbit of the same length and precision (--repeat: medians of N runs)
  deepscope bench reference [--bits 128,512,...] [--seconds S] [--out FILE.md]
        the reference orbit's iterations/s per precision: single-thread MPFR beside the step's
        products split over 2 and 3 threads, the orbits compared bit for bit
  deepscope bench interop [--out FILE.md] [--quick] [--size WxH] [--repeat N]
        throughput benchmarks on the CPU and (when present) the GPU; scale: efficiency over this
        host's GPUs; interop: frame time per format, display by CUDA-GL interop against the copy through
        the host, in a headless EGL context
  deepscope bench colour [--size WxH] [--repeat N] [--shader NAME|FILE] [--out FILE.md]
        the colour pass of a frame (default 1920x1080) through each colouring shader in a headless
        EGL context, median of N (default 11): batch (upload, draw, readback) and window (upload, draw)
  deepscope --help | --version

Exit codes: 0 success, 1 failure while running, 2 bad input (usage, malformed numbers, unwritable
output). Ctrl-C stops batch work cleanly. Documentation: docs/ in the source tree.
)";
}

std::string usage_for(const std::string& command, const std::string& sub) {
  // The text as entries: synopsis lines ("  deepscope ..." and their deeper-indented
  // continuations) followed by description lines (indented 8).
  struct Line {
    std::string text;
    bool synopsis_start, description;
  };
  std::vector<std::vector<Line>> entries;
  std::istringstream in(usage_text());
  bool last_description = true;
  for (std::string l; std::getline(in, l);) {
    const bool start = l.rfind("  deepscope ", 0) == 0;
    const bool description = l.size() > 8 && l.compare(0, 8, "        ") == 0 && l[8] != ' ';
    const bool continuation = !start && !description && l.size() > 8 && l.compare(0, 9, "         ") == 0;
    if (!start && !description && !continuation) {
      last_description = true;
      continue;
    }
    if (start && last_description) entries.emplace_back();
    if (entries.empty()) continue;
    entries.back().push_back({l, start, description});
    last_description = description;
  }
  const std::string head = "  deepscope " + command;
  auto names = [&](const std::string& line, const std::string& more) {
    const std::string h = more.empty() ? head : head + " " + more;
    return line.rfind(h, 0) == 0 && (line.size() == h.size() || line[h.size()] == ' ' || line[h.size()] == '|');
  };
  // Where some entry names the subcommand, only those entries are shown (henon scan's usage is
  // not followed by henon orbits').
  bool sub_found = false;
  for (const auto& e : entries)
    for (const Line& l : e)
      if (l.synopsis_start && !sub.empty() && names(l.text, sub)) sub_found = true;
  std::string out;
  for (const auto& e : entries) {
    bool any = false, any_sub = false;
    for (const Line& l : e) {
      if (!l.synopsis_start) continue;
      any = any || names(l.text, "");
      any_sub = any_sub || (!sub.empty() && names(l.text, sub));
    }
    if (!any || (sub_found && !any_sub)) continue;
    bool keep = true;  // the current synopsis (and its continuations) is printed
    for (const Line& l : e) {
      if (l.synopsis_start) keep = names(l.text, any_sub ? sub : "");
      if (l.description || keep) out += l.text + "\n";
    }
  }
  return out.empty() ? std::string() : "usage:\n" + out;
}

}  // namespace ds::app
