// One box sequence of the cover graph: constraint propagation, the Krawczyk test on the periodic
// system G_i(x) = x_{i+1} - 1 + a x_i^2 - b x_{i-1} (indices mod n), and local subdivision of the
// undecided (docs/henon.md, "Periodic orbits").
#include <algorithm>
#include <cmath>

#include "orbits_internal.h"

namespace ds::henon::orbits_detail {

namespace {

// Gauss-Jordan with partial pivoting in doubles: an approximate inverse (any matrix C keeps the
// Krawczyk test sound; a poor one only makes it fail). False when a pivot vanishes.
bool invert(int n, std::vector<double>& a, std::vector<double>& inv) {
  inv.assign(size_t(n) * n, 0.0);
  for (int i = 0; i < n; ++i) inv[size_t(i) * n + i] = 1.0;
  for (int c = 0; c < n; ++c) {
    int p = c;
    for (int r = c + 1; r < n; ++r)
      if (std::fabs(a[size_t(r) * n + c]) > std::fabs(a[size_t(p) * n + c])) p = r;
    const double piv = a[size_t(p) * n + c];
    if (!(std::fabs(piv) > 1e-300) || !std::isfinite(piv)) return false;
    if (p != c)
      for (int k = 0; k < n; ++k) {
        std::swap(a[size_t(p) * n + k], a[size_t(c) * n + k]);
        std::swap(inv[size_t(p) * n + k], inv[size_t(c) * n + k]);
      }
    const double s = 1.0 / piv;
    for (int k = 0; k < n; ++k) {
      a[size_t(c) * n + k] *= s;
      inv[size_t(c) * n + k] *= s;
    }
    for (int r = 0; r < n; ++r) {
      if (r == c) continue;
      const double f = a[size_t(r) * n + c];
      if (f == 0) continue;
      for (int k = 0; k < n; ++k) {
        a[size_t(r) * n + k] -= f * a[size_t(c) * n + k];
        inv[size_t(r) * n + k] -= f * inv[size_t(c) * n + k];
      }
    }
  }
  return true;
}

// x_{i+1} = 1 + b x_{i-1} - a x_i^2 and x_{i-1} = (x_{i+1} - 1 + a x_i^2) / b, intersected into X
// around the cycle: every zero of G in X stays in X. False when some X_i becomes empty.
bool propagate(const Map& m, std::vector<Interval>& X, int rounds) {
  const int n = int(X.size());
  for (int r = 0; r < rounds; ++r) {
    for (int i = 0; i < n; ++i) {
      const int ip = (i + 1) % n, im = (i + n - 1) % n;
      X[ip] = iv::intersect(X[ip], Interval(1.0) + m.b * X[im] - m.a * iv::sqr(X[i]));
      if (X[ip].empty()) return false;
    }
    for (int i = n - 1; i >= 0; --i) {
      const int ip = (i + 1) % n, im = (i + n - 1) % n;
      X[im] = iv::intersect(X[im], (X[ip] - Interval(1.0) + m.a * iv::sqr(X[i])) / m.b);
      if (X[im].empty()) return false;
    }
  }
  return true;
}

}  // namespace

int krawczyk(const Map& m, std::vector<Interval>& X) {
  const int n = int(X.size());
  std::vector<double> mid(n), jm, C;
  std::vector<Interval> G(n), K(n), acc(n), D(n);
  const Interval a2(2 * m.a.lo, 2 * m.a.hi);  // exact doubling
  const double am = m.a.mid(), bm = m.b.mid();
  bool proven = false;
  int extra = 0;
  for (int iter = 0; iter < 40; ++iter) {
    for (int i = 0; i < n; ++i) mid[i] = X[i].mid();
    jm.assign(size_t(n) * n, 0.0);
    for (int i = 0; i < n; ++i) {
      jm[size_t(i) * n + (i + 1) % n] += 1.0;
      jm[size_t(i) * n + i] += 2 * am * mid[i];
      jm[size_t(i) * n + (i + n - 1) % n] -= bm;
    }
    if (!invert(n, jm, C)) return proven ? 1 : -1;
    for (int i = 0; i < n; ++i) {
      G[i] = Interval(mid[(i + 1) % n]) - Interval(1.0) + m.a * iv::sqr(Interval(mid[i])) -
             m.b * Interval(mid[(i + n - 1) % n]);
      D[i] = X[i] - Interval(mid[i]);
    }
    bool inside = true, disjoint = false;
    double shrink = 0;
    for (int r = 0; r < n; ++r) {
      const double* c = &C[size_t(r) * n];
      Interval cg(0.0);
      for (int j = 0; j < n; ++j) {
        cg = cg + c[j] * G[j];
        acc[j] = Interval(0.0);
      }
      // (C J(X))[r][k]: row j of J(X) has 1 at j+1, 2 a X_j at j, -b at j-1.
      for (int j = 0; j < n; ++j) {
        acc[(j + 1) % n] = acc[(j + 1) % n] + Interval(c[j]);
        acc[j] = acc[j] + c[j] * (a2 * X[j]);
        acc[(j + n - 1) % n] = acc[(j + n - 1) % n] - c[j] * m.b;
      }
      Interval k = Interval(mid[r]) - cg;
      for (int j = 0; j < n; ++j) k = k + ((j == r ? Interval(1.0) : Interval(0.0)) - acc[j]) * D[j];
      K[r] = k;
      if (!iv::inside_interior(k, X[r])) inside = false;
      if (!iv::overlaps(k, X[r])) disjoint = true;
    }
    if (disjoint) return proven ? 1 : 0;  // (never after a proof: the zero lies in K(X) ∩ X)
    if (inside) proven = true;
    for (int r = 0; r < n; ++r) {
      const Interval nx = iv::intersect(K[r], X[r]);
      const double wo = X[r].width();
      if (wo > 0) shrink = std::max(shrink, 1.0 - nx.width() / wo);
      X[r] = nx;
    }
    if (proven) {
      if (shrink < 0.05 || ++extra >= 10) return 1;
    } else if (shrink < 0.1) {
      return -1;
    }
  }
  return proven ? 1 : -1;
}

int rotation_period(const std::vector<Cell>& w) {
  const int n = int(w.size());
  for (int p = 1; p < n; ++p) {
    if (n % p) continue;
    bool same = true;
    for (int i = 0; i < n && same; ++i) same = w[i] == w[(i + p) % n];
    if (same) return p;
  }
  return n;
}

bool minimal_rotation(const std::vector<Cell>& w, int step) {
  const int n = int(w.size());
  for (int r = step; r < n; r += step) {
    for (int i = 0; i < n; ++i) {
      const Cell& u = w[i];
      const Cell& v = w[(i + r) % n];
      if (u == v) continue;
      if (v < u) return false;
      break;
    }
  }
  return true;
}

// Stability from the interval trace of D h^n and det = (-b)^n (Schur-Cohn: both eigenvalues in the
// unit disc iff |det| < 1 and |trace| < 1 + det).
void classify(const Map& m, CertifiedOrbit& o) {
  const int n = o.period;
  Interval p00(1.0), p01(0.0), p10(0.0), p11(1.0), det(1.0);
  for (int k = 0; k < n; ++k) {
    // Dh(x_k) = [[-2 a x_k, 1], [b, 0]] times the product so far.
    const Interval d = -(Interval(2 * m.a.lo, 2 * m.a.hi) * o.x[k]);
    const Interval q00 = d * p00 + p10, q01 = d * p01 + p11;
    const Interval q10 = m.b * p00, q11 = m.b * p01;
    p00 = q00, p01 = q01, p10 = q10, p11 = q11;
    det = det * (-m.b);
  }
  o.trace = p00 + p11;
  o.det = det.mid();
  const Interval one_plus_det = Interval(1.0) + det;
  const double mig = o.trace.contains_zero() ? 0.0 : std::min(std::fabs(o.trace.lo), std::fabs(o.trace.hi));
  if (iv::mag(det) < 1 && iv::mag(o.trace) < one_plus_det.lo)
    o.stability = Stability::kSink;
  else if (iv::mag(det) < 1 && mig > one_plus_det.hi)
    o.stability = Stability::kSaddle;
  else
    o.stability = Stability::kUndecided;
  const double t = o.trace.mid(), dd = o.det, disc = t * t - 4 * dd;
  if (disc >= 0) {
    const double s = std::sqrt(disc);
    const double l1 = t >= 0 ? 0.5 * (t + s) : 0.5 * (t - s);
    o.l1_re = l1;
    o.l2_re = l1 != 0 ? dd / l1 : 0.0;
  } else {
    o.complex = true;
    o.l1_re = o.l2_re = 0.5 * t;
    o.l1_im = 0.5 * std::sqrt(-disc);
    o.l2_im = -o.l1_im;
  }
}

void Verifier::run(int L, const std::vector<Cell>& w) {
  const int n = int(w.size());
  const Map& m = *map;
  std::vector<Interval> X(n);
  for (int k = 0; k < n; ++k) {
    // x_k is the x of cell k and (as y_{k+1} = b x_k) the y of cell k+1 over b.
    X[k] = iv::intersect(grid->cx(L, w[k].i), grid->cy(L, w[(k + 1) % n].j) / m.b);
    if (X[k].empty()) return;
  }
  if (!propagate(m, X, 2)) return;
  const int r = krawczyk(m, X);
  if (r == 0) return;
  const int p = rotation_period(w);
  if (r == 1) {
    // A unique zero in the sequence's box. A walk equal to its rotation by p < n holds the rotation
    // of that zero too, so the zero has period dividing p: not of least period n.
    if (p < n) return;
    // Count it only in the walk of the half-open cells holding its points (exactly one walk).
    int in = 1;
    for (int k = 0; k < n && in != 0; ++k) {
      const Interval x = X[k], y = m.b * X[(k + n - 1) % n];
      const double xl = grid->bx(L, w[k].i), xh = grid->bx(L, w[k].i + 1);
      const double yl = grid->by(L, w[k].j), yh = grid->by(L, w[k].j + 1);
      if (x.hi < xl || x.lo >= xh || y.hi < yl || y.lo >= yh)
        in = 0;
      else if (!(x.lo >= xl && x.hi < xh && y.lo >= yl && y.hi < yh))
        in = -1;
    }
    if (in == 0) return;
    if (in < 0) {
      ++counts->undecided;
      return;
    }
    int inside = 1;
    for (int k = 0; k < n; ++k) {
      const int c = region->contains(X[k], m.b * X[(k + n - 1) % n]);
      if (c == 0) {
        inside = 0;
        break;
      }
      if (c < 0) inside = -1;
    }
    if (inside == 0) {
      ++counts->outside;
      return;
    }
    if (inside < 0) {
      ++counts->undecided;
      return;
    }
    CertifiedOrbit o;
    o.period = n;
    int s = 0;
    for (int k = 1; k < n; ++k)
      if (X[k].mid() < X[s].mid()) s = k;
    for (int k = 0; k < n; ++k) {
      o.x.push_back(X[(s + k) % n]);
      o.y.push_back(m.b * X[(s + k + n - 1) % n]);
    }
    classify(m, o);
    ++counts->orbits;
    if (o.stability == Stability::kSink) ++counts->sinks;
    if (o.stability == Stability::kSaddle) ++counts->saddles;
    out->push_back(std::move(o));
    return;
  }
  if (L >= max_level) {
    ++counts->undecided;
    return;
  }
  // Children: the sub-cells of each cell that meet the tightened box, chained by graph edges.
  std::vector<std::vector<Cell>> cand(n);
  std::vector<std::vector<std::array<Interval, 2>>> img(n);
  for (int k = 0; k < n; ++k) {
    const Interval x = X[k], y = iv::intersect(m.b * X[(k + n - 1) % n], grid->cy(L, w[k].j));
    for (int di = 0; di < 2; ++di)
      for (int dj = 0; dj < 2; ++dj) {
        const Cell c{2 * w[k].i + di, 2 * w[k].j + dj};
        const Interval cx = grid->cx(L + 1, c.i), cy = grid->cy(L + 1, c.j);
        if (!iv::overlaps(cx, x) || y.empty() || !iv::overlaps(cy, y)) continue;
        cand[k].push_back(c);
        Interval nx, ny;
        image(m, cx, cy, nx, ny);
        img[k].push_back({nx, ny});
      }
    if (cand[k].empty()) return;
  }
  auto edge = [&](int k, size_t a, size_t b) {
    const int kn = (k + 1) % n;
    const Cell& c = cand[kn][b];
    return iv::overlaps(img[k][a][0], grid->cx(L + 1, c.i)) &&
           iv::overlaps(img[k][a][1], grid->cy(L + 1, c.j));
  };
  std::vector<std::vector<Cell>> children;
  std::vector<size_t> pick(n, 0);
  std::vector<Cell> seq(n);
  bool too_many = false;
  // Depth-first over positions; pick[k] indexes cand[k].
  int k = 0;
  pick[0] = 0;
  while (k >= 0 && !too_many) {
    if (pick[k] >= cand[k].size()) {
      --k;
      if (k >= 0) ++pick[k];
      continue;
    }
    if (k > 0 && !edge(k - 1, pick[k - 1], pick[k])) {
      ++pick[k];
      continue;
    }
    seq[k] = cand[k][pick[k]];
    if (k == n - 1) {
      if (edge(n - 1, pick[n - 1], pick[0]) && minimal_rotation(seq, p)) {
        children.push_back(seq);
        if (int64_t(children.size()) > max_children) too_many = true;
      }
      ++pick[k];
      continue;
    }
    ++k;
    pick[k] = 0;
  }
  if (too_many) {
    ++counts->undecided;
    return;
  }
  for (const auto& c : children) run(L + 1, c);
}

}  // namespace ds::henon::orbits_detail
