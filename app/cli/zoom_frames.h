// The frames of a zoom sequence (`render --frames N --zoom-to Z2`, `video`): their output names
// and their zooms, geometric from the start zoom to the end one along an easing curve.
#pragma once
#include <string>
#include <vector>

namespace ds::app {

// How the zoom's logarithm moves from the first frame to the last: t = (k - 1)/(N - 1) of frame k
// becomes e(t): linear t (a constant zoom factor per frame), smooth 3t^2 - 2t^3 (eases in and
// out), in t^2 (starts slowly), out 1 - (1 - t)^2 (ends slowly).
enum class Easing { kLinear, kSmooth, kIn, kOut };
// "linear", "smooth", "in", "out"; UsageError otherwise.
Easing parse_easing(const std::string& name);
const char* easing_name(Easing e);
double ease(Easing e, double t);

// Output name of frame k (1-based) of n: a printf pattern ("frame_%05d.png") gets k; otherwise
// "_%05d" goes before the extension. A single frame keeps the name as given (patterns get 1).
// UsageError for a pattern with other than one %d.
std::string frame_name(const std::string& path, int k, int n);

// Zooms of an n-frame sequence from z0 to z1 (both exact as given at the ends; validated
// decimals): log zoom = log z0 + ease(t) log(z1/z0), in MPFR, printed with 40 digits.
std::vector<std::string> frame_zooms(const std::string& z0, const std::string& z1, int n,
                                     Easing easing = Easing::kLinear);

}  // namespace ds::app
