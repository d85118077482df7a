// The render tests' OpenGL context (render/headless_gl.h): made current on this thread, or the test
// failed with the packages to install and nullptr returned (the caller returns at once).
#pragma once
#include <gtest/gtest.h>

#include <memory>

#include "render/headless_gl.h"

namespace ds::test {

// cuda_device >= 0 prefers the EGL device that drives that CUDA device (HeadlessGl's constructor).
inline std::unique_ptr<render::HeadlessGl> headless_context(int cuda_device = -1) {
  try {
    return std::make_unique<render::HeadlessGl>(cuda_device);
  } catch (const render::GlUnavailable& e) {
    ADD_FAILURE() << "no headless OpenGL (./setup.sh installs libegl1 and libegl-mesa0): " << e.what();
    return nullptr;
  }
}

}  // namespace ds::test
