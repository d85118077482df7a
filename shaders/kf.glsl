// Built-in "kf": Kalles Fraktaler 2's colouring (KF 2.15, fraktal_sft.cpp, CFraktalSFT::SetColor and
// ApplyColors), the one a .kfr's ColorMethod, Differences, IterDiv, ColorOffset, Smooth, Flat,
// ColorPhaseStrength, InteriorColor and Slopes keys describe. The palette is KF's 1024-entry table
// (app/io/kfp.h, kf_table) and ds_density / ds_offset are IterDiv and ColorOffset
// (density = 32 / (1024 IterDiv), offset = ColorOffset / 1024), so the palette position is
// value / (1024 IterDiv) + ColorOffset / 1024, blended to the next entry when Smooth is on.
// KF's iteration value of a pixel is count + 1 - log2(ln|z| / ln R), R = KF's escape radius;
// ours is count + 1 - log2(log2|z|), so KF's = ours + log2(log2 R) (docs/colouring.md). With KF's
// square-root smoothing (SmoothingMethod 1, radius 2) it is count + 1 - (|z_n| - 2) / (|z_n| - |z_(n-1)|),
// which the engine computes per pixel (ds_sqrt_smooth_at, kernels/mandelbrot/fields.cuh).
// The engine computes the distance estimate only for analytic differences, the phase only for a
// phase strength (render/colour_shader.h, fields()):
// ds-needs distance when differences == 7
// ds-needs phase when phase_strength != 0
// ds-needs sqrt_smooth when sqrt_smoothing == 1
uniform float color_method = 0.0;    // [choice standard,square root,cubic root,logarithm,stretched,distance linear,distance + standard,distance log,distance sqrt,log log,atan,fourth root] colour method; KF's ColorMethod
uniform float differences = 0.0;     // [choice traditional,forward 3x3,central 3x3,diagonal 2x2,least squares 2x2,least squares 3x3,laplacian 3x3,analytic] differences; KF's Differences, for the distance methods and slopes
uniform float flat_colour = 0.0;     // [bool] flat; KF's Flat: whole iterations, no smoothing
uniform float phase_strength = 0.0;  // [range 0 100] phase %; KF's ColorPhaseStrength: the final z's phase moves the palette
uniform float sqrt_smoothing = 0.0;  // [bool] square-root smoothing; KF's SmoothingMethod 1 (SmoothMethod 1, 2): linear in |z| between the last two steps
uniform float escape_radius = 10000.0;  // [range 2 1000000] escape radius; KF's escape radius (BailoutRadiusPreset): its smooth count is ours + log2(log2 R)
uniform float slopes = 0.0;          // [bool] slopes; KF's Slopes: light and shade by the value's gradient
uniform float slope_power = 50.0;    // [range 1 500] slope power; KF's SlopePower
uniform float slope_ratio = 50.0;    // [range 0 100] slope ratio %; KF's SlopeRatio
uniform float slope_angle = 45.0;    // [range -180 180] slope angle; KF's SlopeAngle, degrees
uniform float interior_red = 0.0;    // [int 0 255] interior red; KF's InteriorColor
uniform float interior_green = 0.0;  // [int 0 255] interior green; KF's InteriorColor
uniform float interior_blue = 0.0;   // [int 0 255] interior blue; KF's InteriorColor

// KF's value shift: ours + log2(log2 R) is KF's count + 1 - trans.
float kf_shift() { return log2(log2(max(escape_radius, 1.0001))); }
// KF's value at pixel q less its whole count c (low word c.x): 1 - trans, logarithmic (from the
// smooth count) or square-root (the engine's fraction).
float kf_fraction(ivec2 q, uint low) {
  if (sqrt_smoothing > 0.5) return ds_sqrt_smooth_at(q);
  float s = texelFetch(ds_smooth, q, 0).r;
  return (ds_wide ? s : s - float(low)) + kf_shift();
}

uvec2 kf_count_at(ivec2 q) {
  return uvec2(texelFetch(ds_counts, q, 0).r, ds_wide ? texelFetch(ds_counts_high, q, 0).r : 0u);
}
bool kf_interior(uvec2 c) { return c.y > ds_max_iter.y || (c.y == ds_max_iter.y && c.x >= ds_max_iter.x); }
// a - b for two counts (low, high words), as a float.
float kf_count_diff(uvec2 a, uvec2 b) {
  float lo = a.x >= b.x ? float(a.x - b.x) : -float(b.x - a.x);
  return float(int(a.y) - int(b.y)) * 4294967296.0 + lo;
}
// KF's per-pixel value p = count + 1 - trans (interior: max_iter + 1), less the centre's count, so
// the differences keep float's precision at any depth. False where KF has no value (outside the
// frame, or a pixel the engine could not decide).
bool kf_p(ivec2 q, uvec2 centre, out float p) {
  p = 0.0;
  if (q.x < 0 || q.y < 0 || q.x >= ds_size.x || q.y >= ds_size.y) return false;
  uvec2 c = kf_count_at(q);
  if (c.x == 0u && c.y == 0u) return false;
  if (kf_interior(c)) {
    p = kf_count_diff(ds_max_iter, centre) + 1.0;
    return true;
  }
  p = kf_count_diff(c, centre) + kf_fraction(q, c.x);
  return true;
}

