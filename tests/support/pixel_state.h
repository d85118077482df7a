// A pixel's iteration (mandelbrot.cuh's PixelState) started at a c given directly, for the tests that
// drive pixel_run themselves (test_blocks, test_periodicity).
#pragma once
#include "kernels/mandelbrot/mandelbrot.cuh"

namespace ds::test {

// The state pixel_begin gives a pixel at c = (cr, ci) that is not finished at once: z_1 = c, n = 1,
// the periodicity check's first save at n = 64, the error estimate e1 (MandelParams::bound_e1).
template <class T>
mandel::PixelState<T> started_pixel(const T& cr, const T& ci, double e1 = 0.0) {
  mandel::PixelState<T> s{};
  s.cr = cr;
  s.ci = ci;
  s.cr_d = to_double(cr);
  s.ci_d = to_double(ci);
  s.x = cr;
  s.y = ci;
  s.n = 1;
  s.escaped = false;
  s.sx = cr;
  s.sy = ci;
  s.next_save = 64;
  s.e2 = e1;
  s.se2 = e1;
  s.undecided = false;
  return s;
}

}  // namespace ds::test
