// The GL renderer string for `deepscope info`: opens a hidden window when a display exists.
#pragma once
#include <string>

namespace ds::app {

// "NVIDIA H100/PCIe/SSE2, OpenGL 4.6.0 ...", or why there is none (no display, built without GUI).
std::string gl_renderer_description();

}  // namespace ds::app