// KF's "no value" mark: +infinity (IEEE arithmetic below carries it as KF's double does).
float kf_inf() { return uintBitsToFloat(0x7f800000u); }

// The 3x3 stencil around the pixel, p[i][j] at (x + i - 1, y + j - 1), with KF's reflection for
// missing neighbours, in KF's order (00, 01, 02, 10, 12, 20, 21, 22): p = 2 p[1][1] - the opposite
// entry as it stands then, +infinity where that one is missing and not yet reflected (so at the
// frame's corners some entries are infinite, as in KF).
void kf_stencil(out float p[9]) {
  uvec2 c0 = kf_count_at(ds_pixel);
  bool ok[9];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      ok[3 * i + j] = kf_p(ds_pixel + ivec2(i - 1, j - 1), c0, p[3 * i + j]);
      if (!ok[3 * i + j]) p[3 * i + j] = kf_inf();
    }
  for (int k = 0; k < 9; ++k)
    if (!ok[k] && k != 4) p[k] = 2.0 * p[4] - p[8 - k];
}
float sq(float x) { return x * x; }

// KF's gradient magnitude by `differences` (with no jitter the stencil's offsets are the grid's);
// infinite or NaN where KF's is (the frame's corners).
float kf_gradient() {
  int d = int(differences + 0.5);
  if (d == 7) return 1.0 / length(ds_de());  // analytic: 1 / |DE|, DE in pixels
  float p[9];
  kf_stencil(p);
  const float k = 2.8284271247461903;
  if (d == 1) {  // forward 3x3: eight one-sided differences
    float g = sq(p[1] - p[4]) + sq(p[7] - p[4]) + sq(p[3] - p[4]) + sq(p[5] - p[4]) +
              (sq(p[0] - p[4]) + sq(p[8] - p[4]) + sq(p[6] - p[4]) + sq(p[2] - p[4])) / 2.0;
    return sqrt(0.25 * g) * k;
  }
  if (d == 2) {  // central 3x3
    float g = sq(p[7] - p[1]) / 4.0 + sq(p[5] - p[3]) / 4.0 + sq(p[8] - p[0]) / 8.0 + sq(p[2] - p[6]) / 8.0;
    return sqrt(0.5 * g) * k;
  }
  if (d == 3) {  // diagonal 2x2 (Roberts cross)
    return sqrt(sq(p[0] - p[4]) / 2.0 + sq(p[1] - p[3]) / 2.0) * k;
  }
  if (d == 4) {  // least squares over the 2x2 block up and left: the plane fit's slope
    float gx = 0.5 * (p[3] + p[4] - p[0] - p[1]);
    float gy = 0.5 * (p[1] + p[4] - p[0] - p[3]);
    return length(vec2(gx, gy)) * k;
  }
  if (d == 5) {  // least squares over the 3x3 stencil
    float gx = (p[6] + p[7] + p[8] - p[0] - p[1] - p[2]) / 6.0;
    float gy = (p[2] + p[5] + p[8] - p[0] - p[3] - p[6]) / 6.0;
    return length(vec2(gx, gy)) * k;
  }
  if (d == 6) {  // laplacian 3x3
    float l = (p[0] + 4.0 * p[1] + p[2] + 4.0 * p[3] - 20.0 * p[4] + 4.0 * p[5] + p[6] + 4.0 * p[7] + p[8]) / 6.0;
    return sqrt(abs(l * 1.4426950408889634)) * k;
  }
  // traditional (0)
  const float r = 1.414;
  return abs((p[1] - p[4]) * r) + abs((p[3] - p[4]) * r) + abs((p[0] - p[4]) * r / sqrt(2.0)) +
         abs((p[2] - p[4]) * r / sqrt(2.0));
}

