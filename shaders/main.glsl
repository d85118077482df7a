// The colouring shaders' main(), placed after the colouring shader: the pixel's place, the
// undecided-pixel marking, and the output.
void main() {
  ds_pixel = ivec2(gl_FragCoord.xy);
  ds_pixel.y = ds_size.y - 1 - ds_pixel.y;  // data row 0 is the image's top row
  vec3 c = ds_count() == 0u ? vec3(1.0, 0.0, 1.0) : clamp(colour(), 0.0, 1.0);
  ds_fragment = vec4(c, 1.0);
}
