// The frame's lowest escaped smooth count and its spread (colour::CountScale::kLog's base and scale,
// kernels/colour/palette.h), and its whole-count range (KF's ColorMethod 4), found on the GL from the
// colouring shader's data textures, so that the window (whose data may never pass through host
// memory) and a batch render find them the same way.
#pragma once
#include <cstdint>
#include <vector>

#include "kernels/colour/palette.h"

namespace ds::render {

// A small GL program, made in the current context on first use: each fragment of a target of
// (w / 16) x (h / 16) texels takes the lowest escaped count of its 16 x 16 block, and the host
// takes the base and scale from those (colour::log_base_from_blocks). Equal to colour::log_base_of
// over the same arrays (tests/render/test_log_scale.cpp).
class FrameLowest {
 public:
  FrameLowest() = default;
  ~FrameLowest();
  FrameLowest(const FrameLowest&) = delete;
  FrameLowest& operator=(const FrameLowest&) = delete;

  // counts (R32UI), smooth (R32F) and, for a wide frame, high words (R32UI): w x h textures.
  // Leaves the GL's program, framebuffer, vertex array and viewport as they were. Throws
  // ShaderError (colour_shader.h) on a GL error.
  colour::LogBase find(unsigned counts, unsigned smooth, unsigned high, int w, int h, bool wide,
                       uint64_t max_iter);
  // The lowest and highest whole counts over the pixels with 0 < count < limit (Kalles Fraktaler's
  // GetIterations(nMin, nMax, ..., TRUE), with limit = max_iter - 1: ColorMethod 4's range). False,
  // leaving them, when there is no such pixel.
  bool count_range(unsigned counts, unsigned smooth, unsigned high, int w, int h, bool wide, uint64_t limit,
                   uint64_t* low, uint64_t* highest);

 private:
  // Each 16 x 16 block's lowest escaped count (or highest whole count) below max_iter, with its
  // fraction, for the blocks that have one.
  std::vector<colour::LogBase> blocks(unsigned counts, unsigned smooth, unsigned high, int w, int h,
                                      bool wide, uint64_t max_iter, bool highest);
  unsigned program_ = 0, vao_ = 0, fb_ = 0, out_ = 0;
  int out_w_ = 0, out_h_ = 0;
};

}  // namespace ds::render
