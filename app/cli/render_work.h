// Scale-out of `deepscope render` over ds::work::run (kernels/core/work.h): the frames of a zoom
// sequence, one chunk per frame, rendered by any worker (CUDA device, CPU, MPI rank) and written by
// the writer as each arrives, a rerun skipping the frames already written; and horizontal strips of
// one large image, which the writer assembles and then colours and writes exactly as one render.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "app/io/colouring.h"
#include "kernels/colour/palette.h"
#include "kernels/core/work.h"
#include "kernels/mandelbrot/mandelbrot.h"
#include "kernels/perturb/oracle.h"

namespace ds::app {

// One image to render and where it goes.
struct RenderTarget {
  mandel::View view;
  mandel::RenderOptions opt;        // format and method resolved; backend and device: the worker's
  std::string png, counts, smooth;  // output names (counts, smooth: "" when not asked)
  std::string exr;                  // `--exr`: Kalles Fraktaler's channels (app/io/exr_io.h); "" not asked
  // The per-pixel data beyond counts that the files need (RenderOptions::fields).
  bool wants_arrays() const { return !counts.empty() || !smooth.empty() || !exr.empty(); }
};

// `render --verify N`: sampled pixels checked against the MPFR oracle (kernels/perturb/oracle.h).
struct VerifyPlan {
  int samples = 0;    // 0: no check
  uint64_t seed = 0;  // of the random samples beyond the sqrt(N) x sqrt(N) grid
};

struct RenderPlan {
  std::string palette_name;
  colour::Colouring colouring;
  ShaderSpec shader;                  // --shader, --shader-param (app/io/colouring.h)
  std::vector<work::Worker> workers;  // at least one
  work::Shard shard;
  bool quiet = false;
  VerifyPlan verify;  // one image only (render_strips; cmd_render's single render)
  int aa = 1;         // `--aa N`: N x N jittered samples a pixel (app/cli/antialias.h)
  // Each frame of a sequence rendered again at a raised limit while its counts say so
  // (kernels/mandelbrot/auto_iter.h; video's default), its PNG recording the limit it used.
  bool auto_iter = false;
};

// The bytes of one target's files, and what the report says about them.
struct TargetFiles {
  std::string png, counts, smooth, exr;  // empty where the target does not ask for the file
  std::string summary;                   // render_summary(...), and the samples' line with --aa
  uint64_t unresolved = 0;               // undecided pixels (magenta in the PNG, counted in its text)
  std::string note;                      // colour_frame's note (the C++ fallback, data the shader lacks)
};

// Renders `t` with `o` (backend, device, cancel and progress set by the caller): one render, or
// with plan.aa > 1 plan.aa^2 shifted samples (plus one render at the pixel centres when t asks for
// .npy or EXR data, which are of the centres). False when cancelled.
bool render_target(const RenderTarget& t, const mandel::RenderOptions& o, const RenderPlan& plan,
                   TargetFiles* files);
// The files of `t` from the render `r` of its pixel centres (`extra`: more PNG text chunks).
TargetFiles encode_target(const RenderTarget& t, const mandel::RenderResult& r, const RenderPlan& plan,
                          const std::vector<std::pair<std::string, std::string>>& extra = {});
// Writes the files of `t` that `f` holds, each atomically: the data files first, the PNG last.
void write_target(const RenderTarget& t, const TargetFiles& f);
// The report of a written image: "deepscope render: wrote PNG (SUMMARY's first line MORE)" and
// SUMMARY's further lines, one "deepscope render: " line each.
std::string wrote_lines(const std::string& png, const std::string& summary, const std::string& more = "");
// PNG tEXt keyword of an antialiased image: "samples = NxN" and the samples' facts.
constexpr const char* kPngAntialiasKey = "deepscope-aa";

// Exit code 1, with a message unless quiet, when `unresolved` pixels of `what` could not be made
// right (perturbation's glitch_unresolved); 0 otherwise. A render that is not right never exits 0.
int unresolved_exit(uint64_t unresolved, const std::string& what, bool quiet);

// The frames of plan.shard, each written (npy files first, the PNG last, each atomically) as soon
// as it is rendered. A frame whose PNG exists with this frame's location embedded (and whose .npy
// files exist when asked) is skipped, so a rerun of a cancelled sequence renders only the rest.
// Under MPI the writer (rank 0) writes every frame. Returns the exit code (130: cancelled).
int render_frames(const std::vector<RenderTarget>& frames, const RenderPlan& plan);

// One image in strips of `strip_rows` rows, resumable from the chunk file PNG.chunks (removed once
// the files are written). The writer writes the same bytes as one render of the whole view.
int render_strips(const RenderTarget& image, int strip_rows, const RenderPlan& plan);

// Checks `r`, the whole image of `v`, against the oracle at plan's samples: prints the summary line
// on stderr (also under quiet when the render is wrong) and adds the (kPngVerifyKey, text) chunk to
// *png_text. *wrong: a trusted oracle pixel differs from the render by more than 1 (the caller
// writes the PNG, which says so, and exits 1). Returns false when Ctrl-C stopped the check.
bool verify_image(const mandel::View& v, const mandel::RenderResult& r, const VerifyPlan& plan, bool quiet,
                  std::vector<std::pair<std::string, std::string>>* png_text, bool* wrong);
// What verify_image says of its report (and render --formula's, kernels/formula/verify.h, with
// oracle_note after the summary): false when cancelled.
bool report_verification(const perturb::oracle::VerifyReport& rep, const std::string& oracle_note, bool quiet,
                         std::vector<std::pair<std::string, std::string>>* png_text, bool* wrong);

// The file names' report: "WxH, FORMAT on BACKEND, S s, N iterations", and for perturbation a
// second line (reference, BLA, re-evaluated pixels) after "\n".
std::string render_summary(const mandel::RenderResult& r);

// True when `png` holds the image of `t` already (its embedded location is t's, drawn with plan.aa
// samples) and t's .npy and EXR files exist: what render_frames skips.
bool frame_written(const RenderTarget& t, const RenderPlan& plan);

// The format name a target renders in ("f64", "perturb/f64"), as its files and chunk headers say it.
std::string format_label_of(const RenderTarget& t);

}  // namespace ds::app