// The palette position (cycles of KF's 1024 entries) of the iteration value itself:
// value / (1024 IterDiv) + ColorOffset / 1024, its whole cycles dropped in double where there are
// doubles, so that it keeps its fraction at any count.
float kf_linear_position(bool whole) {
  float frac = whole ? 0.0 : kf_fraction(ds_pixel, ds_count());
#ifdef GL_ARB_gpu_shader_fp64
  double per = double(ds_density) / 32.0LF;
  double cycles = (double(ds_count_high()) * 4294967296.0LF + double(ds_count())) * per;
  cycles -= floor(cycles);
  return float(cycles + double(frac) * per + double(ds_offset));
#else
  float per = ds_density / 32.0;
  float hi_cycles = fract(float(ds_count_high()) * fract(4294967296.0 * per));
  return fract(hi_cycles + fract(float(ds_count()) * per)) + frac * per + ds_offset;
#endif
}

// KF's value for the transfer methods (it keeps float's precision: the methods compress it).
float kf_value(bool whole) {
  float v = float(ds_count_high()) * 4294967296.0 + float(ds_count());
  if (!whole) v += kf_fraction(ds_pixel, ds_count());
  return v;
}

// KF's slopes: the value's gradient along the angle darkens (> 0) or lightens (< 0).
vec3 kf_slopes(vec3 s) {
  vec2 g;
  if (int(differences + 0.5) == 7) {
    vec2 de = ds_de();
    float d2 = dot(de, de);
    if (d2 <= 0.0) return s;
    g = vec2(de.x, -de.y) / d2;  // 1 / (dex + i dey)
  } else {
    uvec2 c0 = kf_count_at(ds_pixel);
    float pc, pl, pr, pu, pd;
    kf_p(ds_pixel, c0, pc);
    bool l = kf_p(ds_pixel + ivec2(-1, 0), c0, pl), r = kf_p(ds_pixel + ivec2(1, 0), c0, pr);
    bool u = kf_p(ds_pixel + ivec2(0, -1), c0, pu), d = kf_p(ds_pixel + ivec2(0, 1), c0, pd);
    g.x = l ? pl - pc : r ? pc - pr : 0.0;
    g.y = u ? pu - pc : d ? pc - pd : 0.0;
  }
  float a = radians(slope_angle);
  float diff = dot(g, vec2(cos(a), sin(a))) * slope_power * float(ds_size.x) / 640.0;
  float t = atan(abs(diff)) / 1.5707963267948966 * slope_ratio / 100.0;
  return diff >= 0.0 ? (1.0 - t) * s : (1.0 - t) * s + t;
}

vec3 colour() {
  if (ds_interior()) return vec3(interior_red, interior_green, interior_blue) / 255.0;
  int m = int(color_method + 0.5);
  bool whole = flat_colour > 0.5;
  float per = ds_density / 32.0;  // 1 / (1024 IterDiv)
  float pos;
  if (m >= 5 && m <= 8) {
    // KF's transfer: fmax() takes the number over a NaN, the clamp passes a NaN (method 5 at a
    // corner: undefined in KF, entry 0 here).
    float it = kf_gradient() * float(ds_size.x) / 640.0;
    if (m == 8 || m == 6) it = sqrt(isnan(it) ? 0.0 : max(0.0, it));
    else if (m == 7) it = log(isnan(it) ? 1.0 : max(1.0, it + 1.0));
    if (it > 1024.0) it = 1024.0;
    if (isnan(it)) it = 0.0;
    float iter_div = 1.0 / (1024.0 * per);
    pos = (m == 6 && it > iter_div) ? kf_linear_position(whole) : it * per + ds_offset;
  } else if (m == 4) {
    // Stretched: KF maps its frame's lowest to highest whole count (below max_iter - 1) onto the
    // 1024 entries, 1024 (p - min) / (max - min), then IterDiv and ColorOffset as for the others.
    float span = kf_count_diff(ds_count_range_high, ds_count_range_low);
    float v = kf_count_diff(kf_count_at(ds_pixel), ds_count_range_low);
    if (!whole) v += kf_fraction(ds_pixel, ds_count());
    v = span > 0.0 ? 1024.0 * v / span : 0.0;  // one count in the frame: KF divides by 0; entry 0 here
    pos = v * per + ds_offset;
  } else if (m == 0) {
    pos = kf_linear_position(whole);
  } else {
    float v = kf_value(whole);
    if (m == 1) v = sqrt(max(0.0, v));
    else if (m == 2) v = pow(max(0.0, v), 1.0 / 3.0);
    else if (m == 3) v = log(max(1.0, v));
    else if (m == 9) v = log(1.0 + log(1.0 + v));
    else if (m == 10) v = atan(v);
    else if (m == 11) v = sqrt(sqrt(max(0.0, v)));
    pos = v * per + ds_offset;
  }
  pos += phase_strength / 100.0 * ds_phase();
  vec3 s = ds_palette(pos);
  return slopes > 0.5 ? kf_slopes(s) : s;
}
