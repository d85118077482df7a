// Colours and PNG metadata of the Hénon plane, Lyapunov and basin images.
#include "henon_png.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "image_io.h"

namespace ds::app {
namespace {

// Twelve well-separated colours (after Kelly's list of maximally distinct colours, without black
// and white, which mean "no period" and "escape" here).
const uint8_t kCategories[12][3] = {{243, 195, 0}, {135, 86, 146},  {243, 132, 0}, {161, 202, 241},
                                    {190, 0, 50},  {194, 178, 128}, {0, 136, 86},  {230, 143, 172},
                                    {0, 103, 165}, {249, 133, 100}, {96, 78, 151}, {141, 182, 0}};

std::string g17(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

}  // namespace

void category_colour(int32_t k, uint8_t rgb[3]) {
  if (k < 0) {
    rgb[0] = rgb[1] = rgb[2] = 255;
    return;
  }
  if (k == 0) {
    rgb[0] = rgb[1] = rgb[2] = 0;
    return;
  }
  const int32_t i = (k - 1) % 12, round = std::min<int32_t>((k - 1) / 12, 4);
  const double shade = 1.0 - 0.17 * round;  // a darker copy of the table for every further 12
  for (int c = 0; c < 3; ++c) rgb[c] = static_cast<uint8_t>(std::lround(kCategories[i][c] * shade));
}

std::vector<uint8_t> category_rgb(const std::vector<int32_t>& values) {
  std::vector<uint8_t> rgb(values.size() * 3);
  for (std::size_t q = 0; q < values.size(); ++q) category_colour(values[q], &rgb[3 * q]);
  return rgb;
}

void lyapunov_colour(double lambda, double scale, uint8_t rgb[3]) {
  if (std::isnan(lambda)) {
    rgb[0] = rgb[1] = rgb[2] = 128;
    return;
  }
  double t = scale > 0 ? lambda / scale : 0.0;
  t = std::max(-1.0, std::min(1.0, t));  // -inf: -1
  // White at 0; blue (33, 102, 172) at -1; red (178, 24, 43) at +1 (ColorBrewer RdBu ends).
  const double end_neg[3] = {33, 102, 172}, end_pos[3] = {178, 24, 43};
  const double* e = t < 0 ? end_neg : end_pos;
  const double s = std::fabs(t);
  for (int c = 0; c < 3; ++c) rgb[c] = static_cast<uint8_t>(std::lround(255.0 + (e[c] - 255.0) * s));
}

std::vector<uint8_t> lyapunov_rgb(const std::vector<double>& exponent, double scale) {
  std::vector<uint8_t> rgb(exponent.size() * 3);
  for (std::size_t q = 0; q < exponent.size(); ++q) lyapunov_colour(exponent[q], scale, &rgb[3 * q]);
  return rgb;
}

std::string plane_text(const henon::PlaneView& v, const std::string& colouring, int64_t lyapunov_steps,
                       double scale, const std::vector<std::pair<std::string, std::string>>& counts) {
  const henon::ScanParams sp = henon::plane_scan_params(v);
  std::ostringstream s;
  s << "kind = plane\ncolouring = " << colouring << "\narith = " << arith_name(v.arith)
    << "\ncentre_a = " << v.centre_a << "\ncentre_b = " << v.centre_b << "\nwidth = " << v.width
    << "\nsize = " << v.width_px << "x" << v.height_px << "\na_min = " << sp.a_min
    << "\na_step = " << sp.a_step << "\nb_min = " << sp.b_min << "\nb_step = " << sp.b_step
    << "\nrow0 = b_max (top row)\n";
  if (colouring == "lyapunov") {
    s << "start = " << g17(henon::init_points(sp)[0]) << "," << g17(henon::init_points(sp)[1])
      << "\nlyapunov_steps = " << lyapunov_steps << "\nlyapunov_scale = " << g17(scale) << "\n";
  } else {
    s << "init = " << v.n_init << "\nbox = " << g17(v.init_box[0]) << "," << g17(v.init_box[1]) << ","
      << g17(v.init_box[2]) << "," << g17(v.init_box[3]) << "\npmax = " << v.p_max << "\ntol = " << v.tol
      << "\n";
  }
  s << "transient = " << v.n_transient << "\nbound = " << g17(v.bound) << "\n";
  for (const auto& c : counts) s << c.first << " = " << c.second << "\n";
  return s.str();
}

std::string basin_text(const henon::BasinView& v, const henon::BasinResult& r) {
  std::ostringstream s;
  s << "kind = basin\narith = " << arith_name(v.arith) << "\na = " << v.a << "\nb = " << v.b
    << "\ncentre_x = " << g17(v.centre_x) << "\ncentre_y = " << g17(v.centre_y)
    << "\nwidth = " << g17(v.width) << "\nsize = " << v.width_px << "x" << v.height_px
    << "\ntransient = " << v.n_transient << "\npmax = " << v.p_max << "\ntol = " << v.tol
    << "\nbound = " << g17(v.bound) << "\nescaped = " << r.escaped << "\nno_period = " << r.no_period
    << "\nnon_sink = " << r.non_sink << "\nattractors = " << r.attractors.size() << "\n";
  for (const henon::Attractor& a : r.attractors)
    s << "attractor " << a.id << " = period " << a.period << ", x " << g17(a.x) << ", y " << g17(a.y)
      << ", pixels " << a.pixels << "\n";
  return s.str();
}

std::string henon_png(const std::vector<uint8_t>& rgb, int width, int height, const std::string& text) {
  return encode_png(rgb, width, height, {{kPngHenonKey, text}});
}

}  // namespace ds::app
