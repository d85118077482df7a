// Formula names, parsing and printing, degrees, conjugation and KF's FractalType/Power numbering.
// The definitions and their sources are in docs/formulas.md.
#include "formula.h"

#include <cmath>
#include <sstream>

namespace ds::formula {
namespace {

struct OpName {
  Op op;
  const char* name;
};
constexpr OpName kOps[] = {{Op::kAbsX, "absx"}, {Op::kAbsY, "absy"}, {Op::kNegX, "negx"},
                           {Op::kNegY, "negy"}, {Op::kSqr, "sqr"},   {Op::kStore, "store"},
                           {Op::kMul, "mul"},   {Op::kAdd, "add"}};

// One named phase: its opcodes. Each is z -> g(z) + c with g written as abs/neg before or after
// the power (KF's formula.xml reference code, Fraktaler-3's phybrid1 for those it has):
struct Named {
  const char* name;
  const char* ops;
};
constexpr Named kNamed[] = {
    {"mandelbrot", "sqr add"},                            // KF type 0 power 2; F3 default
    {"mandelbrot3", "store sqr mul add"},                 // z^3 + c (KF type 0 power 3)
    {"mandelbrot4", "sqr sqr add"},                       // z^4 + c
    {"mandelbrot5", "store sqr sqr mul add"},             // z^5 + c
    {"mandelbrot6", "store sqr mul sqr add"},             // z^6 + c
    {"mandelbrot7", "store sqr mul sqr mul add"},         // z^7 + c
    {"mandelbrot8", "sqr sqr sqr add"},                   // z^8 + c
    {"burning-ship", "absx absy sqr add"},                // (|x| + i|y|)^2 + c: KF type 1; F3 abs_x abs_y
    {"burning-ship3", "absx absy store sqr mul add"},     // (|x| + i|y|)^3 + c: KF type 1 power 3
    {"mandelbar", "negy sqr add"},                        // conj(z)^2 + c: KF type 4; F3 neg_y
    {"celtic", "sqr absx add"},                           // |Re z^2| + i Im z^2 + c: KF type 3
    {"buffalo", "sqr absx absy add"},                     // |Re z^2| + i |Im z^2| + c: KF type 2
    {"mandelbar-celtic", "sqr absx negy add"},            // |Re z^2| - i Im z^2 + c: KF type 5
    {"perpendicular-mandelbrot", "absx negy sqr add"},    // (|x| - iy)^2 + c: KF type 6; F3 abs_x neg_y
    {"perpendicular-burning-ship", "absy negy sqr add"},  // (x - i|y|)^2 + c: KF type 7; F3 abs_y neg_y
    {"perpendicular-celtic", "absx negy sqr absx add"},   // KF type 8
    {"perpendicular-buffalo", "absy negy sqr absx add"},  // KF type 9
};
// Other spellings parse_formula takes.
constexpr Named kAliases[] = {
    {"tricorn", "mandelbar"}, {"mandelbrot2", "mandelbrot"}, {"burning-ship2", "burning-ship"}};

[[noreturn]] void bad(const std::string& what) { throw FormulaError("formula: " + what); }

std::string trim(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

std::string lower(std::string s) {
  for (char& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

Phase ops_phase(const std::string& text, const std::string& context) {
  Phase p;
  std::istringstream in(text);
  std::string word;
  while (in >> word) {
    const std::string w = lower(word);
    bool found = false;
    for (const OpName& o : kOps)
      if (w == o.name) {
        if (p.count == kFormulaMaxOps)
          bad(context + " has more than " + std::to_string(kFormulaMaxOps) + " opcodes");
        p.ops[p.count++] = o.op;
        found = true;
      }
    if (!found)
      bad("unknown formula or opcode \"" + word + "\" in " + context + " (names: " +
          [] {
            std::string s;
            for (const Named& n : kNamed) s += (s.empty() ? "" : ", ") + std::string(n.name);
            return s;
          }() +
          "; opcodes: absx absy negx negy sqr store mul add)");
  }
  return p;
}

const Named* named(const std::string& name) {
  std::string n = lower(trim(name));
  for (const Named& a : kAliases)
    if (n == a.name) n = a.ops;
  for (const Named& k : kNamed)
    if (n == k.name) return &k;
  return nullptr;
}

bool same_phase(const Phase& a, const Phase& b) {
  if (a.count != b.count) return false;
  for (int k = 0; k < a.count; ++k)
    if (a.ops[k] != b.ops[k]) return false;
  return true;
}

void check_phase(const Phase& p, const std::string& context) {
  if (p.count == 0) bad(context + " is empty");
  for (int k = 0; k + 1 < p.count; ++k)
    if (p.ops[k] == Op::kAdd) bad(context + ": \"add\" must come once, last (z -> g(z) + c)");
  if (p.ops[p.count - 1] != Op::kAdd) bad(context + " must end with \"add\" (z -> g(z) + c)");
  const int d = phase_degree(p);
  if (d < 2)
    bad(context + " has degree " + std::to_string(d) +
        "; at least 2 is needed (the escape radius 2 holds only then)");
  if (d > 64) bad(context + " has degree " + std::to_string(d) + "; at most 64");
}

}  // namespace

const char* op_name(Op op) {
  for (const OpName& o : kOps)
    if (o.op == op) return o.name;
  return "?";
}

int phase_degree(const Phase& p) {
  int d = 1, stored = 1;  // the phase starts with s = z
  for (int k = 0; k < p.count; ++k) {
    if (p.ops[k] == Op::kSqr) d *= 2;
    if (p.ops[k] == Op::kStore) stored = d;
    if (p.ops[k] == Op::kMul) d += stored;
    if (d > 1024) d = 1024;  // refused by check_phase anyway
  }
  return d;
}

double mean_degree(const Formula& f) {
  double s = 0;
  for (int k = 0; k < f.phases; ++k) s += std::log(static_cast<double>(phase_degree(f.phase[k])));
  return f.phases > 0 ? std::exp(s / f.phases) : 2.0;
}

Formula parse_formula(const std::string& text) {
  Formula f;
  if (trim(text).empty()) bad("empty formula (try mandelbrot, burning-ship, ...)");
  std::string rest = text;
  int k = 0;
  for (;;) {
    const size_t comma = rest.find(',');
    const std::string part = trim(rest.substr(0, comma));
    const std::string context = "phase " + std::to_string(k + 1) + " (\"" + part + "\")";
    if (k == kFormulaMaxPhases)
      bad("\"" + text + "\" has more than " + std::to_string(kFormulaMaxPhases) + " phases");
    if (part.empty()) bad(context + " is empty");
    const Named* n = named(part);
    f.phase[k] = ops_phase(n ? n->ops : part, context);
    check_phase(f.phase[k], context);
    ++k;
    if (comma == std::string::npos) break;
    rest = rest.substr(comma + 1);
  }
  f.phases = k;
  // The shortest repeating period of the phases iterates the same (phase n mod P = phase n mod p when
  // p divides P and the phases repeat with period p): "mandelbrot,mandelbrot" is z^2 + c.
  for (int p = 1; p < f.phases; ++p) {
    if (f.phases % p != 0) continue;
    bool repeats = true;
    for (int q = p; q < f.phases && repeats; ++q) repeats = same_phase(f.phase[q], f.phase[q % p]);
    if (repeats) {
      f.phases = p;
      break;
    }
  }
  return f;
}

std::string to_string(const Formula& f) {
  std::string s;
  for (int k = 0; k < f.phases; ++k) {
    std::string part;
    for (const Named& n : kNamed)
      if (same_phase(ops_phase(n.ops, n.name), f.phase[k])) {
        part = n.name;
        break;
      }
    if (part.empty())
      for (int q = 0; q < f.phase[k].count; ++q)
        part += (q ? " " : "") + std::string(op_name(f.phase[k].ops[q]));
    s += (k ? "," : "") + part;
  }
  return s;
}

std::vector<std::string> formula_names() {
  std::vector<std::string> v;
  for (const Named& n : kNamed) v.push_back(n.name);
  return v;
}

bool operator==(const Formula& a, const Formula& b) {
  if (a.phases != b.phases) return false;
  for (int k = 0; k < a.phases; ++k)
    if (!same_phase(a.phase[k], b.phase[k])) return false;
  return true;
}

bool is_mandelbrot(const Formula& f) { return f == parse_formula("mandelbrot"); }

Formula conjugated(const Formula& f) {
  Formula g;
  g.phases = f.phases;
  for (int k = 0; k < f.phases; ++k) {
    Phase& p = g.phase[k];
    for (int q = 0; q < f.phase[k].count; ++q) {
      const Op op = f.phase[k].ops[q];
      if (p.count + (op == Op::kAbsY ? 2 : 1) > kFormulaMaxOps)
        bad("phase " + std::to_string(k + 1) + " is too long to conjugate (a mirrored view)");
      p.ops[p.count++] = op;
      if (op == Op::kAbsY) p.ops[p.count++] = Op::kNegY;
    }
  }
  return g;
}

bool conjugation_symmetric(const Formula& f) {
  for (int k = 0; k < f.phases; ++k)
    for (int q = 0; q < f.phase[k].count; ++q)
      if (f.phase[k].ops[q] == Op::kAbsY) return false;
  return true;
}

namespace {
struct KfEntry {
  long type;
  long power;
  const char* name;
  const char* kf_name;
};
// KF 2.15's formula/formula.xml, <group type="..." name="..."> and its <formula power="...">.
constexpr KfEntry kKf[] = {
    {0, 2, "mandelbrot", "Mandelbrot"},
    {0, 3, "mandelbrot3", "Mandelbrot"},
    {0, 4, "mandelbrot4", "Mandelbrot"},
    {0, 5, "mandelbrot5", "Mandelbrot"},
    {0, 6, "mandelbrot6", "Mandelbrot"},
    {0, 7, "mandelbrot7", "Mandelbrot"},
    {0, 8, "mandelbrot8", "Mandelbrot"},
    {1, 2, "burning-ship", "Burning Ship"},
    {1, 3, "burning-ship3", "Burning Ship"},
    {2, 2, "buffalo", "Buffalo"},
    {3, 2, "celtic", "Celtic"},
    {4, 2, "mandelbar", "Mandelbar"},
    {5, 2, "mandelbar-celtic", "Mandelbar Celtic"},
    {6, 2, "perpendicular-mandelbrot", "Perpendicular Mandelbrot"},
    {7, 2, "perpendicular-burning-ship", "Perpendicular Burning Ship"},
    {8, 2, "perpendicular-celtic", "Perpendicular Celtic"},
    {9, 2, "perpendicular-buffalo", "Perpendicular Buffalo"},
};
}  // namespace

std::string kf_formula(long fractal_type, long power) {
  const char* kf_name = nullptr;
  std::string powers;
  for (const KfEntry& e : kKf)
    if (e.type == fractal_type) {
      if (e.power == power) return e.name;
      kf_name = e.kf_name;
      powers += (powers.empty() ? "" : ", ") + std::to_string(e.power);
    }
  if (kf_name)
    throw FormulaError("Power = " + std::to_string(power) +
                       " with FractalType = " + std::to_string(fractal_type) + " (" + kf_name +
                       "): deepscope computes this formula only with Power " + powers);
  throw FormulaError("FractalType = " + std::to_string(fractal_type) +
                     ": deepscope does not compute this KF formula (it computes FractalType 0 to 9: "
                     "Mandelbrot, Burning Ship, Buffalo, Celtic, Mandelbar, Mandelbar Celtic and the "
                     "four Perpendicular ones; docs/formulas.md)");
}

bool kf_fields(const Formula& f, long* fractal_type, long* power) {
  for (const KfEntry& e : kKf)
    if (f == parse_formula(e.name)) {
      *fractal_type = e.type;
      *power = e.power;
      return true;
    }
  return false;
}

}  // namespace ds::formula
