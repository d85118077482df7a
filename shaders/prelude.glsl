// The colouring shaders' shared part (GLSL 3.30 core), placed before every colouring shader: the
// frame's per-pixel data and the palette as uniforms, and the functions a colouring shader calls.
// A colouring shader defines `vec3 colour()`: the pixel's RGB in [0, 1]. Pixels the engine could not
// decide (count 0) are drawn magenta by main() whatever colour() says, so that no shader can hide them.
// A shader's own parameters are `uniform float NAME = DEFAULT;` (render --shader-param NAME=VALUE).
// The data a shader reads decides what the engine computes: ds_de() asks for the distance estimate
// ds_phase() for the final phase, ds_stripe() for the stripe average and ds_sqrt_smooth_at() for KF's
// square-root smoothing (render/colour_shader.h finds them by the active samplers).
#version 330 core
// Doubles, where the GL has them, for wide counts (ds_palette_position); a float fallback otherwise.
#extension GL_ARB_gpu_shader_fp64 : enable
// The prelude's lines from 100000 on, so that compiler messages below that are the user's file's.
#line 100000

uniform usampler2D ds_counts;       // escape count per pixel (R32UI; the low word when wide)
uniform usampler2D ds_counts_high;  // wide frames (max_iter >= 2^32): the counts' high words
uniform sampler2D ds_smooth;        // smooth count (R32F); wide frames: smooth count - count
uniform sampler2D ds_dex, ds_dey;   // the distance estimate's vector in pixels (x right, y down)
uniform sampler2D ds_phase_tex;     // arg(final z) / 2 pi in [0, 1)
uniform sampler2D ds_stripe_tex;    // the stripe average, -1 - S where approximate (fields.cuh)
uniform sampler2D ds_sqrt_smooth_tex;  // KF's square-root smoothing fraction (fields.cuh: sqrt_smooth_fraction)
uniform sampler2D ds_palette_tex;   // the palette's stops (RGB 0 .. 255), ds_stops x 1 texels
uniform bool ds_wide;
uniform uvec2 ds_max_iter;          // (low word, high word)
uniform int ds_stops;               // palette stops in use (1 .. 1024)
uniform float ds_density;           // palette cycles per 32 iterations
uniform float ds_offset;            // palette shift in cycles
uniform bool ds_blend;              // false: each stop's colour up to the next (KF's Smooth: 0)
uniform ivec2 ds_size;              // the frame's width and height in pixels
// The count's scale (kernels/colour/palette.h, CountScale): false linear, true log above the frame's
// lowest escaped count ds_log_base (low word, high word) + ds_log_base_fraction, and the frame's
// spread of counts ds_log_scale_iterations (render/frame_stats.h).
uniform bool ds_log_scale;
uniform uvec2 ds_log_base;
uniform float ds_log_base_fraction;
uniform float ds_log_scale_iterations;
// The frame's lowest and highest whole counts over the pixels below max_iter - 1 (Kalles Fraktaler's
// GetIterations(..., TRUE)), (low word, high word); found only for a shader that reads them.
uniform uvec2 ds_count_range_low, ds_count_range_high;

out vec4 ds_fragment;
// This pixel: column from the left, row from the top (the target's row 0 is the frame's top row).
#define ds_pixel ivec2(gl_FragCoord.xy)

// The count's low word (all of it for a narrow frame) and high word.
uint ds_count() { return texelFetch(ds_counts, ds_pixel, 0).r; }
uint ds_count_high() { return ds_wide ? texelFetch(ds_counts_high, ds_pixel, 0).r : 0u; }
bool ds_undecided() { return ds_count() == 0u && ds_count_high() == 0u; }
bool ds_interior() {
  uint hi = ds_count_high();
  return hi > ds_max_iter.y || (hi == ds_max_iter.y && ds_count() >= ds_max_iter.x);
}
// The smooth (continuous) iteration count; for a wide frame in float, so only to float's 24 bits.
float ds_smooth_count() {
  float s = texelFetch(ds_smooth, ds_pixel, 0).r;
  return ds_wide ? float(ds_count_high()) * 4294967296.0 + float(ds_count()) + s : s;
}
// The distance estimate's vector in pixels, pointing away from the set; 0 where no escape.
vec2 ds_de() { return vec2(texelFetch(ds_dex, ds_pixel, 0).r, texelFetch(ds_dey, ds_pixel, 0).r); }
// arg(final z) / 2 pi in [0, 1); 0 where no escape.
float ds_phase() { return texelFetch(ds_phase_tex, ds_pixel, 0).r; }
// The stripe average S in [0, 1] (render --stripe-density, --stripe-memory); 0 where no escape.
float ds_stripe() {
  float s = texelFetch(ds_stripe_tex, ds_pixel, 0).r;
  return s >= 0.0 ? s : -1.0 - s;
}
// True where BLA steps near the escape leave S approximate by more than 1/512.
bool ds_stripe_approximate() { return texelFetch(ds_stripe_tex, ds_pixel, 0).r < 0.0; }
// Kalles Fraktaler's square-root smoothing at pixel q: 1 - (|z_n| - 2) / (|z_n| - |z_(n-1)|) in
// [0, 1], so KF's value is count + it; 0 where no escape.
float ds_sqrt_smooth_at(ivec2 q) { return texelFetch(ds_sqrt_smooth_tex, q, 0).r; }

