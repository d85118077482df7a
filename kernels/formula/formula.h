// Escape-time formulas as data (issue 45): a formula is one to kFormulaMaxPhases phases, each a short
// opcode sequence in the style of Fraktaler-3's hybrids (abs x, abs y, neg x, neg y, square, store,
// multiply by the stored value, add c). Names, parsing, KF's FractalType/Power, and the checks.
// The per-pixel step is step.h (host + device); the direct binary64 render and the MPFR orbit are
// direct.h and mpfr_orbit.h. docs/formulas.md.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "arith/error.h"

namespace ds::formula {

// Bad formula text, an unknown name, a KF field this program does not compute: an ArithError, so
// the program maps it to exit code 2 like other bad input.
struct FormulaError : ArithError {
  using ArithError::ArithError;
};

// One operation on z = x + iy (s: the stored value; c: the pixel):
//   kAbsX x = |x|   kAbsY y = |y|   kNegX x = -x   kNegY y = -y
//   kSqr  z = z^2   kStore s = z    kMul  z = z s  kAdd  z = z + c
// A phase starts with s = z (Fraktaler-3's hybrid_plain), so "mul" before any "store" multiplies by
// the phase's input.
enum class Op : uint8_t { kAbsX, kAbsY, kNegX, kNegY, kSqr, kStore, kMul, kAdd };
const char* op_name(Op op);  // "absx", "absy", "negx", "negy", "sqr", "store", "mul", "add"

constexpr int kFormulaMaxPhases = 8;
constexpr int kFormulaMaxOps = 24;  // per phase: power 8 by squaring takes 5, abs/neg 4 more

struct Phase {
  int count = 0;
  Op ops[kFormulaMaxOps] = {};
};

// A plain struct (no pointers), copied by value to wherever the step runs (a CUDA kernel's
// parameters too). Iteration (docs/formulas.md): z_1 = c and z_{n+1} = phase[n mod phases](z_n),
// so phase 0 makes z_1 from z_0 = 0 as in Fraktaler-3 (its n-th step uses opss[n % size]).
struct Formula {
  int phases = 0;
  Phase phase[kFormulaMaxPhases] = {};
};

// What parse_formula accepts, each phase separated by ',':
//   a name: mandelbrot, mandelbrot3 .. mandelbrot8, burning-ship, burning-ship3, mandelbar (tricorn),
//           celtic, buffalo, mandelbar-celtic, perpendicular-mandelbrot, perpendicular-burning-ship,
//           perpendicular-celtic, perpendicular-buffalo;
//   or an opcode list separated by spaces: "absx absy sqr add".
// "mandelbrot,burning-ship" alternates the two, a step each; phases that repeat are kept once per
// period ("a,b,a,b" is "a,b"; "mandelbrot,mandelbrot" is "mandelbrot"). Every phase must end with its only
// "add" and have degree >= 2 (checked: the escape radius 2 holds then, docs/formulas.md). Throws
// FormulaError naming the unknown name or the bad phase.
Formula parse_formula(const std::string& text);

// The canonical text: each phase's name where it has one, else its opcodes; phases joined by ','.
// parse_formula(to_string(f)) == f.
std::string to_string(const Formula& f);

// The named formulas, in the order docs/formulas.md lists them (names as parse_formula takes them).
std::vector<std::string> formula_names();

// The degree d of a phase: |phase(z) - c| = |z|^d for every z (abs and neg keep |z|, sqr doubles the
// degree, mul adds the stored one).
int phase_degree(const Phase& p);
// The geometric mean of the phases' degrees (the smooth count's base).
double mean_degree(const Formula& f);

bool operator==(const Formula& a, const Formula& b);
inline bool operator!=(const Formula& a, const Formula& b) { return !(a == b); }

// Plain z^2 + c (one phase: sqr add): what the Mandelbrot engines compute.
bool is_mandelbrot(const Formula& f);

// The formula g with g's orbit of conj(c) = conj(f's orbit of c) step for step: every "absy"
// becomes "absy negy" (conj commutes with every other op). Renders a mirrored view (apply_to_view
// folds a mirror into the conjugate view, which is right only for conjugation-symmetric formulas).
Formula conjugated(const Formula& f);
// Whether conjugated(f) iterates like f (no absy in any phase): then the set is symmetric about
// the real axis.
bool conjugation_symmetric(const Formula& f);

// Kalles Fraktaler 2's FractalType and Power (formula/formula.xml's <group type> numbering) as a
// formula text for parse_formula. Supported: type 0 power 2..8 (Mandelbrot), 1 power 2..3 (Burning
// Ship), 2 Buffalo, 3 Celtic, 4 Mandelbar, 5 Mandelbar Celtic, 6 Perpendicular Mandelbrot, 7
// Perpendicular Burning Ship, 8 Perpendicular Celtic, 9 Perpendicular Buffalo (power 2). Throws
// FormulaError naming FractalType (unsupported type) or Power (unsupported power of a known type).
std::string kf_formula(long fractal_type, long power);
// The inverse for writing .kfr files: true with *type and *power when f is one of the above.
bool kf_fields(const Formula& f, long* fractal_type, long* power);

}  // namespace ds::formula
