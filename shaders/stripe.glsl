// Built-in "stripe": the stripe average (Haerkoenen 2007) as the engines compute it for deep zooms
// (kernels/mandelbrot/fields.cuh, StripeAcc: sin(density arg z) averaged with a fall-off a step
// back from the escape; `render --stripe-density D --stripe-memory M`). The palette colour by the
// smooth count is brightened and darkened by the stripe value: (1 - stripe_mix) + stripe_mix * S.
// Interior black. Where BLA steps near the escape make S approximate (render's summary and the
// PNG count them), show_approximate = 1 tints those pixels cyan so they can be seen.
uniform float stripe_mix = 0.8;        // [range 0 1] stripe mix; 0: the plain palette, 1: black where S = 0
uniform float stripe_cycles = 0.0;     // [range 0 8] stripe cycles; > 0: the palette position moves by S * stripe_cycles too
uniform float show_approximate = 0.0;  // [bool] show approximate; tint cyan the pixels whose stripe average BLA left approximate

vec3 colour() {
  if (ds_interior()) return vec3(0.0);
  float s = ds_stripe();
  vec3 c = ds_palette(ds_palette_position() + s * stripe_cycles);
  c *= (1.0 - stripe_mix) + stripe_mix * s;
  if (show_approximate > 0.5 && ds_stripe_approximate()) c = mix(c, vec3(0.0, 1.0, 1.0), 0.5);
  return c;
}
