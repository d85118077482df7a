// The colouring shaders' shared part (GLSL 3.30 core), placed before every colouring shader: the
// frame's per-pixel data and the palette as uniforms, and the functions a colouring shader calls.
// A colouring shader defines `vec3 colour()`: the pixel's RGB in [0, 1]. Pixels the engine could not
// decide (count 0) are drawn magenta by main() whatever colour() says, so that no shader can hide them.
#version 330 core

uniform usampler2D ds_counts;  // escape count per pixel (R32UI); max_iter: interior, 0: undecided
uniform sampler2D ds_smooth;   // smooth (continuous) count per pixel (R32F)
uniform uint ds_max_iter;
uniform int ds_stops;          // palette stops in use (1 .. 16)
uniform vec3 ds_stop[16];      // the palette's stops, 0 .. 255 per channel, evenly around one cycle
uniform float ds_density;      // palette cycles per 32 iterations
uniform float ds_offset;       // palette shift in cycles
uniform ivec2 ds_size;         // the frame's width and height in pixels

out vec4 ds_fragment;
ivec2 ds_pixel;  // this pixel: column from the left, row from the top

uint ds_count() { return texelFetch(ds_counts, ds_pixel, 0).r; }
float ds_smooth_count() { return texelFetch(ds_smooth, ds_pixel, 0).r; }
bool ds_interior() { return ds_count() >= ds_max_iter; }

// The palette at position pos (cycles; wrapped to [0, 1)), 0 .. 255 per channel, each channel
// rounded as kernels/colour/palette.h's colour_pixel rounds it.
vec3 ds_palette_255(float pos) {
  pos -= floor(pos);
  float x = pos * float(ds_stops);
  int k = clamp(int(x), 0, ds_stops - 1);
  float f = x - float(k);
  vec3 a = ds_stop[k];
  vec3 b = ds_stop[k + 1 < ds_stops ? k + 1 : 0];
  vec3 t = a + (b - a) * f;
  vec3 r = floor(t + 0.5);
  r = mix(r, vec3(0.0), vec3(lessThan(t, vec3(0.0))));
  return mix(r, vec3(255.0), vec3(greaterThan(t, vec3(255.0))));
}
vec3 ds_palette(float pos) { return ds_palette_255(pos) / 255.0; }
// The position colour_pixel takes for this pixel: smooth * density / 32 + offset.
float ds_palette_position() { return ds_smooth_count() * ds_density / 32.0 + ds_offset; }
