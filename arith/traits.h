// The traits record every number type publishes: name, precision, range and relative cost.
// Tests derive their tolerances from these numbers, and `auto` precision selection uses them.
#pragma once

namespace ds {

struct FormatTraits {
  const char* name;  // the format's name as used in the UI, CLI and files ("f64", "limb8", ...)
  int bits;          // significant bits (floating) or fraction bits (fixed)
  // Floating formats: unit roundoff u of one basic operation's relative error bound
  // (per-operation bounds are stated in each header as multiples of u).
  // Fixed formats: the resolution 2^-fraction_bits (the weight of the last bit).
  double eps;
  bool fixed;        // true for fixed point (absolute error), false for floating (relative error)
  double max_abs;    // values with |x| < max_abs are representable
  // Floating: smallest magnitude at which the stated relative precision still holds
  // (below it the low terms underflow). Fixed: equal to eps.
  double min_abs;
  double rel_cost;   // cost of one multiply relative to f64, as measured by `deepscope bench arith`
};

}  // namespace ds
