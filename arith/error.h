// The one exception type of the arithmetic core: bad decimal strings, NaN/Inf where a format
// cannot hold them, values outside a fixed-point range, unknown format names.
#pragma once
#include <stdexcept>
#include <string>

namespace ds {

struct ArithError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace ds
