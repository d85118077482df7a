// `render --aa N`: supersampling with N x N stratified jittered samples per pixel. Each sample is a
// whole render of the view shifted by a sub-pixel offset (exact in MPFR), coloured by the one
// colouring of every image file (app/io/colouring.h: colour_frame, the GLSL shader), and the colours
// are averaged in linear light. Undecided pixels of any sample stay magenta and counted.
#pragma once
#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "app/io/colouring.h"
#include "kernels/colour/palette.h"
#include "kernels/mandelbrot/mandelbrot.h"

namespace ds::app {

// The N x N sample offsets in pixels from the pixel's centre (x to the right, y down), row by row
// of cells: cell (a, b) gets (a + u)/N - 1/2, (b + v)/N - 1/2 with u, v in [0, 1) drawn from a
// fixed-seed generator (the same pattern for every image and frame, so reruns and resumed
// sequences give the same bytes). N = 1: the centre itself, (0, 0).
std::vector<std::array<double, 2>> aa_offsets(int n);

// The view whose pixel (i, j) is sampled at (dx, dy) pixels from v's pixel (i, j), View::pixel_map
// honoured: the centre moved exactly in MPFR (mandel::pan_pixels), to far below a pixel. (0, 0)
// returns v unchanged.
mandel::View shifted_view(const mandel::View& v, double dx, double dy);

struct AntialiasedImage {
  std::vector<uint8_t> rgb;             // 8-bit sRGB, 3 a pixel (the PNG)
  std::vector<float> linear;            // the averages in linear light, 3 a pixel (the EXR's R, G, B)
  uint64_t undecided = 0;               // pixels undecided in at least one sample (magenta)
  std::vector<uint8_t> undecided_mask;  // 1 for those pixels
  int samples = 0;
  int reference_reused = 0;  // perturbation: samples that reused a reference orbit computed before
  // The samples' facts as one result for the summary and the file's text: the first sample's
  // method, format and backend, iterations and times summed, glitch counts summed except
  // glitch_unresolved = undecided. No pixel arrays.
  mandel::RenderResult facts;
  std::string colour_record;  // the colouring record of the samples (kPngColourKey)
  std::string colour_note;    // colour_frame's note (the C++ fallback, missing data), "" when none
  bool cancelled = false;
};

// The running mean of a view's coloured samples in linear light. `render --aa` and the window's
// progressive refinement (app/gui/panel_mandelbrot_aa.cpp) both add aa_offsets(N)'s samples through
// it, in that order, so a finished refinement is the file's image byte for byte.
class SampleMean {
 public:
  // Adds one sample: its render (its facts; count 0 marks a pixel it left undecided) and its
  // colours, 3 bytes a pixel. Throws std::invalid_argument for a sample of another size.
  void add(const mandel::RenderResult& r, const std::vector<uint8_t>& rgb);
  int samples() const { return samples_; }
  // The mean of the samples so far: rgb, linear, undecided (magenta), samples, reference_reused and
  // facts. colour_record, colour_note and cancelled are the caller's.
  AntialiasedImage image() const;

 private:
  std::vector<float> sum_;          // linear light, 3 a pixel
  std::vector<uint8_t> undecided_;  // 1: undecided in at least one sample
  mandel::RenderResult facts_;
  int samples_ = 0, reference_reused_ = 0;
};

// The first line of the PNG's and EXR's antialiasing record (kPngAntialiasKey): "samples = NxN".
std::string aa_samples_line(int n);
// The whole record of an N x N image: samples, the average, reference reuse, undecided pixels.
std::string aa_record(int n, const AntialiasedImage& a);

// Renders v's N x N samples with `opt` (backend resolved; its cancel flag is polled, its progress
// gets the fraction of all samples), colours each with `shader` and averages their colours.
AntialiasedImage render_antialiased(const mandel::View& v, const mandel::RenderOptions& opt, int n,
                                    const colour::Colouring& c, const ShaderSpec& shader);

}  // namespace ds::app