// The palette at position pos (cycles; wrapped to [0, 1)), 0 .. 255 per channel, each channel
// rounded as kernels/colour/palette.h's colour_pixel rounds it.
vec3 ds_palette_255(float pos) {
  pos -= floor(pos);
  float x = pos * float(ds_stops);
  int k = clamp(int(x), 0, ds_stops - 1);
  float f = ds_blend ? x - float(k) : 0.0;
  vec3 a = texelFetch(ds_palette_tex, ivec2(k, 0), 0).rgb;
  vec3 b = texelFetch(ds_palette_tex, ivec2(k + 1 < ds_stops ? k + 1 : 0, 0), 0).rgb;
  vec3 t = a + (b - a) * f;
  vec3 r = floor(t + 0.5);
  r = mix(r, vec3(0.0), vec3(lessThan(t, vec3(0.0))));
  return mix(r, vec3(255.0), vec3(greaterThan(t, vec3(255.0))));
}
vec3 ds_palette(float pos) { return ds_palette_255(pos) / 255.0; }
// CountScale::kLog's position (colour::log_position): density * 2 ln(1 + d / s) + offset, d this
// pixel's smooth count less the frame's lowest, s the frame's spread; the counts' difference taken
// exactly in integers.
float ds_log_position() {
  uint lo = ds_count(), hi = ds_count_high();
  uint blo = ds_log_base.x, bhi = ds_log_base.y;
  float s = texelFetch(ds_smooth, ds_pixel, 0).r;
  float fraction = ds_wide ? s : s - float(lo);
  float d;
  if (hi > bhi || (hi == bhi && lo >= blo)) {
    uint dh = hi - bhi - (lo < blo ? 1u : 0u);
    d = float(dh) * 4294967296.0 + float(lo - blo);
  } else {
    uint dh = bhi - hi - (blo < lo ? 1u : 0u);
    d = -(float(dh) * 4294967296.0 + float(blo - lo));
  }
  d += fraction - ds_log_base_fraction;
  return ds_density * 2.0 * log(1.0 + max(d, 0.0) / ds_log_scale_iterations) + ds_offset;
}
// The position colour_pixel takes for this pixel: smooth * density / 32 + offset. A wide frame's as
// colour_pixel_wide's: the count's whole cycles dropped in double before the fraction is added.
// With the log scale, ds_log_position().
float ds_palette_position() {
  if (ds_log_scale) return ds_log_position();
  if (!ds_wide) return texelFetch(ds_smooth, ds_pixel, 0).r * ds_density / 32.0 + ds_offset;
  float fraction = texelFetch(ds_smooth, ds_pixel, 0).r;
#ifdef GL_ARB_gpu_shader_fp64
  double per = double(ds_density) / 32.0LF;
  double count = double(ds_count_high()) * 4294967296.0LF + double(ds_count());
  double cycles = count * per;
  cycles -= floor(cycles);
  return float(cycles + double(fraction) * per + double(ds_offset));
#else
  // Without doubles: the high word's whole cycles are dropped first (exact while density/32 * 2^32
  // is a whole number, as for density 1), then the low word's; the rest to float's precision.
  float per = ds_density / 32.0;
  float hi_cycles = fract(float(ds_count_high()) * fract(4294967296.0 * per));
  float lo = float(ds_count());
  float lo_cycles = fract(lo * per);
  return fract(hi_cycles + lo_cycles) + fraction * per + ds_offset;
#endif
}
