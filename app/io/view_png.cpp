// Rendered view -> PNG bytes with the location (and the glitch or undecided-pixel counts) embedded.
#include "view_png.h"

#include "image_io.h"

#include <cstdio>

namespace ds::app {

Location location_of(const mandel::View& v, const std::string& palette_name, const colour::Colouring& c,
                     const std::string& format_used) {
  Location loc;
  loc.re = v.re;
  loc.im = v.im;
  loc.zoom = v.zoom;
  loc.iterations = v.max_iter;
  loc.width = v.width;
  loc.height = v.height;
  loc.palette = palette_name;
  loc.density = c.density;
  loc.offset = c.offset;
  loc.format_used = format_used;
  loc.pixel_map = {v.pixel_map[0], v.pixel_map[1], v.pixel_map[2], v.pixel_map[3]};
  loc.exp_map = v.exp_map;
  return loc;
}

std::string perturb_text(const mandel::RenderResult& r) {
  const mandel::PerturbInfo& p = r.perturb;
  // No times or cache facts: strips of one image must give the bytes of the whole render.
  std::string s = "glitch_pixels = " + std::to_string(p.glitch_pixels) +
                  "\nglitch_corrected = " + std::to_string(p.glitch_corrected) +
                  "\nglitch_refined = " + std::to_string(p.glitch_refined) +
                  "\nglitch_unresolved = " + std::to_string(p.glitch_unresolved) +
                  "\nsecondary_references = " + std::to_string(p.secondary_references) +
                  "\ninterior_pixels = " + std::to_string(p.interior_pixels) +
                  "\nreference_stop = " + (p.reference_stop.empty() ? "unknown" : p.reference_stop) + "\n";
  if (!r.error_bound) s += "error_estimate = off\n";
  if (p.glitch_unresolved > 0)
    s += "result = " + std::to_string(p.glitch_unresolved) + " pixels are not right\n";
  return s;
}

std::string direct_text(const mandel::RenderResult& r) {
  const mandel::PerturbInfo& p = r.perturb;
  // Counts only (no format names): strips of one image must give the bytes of the whole render.
  if (!r.error_bound) return "error_estimate = off\nresult = pixels were not checked (--no-error-bound)\n";
  std::string s = "undecided_pixels = " + std::to_string(p.glitch_pixels) +
                  "\ndecided_by_wider_format = " + std::to_string(p.glitch_corrected) +
                  "\nunresolved_pixels = " + std::to_string(p.glitch_unresolved) + "\n";
  if (p.glitch_unresolved > 0)
    s += "result = " + std::to_string(p.glitch_unresolved) + " pixels are not right\n";
  return s;
}

std::string stripe_parameters(int density, double memory) {
  char m[32];
  std::snprintf(m, sizeof m, "%.17g", memory);
  return "density = " + std::to_string(density) + "\nmemory = " + m + "\n";
}

std::string stripe_text(const mandel::RenderResult& r) {
  if (r.stripe_density == 0) return "";
  std::string s = stripe_parameters(r.stripe_density, r.stripe_memory) +
                  "approximate_pixels = " + std::to_string(r.stripe_approximate) + "\n";
  if (r.stripe_approximate > 0)
    s += "result = " + std::to_string(r.stripe_approximate) +
         " pixels have a stripe average approximate by more than 1/512 (BLA steps near their escape)\n";
  return s;
}

std::vector<std::pair<std::string, std::string>> view_text(const mandel::View& v, const mandel::RenderResult& r,
                                                           const std::string& palette_name,
                                                           const colour::Colouring& c,
                                                           const std::string& colour_record) {
  const Location loc = location_of(v, palette_name, c, mandel::format_label(r));
  std::vector<std::pair<std::string, std::string>> text = {{kPngLocationKey, format_location(loc)},
                                                           {kPngColourKey, colour_record}};
  if (r.method == mandel::Method::kPerturb) text.emplace_back(kPngPerturbKey, perturb_text(r));
  if (r.method == mandel::Method::kDirect) text.emplace_back(kPngDirectKey, direct_text(r));
  if (r.stripe_density != 0) text.emplace_back(kPngStripeKey, stripe_text(r));
  return text;
}

std::string mandelbrot_png(const mandel::View& v, const mandel::RenderResult& r,
                           const std::string& palette_name, const colour::Colouring& c,
                           const std::vector<std::pair<std::string, std::string>>& extra,
                           const ShaderSpec& shader, std::string* note) {
  const ColouredFrame f = colour_frame(r, c, shader);
  if (note) *note = f.note;
  return mandelbrot_png_rgb(v, r, palette_name, c, f.rgb, f.record, extra);
}

std::string mandelbrot_png_rgb(const mandel::View& v, const mandel::RenderResult& r,
                               const std::string& palette_name, const colour::Colouring& c,
                               const std::vector<uint8_t>& rgb, const std::string& colour_record,
                               const std::vector<std::pair<std::string, std::string>>& extra) {
  std::vector<std::pair<std::string, std::string>> text = view_text(v, r, palette_name, c, colour_record);
  text.insert(text.end(), extra.begin(), extra.end());
  return encode_png(rgb, r.width, r.height, text);
}

}  // namespace ds::app
