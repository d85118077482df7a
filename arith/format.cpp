// Name table and traits lookup for the runtime format choice.
#include "format.h"

namespace ds {

const std::vector<Arith>& all_ariths() {
  static const std::vector<Arith> all = {
#define DEEPSCOPE_LIST(E, T) Arith::E,
      DEEPSCOPE_FOR_EACH_ARITH(DEEPSCOPE_LIST)
#undef DEEPSCOPE_LIST
  };
  return all;
}

FormatTraits arith_traits(Arith a) {
  return dispatch(a, [](auto tag) { return decltype(tag)::type::traits(); });
}

const char* arith_name(Arith a) { return arith_traits(a).name; }

Arith parse_arith(const std::string& name) {
  if (name == "dd") return Arith::kF64x2;
  if (name == "qd") return Arith::kF64x4;
  for (Arith a : all_ariths())
    if (name == arith_name(a)) return a;
  throw ArithError("unknown arithmetic \"" + name + "\"; valid: " + arith_names_joined() +
                   " (aliases dd = f64x2, qd = f64x4)");
}

std::string arith_names_joined() {
  std::string s;
  for (Arith a : all_ariths()) {
    if (!s.empty()) s += ", ";
    s += arith_name(a);
  }
  return s;
}

}  // namespace ds
