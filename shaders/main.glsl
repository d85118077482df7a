// The colouring shaders' main(), placed after the colouring shader: the pixel's place, the
// undecided-pixel marking, and the output. The target's row 0 is the frame's top row (a readback
// gives rows top to bottom, and the window's textures keep row 0 at the top).
void main() {
  vec3 c = ds_undecided() ? vec3(1.0, 0.0, 1.0) : clamp(colour(), 0.0, 1.0);
  ds_fragment = vec4(c, 1.0);
}
