// Stratified jittered supersampling of a view: shifted renders, one colouring, linear-light mean.
#include "antialias.h"

#include <stdexcept>
#include <string>

#include "app/io/srgb.h"
#include "app/io/view_png.h"
#include "kernels/mandelbrot/navigate.h"

namespace ds::app {

std::vector<std::array<double, 2>> aa_offsets(int n) {
  if (n <= 1) return {{0.0, 0.0}};
  // splitmix64 (Steele, Lea, Flood 2014) from a fixed seed: the pattern depends on N only.
  uint64_t state = 0x64656570736370ull + static_cast<uint64_t>(n);
  auto next = [&state] {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return static_cast<double>((z ^ (z >> 31)) >> 11) * 0x1.0p-53;  // [0, 1)
  };
  std::vector<std::array<double, 2>> out;
  for (int b = 0; b < n; ++b)
    for (int a = 0; a < n; ++a) {
      const double u = next(), w = next();
      out.push_back({(a + u) / n - 0.5, (b + w) / n - 0.5});
    }
  return out;
}

mandel::View shifted_view(const mandel::View& v, double dx, double dy) {
  if (dx == 0.0 && dy == 0.0) return v;
  // The pixel offset in the map's half-step units (View::pixel_map: kx = 2 dx, ky = -2 dy) lands
  // at (s/2)(m0 kx + m1 ky, m2 kx + m3 ky); pan_pixels(v, a, b) moves the centre by s(-a, b).
  const double* m = v.pixel_map;
  const double re_pixels = m[0] * dx - m[1] * dy, im_pixels = m[2] * dx - m[3] * dy;
  mandel::View out = mandel::pan_pixels(v, -re_pixels, im_pixels);
  out.zoom = v.zoom;  // unchanged, as given
  return out;
}

void SampleMean::add(const mandel::RenderResult& r, const std::vector<uint8_t>& rgb) {
  const std::size_t pixels = static_cast<std::size_t>(r.width) * static_cast<std::size_t>(r.height);
  if (rgb.size() != 3 * pixels || (samples_ > 0 && (r.width != facts_.width || r.height != facts_.height)))
    throw std::invalid_argument("antialiasing: a sample of " + std::to_string(r.width) + "x" +
                                std::to_string(r.height) + " pixels with " + std::to_string(rgb.size()) +
                                " colour bytes does not fit the samples before it");
  if (samples_ == 0) {
    sum_.assign(3 * pixels, 0.0f);
    undecided_.assign(pixels, 0);
  }
  for (std::size_t k = 0; k < pixels; ++k) {
    if (r.count(k) == 0) undecided_[k] = 1;  // perturbation could not decide it (colour_pixel)
    for (int ch = 0; ch < 3; ++ch) sum_[3 * k + ch] += srgb_to_linear(rgb[3 * k + ch]);
  }
  mandel::RenderResult& f = facts_;
  if (samples_ == 0) {
    f = r;
    f.clear_pixel_arrays();
  } else {
    f.iterations += r.iterations;
    f.seconds += r.seconds;
    f.kernel_seconds += r.kernel_seconds;
    mandel::PerturbInfo& p = f.perturb;
    const mandel::PerturbInfo& q = r.perturb;
    p.reference_seconds += q.reference_seconds;
    p.bla_skipped += q.bla_skipped;
    p.rebases += q.rebases;
    p.glitch_pixels += q.glitch_pixels;
    p.glitch_corrected += q.glitch_corrected;
    p.glitch_refined += q.glitch_refined;
    p.glitch_refined_dw += q.glitch_refined_dw;
    if (p.wide_note.empty()) p.wide_note = q.wide_note;
    if (p.proof_note.empty()) p.proof_note = q.proof_note;
    p.wide_orbit_seconds += q.wide_orbit_seconds;
    p.wide_coarse_pixels += q.wide_coarse_pixels;
    p.wide_coarse_decided += q.wide_coarse_decided;
    p.wide_prefetched = p.wide_prefetched || q.wide_prefetched;
    for (int k = 0; k < mandel::PerturbInfo::kRefinePasses; ++k) {
      p.refine_pass_pixels[k] += q.refine_pass_pixels[k];
      p.refine_pass_decided[k] += q.refine_pass_decided[k];
      p.refine_pass_seconds[k] += q.refine_pass_seconds[k];
      p.refine_pass_host[k] += q.refine_pass_host[k];
      p.refine_pass_table_seconds[k] += q.refine_pass_table_seconds[k];
      p.refine_pass_device_seconds[k] += q.refine_pass_device_seconds[k];
      p.refine_pass_cpu_seconds[k] += q.refine_pass_cpu_seconds[k];
    }
    p.secondary_references += q.secondary_references;
    p.refine_seconds += q.refine_seconds;
    p.refine_skipped += q.refine_skipped;
    p.secondary_seconds += q.secondary_seconds;
    p.interior_pixels += q.interior_pixels;
    f.stripe_approximate += r.stripe_approximate;
  }
  if (r.method == mandel::Method::kPerturb && r.perturb.reference_reused) ++reference_reused_;
  ++samples_;
}

AntialiasedImage SampleMean::image() const {
  AntialiasedImage out;
  out.samples = samples_;
  out.reference_reused = reference_reused_;
  out.facts = facts_;
  out.undecided_mask = undecided_;
  const std::size_t pixels = undecided_.size();
  out.rgb.resize(3 * pixels);
  out.linear.resize(3 * pixels);
  const float inv = 1.0f / static_cast<float>(samples_);
  for (std::size_t k = 0; k < pixels; ++k) {
    if (undecided_[k]) {
      ++out.undecided;
      const uint8_t magenta[3] = {255, 0, 255};
      for (int ch = 0; ch < 3; ++ch) {
        out.rgb[3 * k + ch] = magenta[ch];
        out.linear[3 * k + ch] = srgb_to_linear(magenta[ch]);
      }
      continue;
    }
    for (int ch = 0; ch < 3; ++ch) {
      const float x = sum_[3 * k + ch] * inv;
      out.linear[3 * k + ch] = x;
      out.rgb[3 * k + ch] = linear_to_srgb8(x);
    }
  }
  out.facts.perturb.glitch_unresolved = out.undecided;
  return out;
}

std::string aa_samples_line(int n) { return "samples = " + std::to_string(n) + "x" + std::to_string(n); }

std::string aa_record(int n, const AntialiasedImage& a) {
  return aa_samples_line(n) +
         "\naverage = linear light\nreference_reused = " + std::to_string(a.reference_reused) + " of " +
         std::to_string(a.samples) + " samples\nundecided_pixels = " + std::to_string(a.undecided) + "\n";
}

AntialiasedImage render_antialiased(const mandel::View& v, const mandel::RenderOptions& opt, int n,
                                    const colour::Colouring& c, const ShaderSpec& shader) {
  const std::vector<std::array<double, 2>> offsets = aa_offsets(n);
  const int samples = static_cast<int>(offsets.size());
  SampleMean mean;
  std::string record, note;
  for (int s = 0; s < samples; ++s) {
    mandel::RenderOptions o = opt;
    if (opt.progress) o.progress = [&opt, s, samples](double x) { opt.progress((s + x) / samples); };
    const auto& d = offsets[static_cast<std::size_t>(s)];
    const mandel::RenderResult r = mandel::render(shifted_view(v, d[0], d[1]), o);
    if (r.cancelled) {
      AntialiasedImage out;
      out.samples = samples;
      out.cancelled = true;
      return out;
    }
    const ColouredFrame frame = colour_frame(r, c, shader);
    record = frame.record;
    if (!frame.note.empty()) note = frame.note;
    mean.add(r, frame.rgb);
  }
  AntialiasedImage out = mean.image();
  out.colour_record = record;
  out.colour_note = note;
  return out;
}

}  // namespace ds::app
