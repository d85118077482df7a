// The formulas' BLA table (bla.h): one iteration's entry from its phase's opcodes, and the merge,
// both carrying the bound on what the linear step drops (docs/perturbation/formulas.md, "BLA for formulas").
#include "bla.h"

#include <algorithm>
#include <cmath>

#include "kernels/perturb/bla_levels.h"

namespace ds::formula {
namespace {

constexpr double u = 0x1p-53, uz = 1.0 + 0x1p-50, eta = 0x1p-1070;
constexpr double kDown = 1.0 - 0x1p-40, kUp = 1.0 + 0x1p-40;  // radii rounded down, bounds up

double fro(const double (&m)[4]) { return std::sqrt(m[0] * m[0] + m[1] * m[1] + m[2] * m[2] + m[3] * m[3]); }

// An upper bound of the spectral norm of a 2x2 matrix: sigma^2 = (F^2 + sqrt(F^4 - 4 det^2)) / 2,
// the radicand widened by its roundings (16u F^4) so that cancellation cannot make it small.
double opnorm(const double (&m)[4]) {
  const double f2 = m[0] * m[0] + m[1] * m[1] + m[2] * m[2] + m[3] * m[3];
  const double det = m[0] * m[3] - m[1] * m[2];
  const double disc = std::max(0.0, f2 * f2 - 4.0 * det * det) + 16.0 * u * f2 * f2;
  return std::sqrt(0.5 * (f2 + std::sqrt(disc))) * kUp;
}

// A x for 2x2 matrices (row-major): out = a x.
void matmul(const double (&a)[4], const double (&x)[4], double (&out)[4]) {
  double t[4];
  t[0] = a[0] * x[0] + a[1] * x[2];
  t[1] = a[0] * x[1] + a[1] * x[3];
  t[2] = a[2] * x[0] + a[3] * x[2];
  t[3] = a[2] * x[1] + a[3] * x[3];
  for (int i = 0; i < 4; ++i) out[i] = t[i];
}

// A delta inside a phase as a function of the phase's input d and dc: A d + B dc + e, |e| <= ea|d| +
// eb|dc|.
struct Lin {
  double a[4] = {1, 0, 0, 1}, b[4] = {0, 0, 0, 0};
  double ea = 0, eb = 0;
  double ca() const { return opnorm(a) + ea; }  // |delta| <= ca |d| + cb |dc|
  double cb() const { return opnorm(b) + eb; }
};

// The builder's entry: the pixel's fields, and the escape tests it steps over. zstart >= |Z_m| +
// |Z~_m - Z_m| at its first index; zmax >= |z| at every later index it steps over (0: none).
struct Node {
  FormulaBlaEntry e;
  double zstart = 0, zmax = 0;
};

// The largest |d| with ca |d| + cb dcmax < rho (rho <= 0: none, 0).
double radius_for(double rho, double ca, double cb, double dcmax) {
  if (!(rho > 0)) return 0;
  const double room = rho - cb * dcmax * kUp;
  if (!(room > 0)) return 0;
  if (ca == 0) return HUGE_VAL;
  return room / ca * kDown;
}

// complex w times the rows of m: M(w) m with M(w) = [wr -wi; wi wr].
void cmul_rows(double wr, double wi, const double (&m)[4], double (&out)[4]) {
  double t[4];
  t[0] = wr * m[0] - wi * m[2];
  t[1] = wr * m[1] - wi * m[3];
  t[2] = wi * m[0] + wr * m[2];
  t[3] = wi * m[1] + wr * m[3];
  for (int i = 0; i < 4; ++i) out[i] = t[i];
}

}  // namespace

FormulaBlaTable build_formula_bla(const Formula& f, const FormulaReference& ref, double dcmax) {
  FormulaBlaTable t;
  t.dcmax = dcmax;
  const uint64_t len = ref.length;
  if (len < 3) return t;
  const uint64_t P = static_cast<uint64_t>(f.phases);
  const double eps = perturb::kBlaEpsilon;
  const auto state = [&](uint64_t m) { return (m / P) * ref.period_states + ref.prefix[m % P]; };
  // Iteration m's entry: its phase's opcodes applied to the linear model of the delta (Lin), each
  // adding the constraint on |d| that keeps its dropped terms small (sqr, mul) or keeps the delta
  // off the fold (absx, absy), and its dropped terms and the reference's error to ea, eb.
  const auto single = [&](std::size_t k) {
    const uint64_t m = k + 1, q = state(m);
    const Phase& ph = f.phase[m % P];
    const double em = ref.err[m] + eta;
    const auto dstate = [&](double wx, double wy) { return u * uz * std::hypot(wx, wy) + em; };
    Lin x, s;
    double Sx = ref.wr[q], Sy = ref.wi[q];
    double R = HUGE_VAL;
    for (int j = 0; j < ph.count; ++j) {
      const double Wx = ref.wr[q + j], Wy = ref.wi[q + j];
      switch (ph.ops[j]) {
        case Op::kAbsX:
        case Op::kAbsY: {
          // The exact delta keeps the sign of X + delta as X's while |delta| < |X~| - |X~ - X|:
          // then |X + delta| - |X| = sign(X~) delta exactly (nothing dropped, no error added).
          const bool ax = ph.ops[j] == Op::kAbsX;
          const double X = ax ? Wx : Wy;
          const double dX = u * uz * std::fabs(X) + em;
          R = std::min(R, radius_for((std::fabs(X) - dX) * kDown, x.ca(), x.cb(), dcmax));
          if (X < 0) {
            const int r0 = ax ? 0 : 2;
            x.a[r0] = -x.a[r0];
            x.a[r0 + 1] = -x.a[r0 + 1];
            x.b[r0] = -x.b[r0];
            x.b[r0 + 1] = -x.b[r0 + 1];
          }
          break;
        }
        case Op::kNegX:
        case Op::kNegY: {
          const int r0 = ph.ops[j] == Op::kNegX ? 0 : 2;
          x.a[r0] = -x.a[r0];
          x.a[r0 + 1] = -x.a[r0 + 1];
          x.b[r0] = -x.b[r0];
          x.b[r0 + 1] = -x.b[r0 + 1];
          break;
        }
        case Op::kSqr: {
          // delta' = 2W delta + delta^2 (W exact): against 2W~ delta_lin the difference is
          // 2|W~| e + 2|W~ - W| |delta| + |delta|^2, and |delta|^2 <= rho |delta| for |delta| < rho.
          const double aw = std::hypot(Wx, Wy), dW = dstate(Wx, Wy), rho = eps * aw;
          const double ca = x.ca(), cb = x.cb();
          R = std::min(R, radius_for(rho, ca, cb, dcmax));
          const double rnd = 3.1 * u * 2.0 * aw;  // M(2W~) rows: two products and a sum
          x.ea = (2.0 * aw * x.ea + (2.0 * dW + rho) * ca + rnd * fro(x.a)) * kUp;
          x.eb = (2.0 * aw * x.eb + (2.0 * dW + rho) * cb + rnd * fro(x.b)) * kUp;
          cmul_rows(2.0 * Wx, 2.0 * Wy, x.a, x.a);
          cmul_rows(2.0 * Wx, 2.0 * Wy, x.b, x.b);
          break;
        }
        case Op::kStore:
          s = x;
          Sx = Wx;
          Sy = Wy;
          break;
        case Op::kMul: {
          // delta' = W s + S delta + delta s: the dropped delta s is <= rho |s| for |delta| < rho.
          const double aw = std::hypot(Wx, Wy), as = std::hypot(Sx, Sy);
          const double dW = dstate(Wx, Wy), dS = dstate(Sx, Sy), rho = eps * aw;
          const double ca = x.ca(), cb = x.cb(), cas = s.ca(), cbs = s.cb();
          R = std::min(R, radius_for(rho, ca, cb, dcmax));
          const double rw = 4.6 * u * aw, rs = 4.6 * u * as;
          const double ea = (aw * s.ea + as * x.ea + (dW + rho) * cas + dS * ca + rw * fro(s.a) + rs * fro(x.a)) * kUp;
          const double eb = (aw * s.eb + as * x.eb + (dW + rho) * cbs + dS * cb + rw * fro(s.b) + rs * fro(x.b)) * kUp;
          double t1[4], t2[4];
          cmul_rows(Wx, Wy, s.a, t1);
          cmul_rows(Sx, Sy, x.a, t2);
          for (int i = 0; i < 4; ++i) x.a[i] = t1[i] + t2[i];
          cmul_rows(Wx, Wy, s.b, t1);
          cmul_rows(Sx, Sy, x.b, t2);
          for (int i = 0; i < 4; ++i) x.b[i] = t1[i] + t2[i];
          x.ea = ea;
          x.eb = eb;
          break;
        }
        case Op::kAdd:
          x.eb = (x.eb + u * (fro(x.b) + 1.5)) * kUp;
          x.b[0] += 1.0;
          x.b[3] += 1.0;
          break;
      }
    }
    Node n;
    for (int i = 0; i < 4; ++i) {
      n.e.a[i] = x.a[i];
      n.e.b[i] = x.b[i];
    }
    n.e.r = R;
    n.e.an = opnorm(x.a);
    n.e.bn = opnorm(x.b);
    n.e.ea = x.ea;
    n.e.eb = x.eb;
    const double Zx = ref.wr[q], Zy = ref.wi[q];
    n.zstart = std::hypot(Zx, Zy) * (1.0 + u * uz) * kUp + em;
    n.zmax = 0;
    return n;
  };
  // x's steps then y's, y's input being x's output A_x d + B_x dc + e_x: A = A_y A_x, B = A_y B_x
  // + B_y; |e| <= |A_y| |e_x| + ea_y |x's output| + eb_y |dc| + the products' roundings; r the
  // largest |d| keeping x's output inside y's radius; y's first index is now inside.
  const auto merge = [&](const Node& x, const Node& y) {
    Node z;
    matmul(y.e.a, x.e.a, z.e.a);
    double ab[4];
    matmul(y.e.a, x.e.b, ab);
    for (int i = 0; i < 4; ++i) z.e.b[i] = ab[i] + y.e.b[i];
    const double cax = x.e.an + x.e.ea, cbx = x.e.bn + x.e.eb;
    z.e.r = std::min(x.e.r, radius_for(y.e.r, cax, cbx, dcmax));
    const double fay = fro(y.e.a);
    z.e.ea = (y.e.an * x.e.ea + y.e.ea * cax + 2.1 * u * fay * fro(x.e.a)) * kUp;
    z.e.eb = (y.e.an * x.e.eb + y.e.ea * cbx + y.e.eb + 3.1 * u * (fay * fro(x.e.b) + fro(y.e.b))) * kUp;
    z.e.an = opnorm(z.e.a);
    z.e.bn = opnorm(z.e.b);
    z.zstart = x.zstart;
    z.zmax = std::max({x.zmax, y.zmax, (y.zstart + y.e.r) * kUp});
    return z;
  };
  std::vector<Node> all = perturb::build_bla_levels<Node>(len, perturb::kFirstBlaLevel, t.level_offset,
                                                          &t.levels, single, merge);
  t.entries.resize(all.size());
  for (std::size_t k = 0; k < all.size(); ++k) {
    FormulaBlaEntry e = all[k].e;
    bool finite = std::isfinite(e.an) && std::isfinite(e.bn) && std::isfinite(e.ea) && std::isfinite(e.eb);
    for (int i = 0; i < 4; ++i) finite = finite && std::isfinite(e.a[i]) && std::isfinite(e.b[i]);
    // The escape tests it steps over must be decided "not escaped": |z| <= zmax < 2 there.
    if (!finite || !(all[k].zmax < 2.0 * kDown) || !(e.r > 0)) e.r = 0;
    if (e.r > 0) ++t.usable;
    t.entries[k] = e;
  }
  return t;
}

void attach_bla(PerturbParams& p, const FormulaBlaTable& t) {
  p.bla = t.entries.empty() ? nullptr : t.entries.data();
  p.bla_levels = p.bla ? t.levels : 0;
  for (int l = 0; l <= perturb::kMaxBlaLevels; ++l) p.bla_offset[l] = t.level_offset[l];
}

}  // namespace ds::formula
