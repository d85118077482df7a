// The period map's step in the pixel loop (period_map.h; perturb.cuh's pixel_step takes it at
// reference point 1): F(t, v) and its slopes from the coefficients that ride after the BLA table's
// entries, and the error the step adds. Host + device, for every delta type the map serves
// (binary64, floatexp, the double word).
#pragma once
#include "arith/hd.h"
#include "bla.h"
#include "delta_ops.cuh"
#include "period_map.h"

namespace ds::perturb {

// The interior test's part of a map step (perturb.cuh): the second slope F_tt, and bounds on what
// A = F_t and F_tt may be off by: Cauchy's estimates of the truncation's error from the rungs that
// hold t with room to spare (an error below E on |t| <= R is at most E / (R - |t|) in its slope
// and 2 E / (R - |t|)^2 in its second slope at t), plus the evaluation's roundings.
template <class T, class E>
struct MapCurvature {
  T a2r = T(0.0), a2i = T(0.0);  // F_tt
  E e1 = E(0.0), e2 = E(0.0);    // |F_t - exact|, |F_tt - exact| (bounds)
};

// P: PerturbParams<T> (perturb.cuh). From dz = t at point 1 and dc = v: F (*fr, *fi), A = dF/dt
// (*ar, *ai), B = dF/dv (*br, *bi), and *local, what the step adds to the error estimate: the least
// rung that holds t (its bound on what the truncation drops) and the evaluation's roundings (nested
// Horner over total degree N: at most 2 N + 1 roundings of M = sum |b_ij| |x|^i |y|^j, with |b_ij|
// in each coefficient's entry, and of F itself).
template <class T, class P, class E = typename AuxOf<T>::type>
DEEPSCOPE_HD void period_map_eval(const P& p, T dzr, T dzi, T dcr, T dci, T* fr_out, T* fi_out, T* ar_out,
                                  T* ai_out, T* br_out, T* bi_out, E* local,
                                  MapCurvature<T, E>* curv = nullptr) {
  constexpr double kRoundoff = roundoff<T>();
  // F(x, y) = sum b_ij x^i y^j by Horner in x over G_i(y) = sum_j b_ij y^j, with dF/dx and dF/dy
  // alongside (x = t / rt, y = v / rv: powers of 2, exact).
  const T xr = dzr * p.pm_inv_rt, xi = dzi * p.pm_inv_rt;
  const T yr = dcr * p.pm_inv_rv, yi = dci * p.pm_inv_rv;
  const int deg = p.pm_degree;
  T fr = T(0.0), fi = T(0.0), fxr = T(0.0), fxi = T(0.0), fyr = T(0.0), fyi = T(0.0);
  T fxxr = T(0.0), fxxi = T(0.0);  // curv: F_xx
  const E mx = aux(l1(xr, xi)), my = aux(l1(yr, yi));
  E msum = E(0.0), m1 = E(0.0), m2 = E(0.0);  // sum |b_ij| |x|^i |y|^j and its first two x-derivatives
  for (int i = deg; i >= 0; --i) {
    const BlaEntry<T>* row = p.bla + p.pm_offset + period_map_index(i, 0, deg);
    T gr = row[deg - i].ar, gi = row[deg - i].ai, gdr = T(0.0), gdi = T(0.0);
    E gm = aux(row[deg - i].r);
    for (int j = deg - i - 1; j >= 0; --j) {
      gm = gm * my + aux(row[j].r);
      const T tr = gdr * yr - gdi * yi + gr;
      gdi = gdr * yi + gdi * yr + gi;
      gdr = tr;
      const T ur = gr * yr - gi * yi + row[j].ar;
      gi = gr * yi + gi * yr + row[j].ai;
      gr = ur;
    }
    if (curv) {  // Fxx <- Fxx x + 2 Fx, before Fx moves on; the magnitudes' derivatives alike
      const T tr = fxxr * xr - fxxi * xi + twice(fxr);
      fxxi = fxxr * xi + fxxi * xr + twice(fxi);
      fxxr = tr;
      m2 = m2 * mx + twice(m1);
      m1 = m1 * mx + msum;
    }
    msum = msum * mx + gm;
    // Fx <- Fx x + F, F <- F x + G_i, Fy <- Fy x + G_i'.
    T tr = fxr * xr - fxi * xi + fr;
    fxi = fxr * xi + fxi * xr + fi;
    fxr = tr;
    tr = fr * xr - fi * xi + gr;
    fi = fr * xi + fi * xr + gi;
    fr = tr;
    tr = fyr * xr - fyi * xi + gdr;
    fyi = fyr * xi + fyi * xr + gdi;
    fyr = tr;
  }
  *fr_out = fr;
  *fi_out = fi;
  // The slopes in t and v: A = dF/dx / rt, B = dF/dy / rv.
  *ar_out = fxr * p.pm_inv_rt;
  *ai_out = fxi * p.pm_inv_rt;
  *br_out = fyr * p.pm_inv_rv;
  *bi_out = fyi * p.pm_inv_rv;
  // The least rung that holds t: its bound.
  const BlaEntry<T>* rung = p.bla + p.pm_offset + period_map_terms(deg);
  const T mag = l1(dzr, dzi);
  int c = 0;
  while (c + 1 < p.pm_rungs && mag < rung[c + 1].ar) ++c;
  *local = aux(rung[c].ai) + (msum * (2.0 * deg + 1.0) + aux(l1(fr, fi))) * kRoundoff;
  if (curv) {
    curv->a2r = fxxr * p.pm_inv_rt * p.pm_inv_rt;
    curv->a2i = fxxi * p.pm_inv_rt * p.pm_inv_rt;
    // Cauchy's estimates over the rungs 0 .. c (each holds t), the least of each; then the
    // derivatives' roundings (Horner's derivative takes about twice F's operations).
    const E inv_rt = aux(p.pm_inv_rt);
    E b1 = E(0.0), b2 = E(0.0);
    bool any = false;
    for (int r = 0; r <= c; ++r) {
      const E room = aux(rung[r].ar) - aux(mag);
      if (!(room > E(0.0))) continue;
      const E q1 = aux(rung[r].ai) / room, q2 = twice(q1 / room);
      if (!any || q1 < b1) b1 = q1;
      if (!any || q2 < b2) b2 = q2;
      any = true;
    }
    if (!any) {  // t on the domain's edge: no bound (the window will not count)
      b1 = b2 = E(1e300);
    }
    const double nr = (4.0 * deg + 2.0) * kRoundoff;
    curv->e1 = b1 + m1 * inv_rt * nr;
    curv->e2 = b2 + m2 * inv_rt * inv_rt * nr;
  }
}

}  // namespace ds::perturb
