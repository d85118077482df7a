// The runtime choice of number type: one enum, one name table, and the one dispatch that every
// workspace uses to turn an Arith value into a compile-time type.
#pragma once
#include <string>
#include <vector>

#include "composite.h"
#include "error.h"
#include "expansion.h"
#include "ff.h"
#include "fx128.h"
#include "limb.h"
#include "native.h"
#include "traits.h"

namespace ds {

enum class Arith : int {
  kF32, kF64, kComposite, kFF,
  kF64x2, kF64x3, kF64x4, kF64x5, kF64x6, kF64x7, kF64x8,
  kFx128,
  kLimb4, kLimb6, kLimb8, kLimb12, kLimb16, kLimb24, kLimb32,
};

// X(enumerator, C++ type) for every compiled format, in order of the enum. Used for explicit
// template instantiation in each kernel family's .cu/.cpp and for the dispatch below.
#define DEEPSCOPE_FOR_EACH_ARITH(X)                                                       \
  X(kF32, ::ds::F32) X(kF64, ::ds::F64) X(kComposite, ::ds::Composite) X(kFF, ::ds::FloatFloat) \
  X(kF64x2, ::ds::Expansion<2>) X(kF64x3, ::ds::Expansion<3>) X(kF64x4, ::ds::Expansion<4>)   \
  X(kF64x5, ::ds::Expansion<5>) X(kF64x6, ::ds::Expansion<6>) X(kF64x7, ::ds::Expansion<7>)   \
  X(kF64x8, ::ds::Expansion<8>) X(kFx128, ::ds::Fx128)                                        \
  X(kLimb4, ::ds::Limb<4>) X(kLimb6, ::ds::Limb<6>) X(kLimb8, ::ds::Limb<8>)                  \
  X(kLimb12, ::ds::Limb<12>) X(kLimb16, ::ds::Limb<16>) X(kLimb24, ::ds::Limb<24>)            \
  X(kLimb32, ::ds::Limb<32>)

template <class T>
struct TypeTag {
  using type = T;
};

// Calls f(TypeTag<T>{}) with the type that `a` names. An out-of-range value throws ArithError.
template <class F>
decltype(auto) dispatch(Arith a, F&& f) {
  switch (a) {
#define DEEPSCOPE_DISPATCH_CASE(E, T) \
  case Arith::E:                      \
    return f(TypeTag<T>{});
    DEEPSCOPE_FOR_EACH_ARITH(DEEPSCOPE_DISPATCH_CASE)
#undef DEEPSCOPE_DISPATCH_CASE
  }
  throw ArithError("unknown arithmetic value " + std::to_string(static_cast<int>(a)));
}

// Every format, in enum order.
const std::vector<Arith>& all_ariths();
// The canonical name ("f64x2", "limb8", ...).
const char* arith_name(Arith a);
// The traits of a format.
FormatTraits arith_traits(Arith a);
// Parses a name or alias ("dd" = f64x2, "qd" = f64x4), case-sensitive. Throws ArithError listing
// the valid names for anything else.
Arith parse_arith(const std::string& name);
// "f32, f64, composite, ..." for help texts and error messages.
std::string arith_names_joined();

}  // namespace ds
