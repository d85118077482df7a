// Built-in "distance": distance-estimate boundary shading. The palette colour is scaled by
// min(|DE| / de_pixels, 1): black on the boundary, the plain palette from de_pixels pixels away.
// Interior black. Needs the engine's distance estimate (ds_de).
uniform float de_pixels = 2.0;  // [range 0.1 50] fade width; distance in pixels over which the boundary fades to the palette

vec3 colour() {
  if (ds_interior()) return vec3(0.0);
  float shade = clamp(length(ds_de()) / max(de_pixels, 1e-6), 0.0, 1.0);
  return ds_palette(ds_palette_position()) * shade;
}
