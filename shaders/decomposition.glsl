// Built-in "decomposition": binary decomposition by the final z's phase: white where the final z
// lies in the upper half plane (phase in [0, 0.5)), black in the lower; interior black. With
// decomposition_mix > 0 the palette shows through (0: pure black and white, 1: the palette only).
// Needs the engine's phase (ds_phase).
uniform float decomposition_mix = 0.0;  // [range 0 1] palette mix; 0 black and white, 1 the palette only

vec3 colour() {
  if (ds_interior()) return vec3(0.0);
  vec3 bw = ds_phase() < 0.5 ? vec3(1.0) : vec3(0.0);
  return mix(bw, ds_palette(ds_palette_position()), clamp(decomposition_mix, 0.0, 1.0));
}
