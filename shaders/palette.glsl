// Built-in "palette": the cyclic palette by the smooth count, interior black (kernels/colour's
// colour_pixel, to the rounding of each channel).
vec3 colour() {
  if (ds_interior()) return vec3(0.0);
  return ds_palette(ds_palette_position());
}
