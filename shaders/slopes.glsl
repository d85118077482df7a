// Built-in "slopes": Kalles Fraktaler's Slopes (fraktal_sft.cpp, analytic differences): the surface's
// gradient is 1 / DE (the distance estimate as a complex number in pixels); with
// d = gradient . (cos a, sin a) * slope_power * width / 640, a = slope_angle, the palette colour is
// darkened where d > 0 and lightened towards white where d < 0, by atan(|d|) / (pi / 2) scaled by
// slope_ratio / 100 (KF's signs). KF's .kfr keys SlopePower, SlopeRatio, SlopeAngle are these three.
uniform float slope_power = 50.0;  // [range 1 500] slope power; KF's SlopePower
uniform float slope_ratio = 50.0;  // [range 0 100] slope ratio %; KF's SlopeRatio
uniform float slope_angle = 45.0;  // [range -180 180] slope angle; KF's SlopeAngle, degrees

vec3 colour() {
  if (ds_interior()) return vec3(0.0);
  vec3 s = ds_palette(ds_palette_position());
  vec2 de = ds_de();
  float d2 = dot(de, de);
  if (d2 <= 0.0) return s;
  vec2 grad = vec2(de.x, -de.y) / d2;  // 1 / (dex + i dey)
  float a = radians(slope_angle);
  float diff = dot(grad, vec2(cos(a), sin(a))) * slope_power * float(ds_size.x) / 640.0;
  float t = atan(abs(diff)) / 1.57079632679 * slope_ratio / 100.0;
  return diff >= 0.0 ? (1.0 - t) * s : (1.0 - t) * s + t;
}
