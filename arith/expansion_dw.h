// f64x2 arithmetic: for N = 2 the expansion is a normalized double-word number (hi = RN(hi + lo))
// and + - * use the double-word algorithms of Joldes, Muller, Popescu, "Tight and rigorous error
// bounds for basic building blocks of double-word arithmetic", ACM TOMS 44(2), 2017 [JMP], which
// need about a third of the operations of the paper's Algorithms 4/5 at N = 2. Included at the end
// of expansion.h: these non-template overloads win over the generic templates for Expansion<2>.
//
// Invariant: f64x2 values are normalized pairs, hi = RN(hi + lo) (so |lo| <= u |hi|); every
// operation's result and every constructor keeps it. Bounds (u = 2^-53, eps = u^2, normalized
// operands, no underflow or overflow):
//   a + b, a - b   AccurateDWPlusDW (JMP Alg. 6)    (3 + 13 u) eps |exact|  (<= 3.0000000001 eps)
//   a + d, a - d   DWPlusFP (JMP Alg. 4)            2 eps |exact|
//   a * b          DWTimesDW3 (JMP Alg. 12)         4 eps |exact|
//   sqr(a)         2Prod + one FMA (below)           (4 + 10 u) eps |exact|
//   a * d          DWTimesFP3 (JMP Alg. 9)          2 eps |exact|
//   a / b, sqrt(a) the Newton schemes of expansion.h over these operations: 8 eps |exact|
//                  (derivation: docs/arith/expansion.md)
#pragma once

namespace ds {

DEEPSCOPE_HD Expansion<2> dw_pair(double hi, double lo) {
  Expansion<2> r;
  eft::fast_two_sum(hi, lo, r.t[0], r.t[1]);
  return r;
}

// JMP Algorithm 6 (AccurateDWPlusDW): 20 flops.
DEEPSCOPE_HD Expansion<2> operator+(const Expansion<2>& x, const Expansion<2>& y) {
  double sh, sl, th, tl, vh, vl;
  eft::two_sum(x.t[0], y.t[0], sh, sl);
  eft::two_sum(x.t[1], y.t[1], th, tl);
  const double c = sl + th;
  eft::fast_two_sum(sh, c, vh, vl);
  const double w = tl + vl;
  return dw_pair(vh, w);
}

// JMP Algorithm 4 (DWPlusFP): 10 flops.
DEEPSCOPE_HD Expansion<2> operator+(const Expansion<2>& x, double y) {
  double sh, sl;
  eft::two_sum(x.t[0], y, sh, sl);
  const double v = x.t[1] + sl;
  return dw_pair(sh, v);
}

DEEPSCOPE_HD Expansion<2> operator-(const Expansion<2>& x, const Expansion<2>& y) {
  Expansion<2> ny;
  ny.t[0] = -y.t[0];
  ny.t[1] = -y.t[1];
  return x + ny;
}
DEEPSCOPE_HD Expansion<2> operator-(const Expansion<2>& x, double y) { return x + (-y); }

// JMP Algorithm 12 (DWTimesDW3): 9 flops with FMA.
DEEPSCOPE_HD Expansion<2> operator*(const Expansion<2>& x, const Expansion<2>& y) {
  double ch, cl1;
  eft::two_prod(x.t[0], y.t[0], ch, cl1);
  const double tl0 = x.t[1] * y.t[1];
  const double tl1 = eft::fma_rn(x.t[0], y.t[1], tl0);
  const double cl2 = eft::fma_rn(x.t[1], y.t[0], tl1);
  const double cl3 = cl1 + cl2;
  return dw_pair(ch, cl3);
}

// x^2 = xh^2 + 2 xh xl + xl^2: the error of xh^2 exactly, 2 xh xl added to it with one FMA, xl^2
// (<= u^2 xh^2) left out. Error <= u |2 xh xl + cl1| + xl^2 <= 3u^2 xh^2 + u^2 xh^2, and
// xh^2 <= x^2 / (1 - u)^2: (4 + 10u) eps. 7 flops.
DEEPSCOPE_HD Expansion<2> sqr(const Expansion<2>& x) {
  double ch, cl1;
  eft::two_prod(x.t[0], x.t[0], ch, cl1);
  const double cl3 = eft::fma_rn(x.t[0] + x.t[0], x.t[1], cl1);
  return dw_pair(ch, cl3);
}

// JMP Algorithm 9 (DWTimesFP3): 6 flops with FMA.
DEEPSCOPE_HD Expansion<2> operator*(const Expansion<2>& x, double y) {
  double ch, cl1;
  eft::two_prod(x.t[0], y, ch, cl1);
  const double cl3 = eft::fma_rn(x.t[1], y, cl1);
  return dw_pair(ch, cl3);
}

}  // namespace ds
