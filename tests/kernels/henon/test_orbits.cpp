// The certified periodic-orbit catalogue (kernels/henon/orbits.h): counts per period against
// tests/data/henon/galias-counts.csv with no undecided box sequence, every orbit re-verified by
// 200-bit MPFR Newton (inside its enclosure, right least period), the Krawczyk test's three
// outcomes, a sink, and bad input.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "kernels/henon/orbits.h"
#include "oracle.h"
#include "test_files.h"

namespace {

using namespace ds::henon;
using ds::henon::iv::Interval;

// The CI period range (docs/bench/henon-orbits.md for the time it takes).
constexpr int kCiPeriods = 16;

std::map<int, int64_t> galias_counts() {
  std::ifstream in(ds::test::source_path("tests/data/henon/galias-counts.csv"));
  std::map<int, int64_t> q;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#' || line[0] == 'n') continue;
    const auto c = line.find(',');
    q[std::stoi(line.substr(0, c))] = std::stoll(line.substr(c + 1));
  }
  return q;
}

const CatalogueResult& classic() {
  static const CatalogueResult r = [] {
    CatalogueParams p;
    p.period_max = kCiPeriods;
    const auto t0 = std::chrono::steady_clock::now();
    CatalogueResult res = catalogue(p);
    std::printf("catalogue to period %d: %.2f s, %lld cells, %lld edges\n", kCiPeriods,
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(),
                (long long)res.cells, (long long)res.edges);
    return res;
  }();
  return r;
}

TEST(HenonOrbits, CountsEqualGaliasTableWithNoUndecided) {
  const auto q = galias_counts();
  ASSERT_GE(q.size(), size_t(kCiPeriods));
  const CatalogueResult& r = classic();
  ASSERT_FALSE(r.cancelled);
  ASSERT_EQ(r.counts.size(), size_t(kCiPeriods));
  std::vector<int64_t> listed(kCiPeriods, 0);
  for (const auto& o : r.orbits) ++listed[size_t(o.period - 1)];
  for (int n = 1; n <= kCiPeriods; ++n) {
    const PeriodCounts& c = r.counts[size_t(n - 1)];
    EXPECT_EQ(c.orbits, q.at(n)) << "period " << n;
    EXPECT_EQ(c.undecided, 0) << "period " << n;
    EXPECT_EQ(listed[size_t(n - 1)], c.orbits) << "period " << n;
    // Entropy estimate log(P_n) / n beside the counts (printed; Galias's values are not in the file).
    double pn = 0;
    for (int d = 1; d <= n; ++d)
      if (n % d == 0) pn += d * double(q.at(d));
    if (pn > 0)
      std::printf("n = %2d  Q_n = %5lld  P_n = %6.0f  log(P_n)/n = %.4f\n", n, (long long)c.orbits, pn,
                  std::log(pn) / n);
  }
  // The second fixed point, (-1.1314, -0.3394), lies outside the quadrilateral: never counted.
  EXPECT_EQ(r.counts[0].orbits, 1);
  EXPECT_NEAR(r.orbits[0].x[0].mid(), 0.6313544770895048, 1e-12);
}

// 200-bit Newton on G_i(x) = x_{i+1} - 1 + a x_i^2 - b x_{i-1} with a, b the exact decimals, from
// the enclosure's midpoints: converges to a point inside every enclosure, of least period n.
TEST(HenonOrbits, EveryOrbitReverifiedInMpfr) {
  const CatalogueResult& r = classic();
  const mpfr_prec_t prec = 200;
  ds::test::Mp a(prec), b(prec), t(prec), f(prec);
  mpfr_set_str(a, "1.4", 10, MPFR_RNDN);
  mpfr_set_str(b, "0.3", 10, MPFR_RNDN);
  int checked = 0;
  for (const CertifiedOrbit& o : r.orbits) {
    const int n = o.period;
    std::vector<mpfr_t> x(n), g(n), m(size_t(n) * n);
    for (auto& v : x) mpfr_init2(v, prec);
    for (auto& v : g) mpfr_init2(v, prec);
    for (auto& v : m) mpfr_init2(v, prec);
    for (int k = 0; k < n; ++k) mpfr_set_d(x[k], o.x[size_t(k)].mid(), MPFR_RNDN);
    double last = 1;
    for (int it = 0; it < 12; ++it) {
      // G and its Jacobian, then Gaussian elimination with partial pivoting.
      for (int i = 0; i < n; ++i) {
        const int ip = (i + 1) % n, im = (i + n - 1) % n;
        mpfr_sqr(t, x[i], MPFR_RNDN);
        mpfr_mul(t, t, a, MPFR_RNDN);
        mpfr_add(g[i], x[ip], t, MPFR_RNDN);
        mpfr_sub_ui(g[i], g[i], 1, MPFR_RNDN);
        mpfr_mul(t, b, x[im], MPFR_RNDN);
        mpfr_sub(g[i], g[i], t, MPFR_RNDN);
        for (int k = 0; k < n; ++k) mpfr_set_zero(m[size_t(i) * n + k], 1);
        mpfr_add_ui(m[size_t(i) * n + ip], m[size_t(i) * n + ip], 1, MPFR_RNDN);
        mpfr_mul(t, a, x[i], MPFR_RNDN);
        mpfr_mul_2ui(t, t, 1, MPFR_RNDN);
        mpfr_add(m[size_t(i) * n + i], m[size_t(i) * n + i], t, MPFR_RNDN);
        mpfr_sub(m[size_t(i) * n + im], m[size_t(i) * n + im], b, MPFR_RNDN);
      }
      for (int c = 0; c < n; ++c) {
        int p = c;
        for (int i = c + 1; i < n; ++i)
          if (mpfr_cmpabs(m[size_t(i) * n + c], m[size_t(p) * n + c]) > 0) p = i;
        for (int k = 0; k < n; ++k) mpfr_swap(m[size_t(p) * n + k], m[size_t(c) * n + k]);
        mpfr_swap(g[p], g[c]);
        for (int i = 0; i < n; ++i) {
          if (i == c) continue;
          mpfr_div(f, m[size_t(i) * n + c], m[size_t(c) * n + c], MPFR_RNDN);
          for (int k = 0; k < n; ++k) {
            mpfr_mul(t, f, m[size_t(c) * n + k], MPFR_RNDN);
            mpfr_sub(m[size_t(i) * n + k], m[size_t(i) * n + k], t, MPFR_RNDN);
          }
          mpfr_mul(t, f, g[c], MPFR_RNDN);
          mpfr_sub(g[i], g[i], t, MPFR_RNDN);
        }
      }
      last = 0;
      for (int k = 0; k < n; ++k) {
        mpfr_div(t, g[k], m[size_t(k) * n + k], MPFR_RNDN);
        last = std::max(last, std::fabs(mpfr_get_d(t, MPFR_RNDN)));
        mpfr_sub(x[k], x[k], t, MPFR_RNDN);
      }
    }
    EXPECT_LT(last, 1e-45) << "period " << n << " Newton did not converge";
    for (int k = 0; k < n; ++k) {
      EXPECT_GE(mpfr_cmp_d(x[k], o.x[size_t(k)].lo), 0) << "period " << n << " point " << k;
      EXPECT_LE(mpfr_cmp_d(x[k], o.x[size_t(k)].hi), 0) << "period " << n << " point " << k;
      EXPECT_LT(o.x[size_t(k)].width(), 1e-12);
    }
    for (int d = 1; d < n; ++d) {
      if (n % d) continue;
      double gap = 0;
      for (int k = 0; k < n; ++k) {
        mpfr_sub(t, x[k], x[(k + d) % n], MPFR_RNDN);
        gap = std::max(gap, std::fabs(mpfr_get_d(t, MPFR_RNDN)));
      }
      EXPECT_GT(gap, 1e-6) << "period " << n << " repeats after " << d;
    }
    EXPECT_EQ(o.stability, Stability::kSaddle) << "period " << n;
    for (auto& v : x) mpfr_clear(v);
    for (auto& v : g) mpfr_clear(v);
    for (auto& v : m) mpfr_clear(v);
    ++checked;
  }
  int64_t total = 0;
  for (const auto& c : r.counts) total += c.orbits;
  EXPECT_EQ(checked, total);
  EXPECT_GT(checked, 100);
}

// Coarse cells with no subdivision allowed: walks the Krawczyk test cannot decide are counted as
// undecided and the JSON says the catalogue is not complete; nothing is invented.
TEST(HenonOrbits, UndecidedAreCountedNeverHidden) {
  CatalogueParams p;
  p.period_max = 8;
  p.graph_level = 3;
  p.refine_levels = 0;
  const CatalogueResult r = catalogue(p);
  const auto q = galias_counts();
  int64_t undecided = 0;
  for (int n = 1; n <= p.period_max; ++n) {
    undecided += r.counts[size_t(n - 1)].undecided;
    EXPECT_LE(r.counts[size_t(n - 1)].orbits, q.at(n)) << "period " << n;
  }
  EXPECT_GT(undecided, 0);
  const std::string json = catalogue_json(p, r, "test");
  EXPECT_NE(json.find("\"complete\": false"), std::string::npos);
  EXPECT_NE(json.find("\"undecided\": " + std::to_string(undecided)), std::string::npos);
}

// A resume file cut in the middle of a block (as a crash would leave it) plus garbage: the run
// loads the whole blocks, recomputes the rest, and gives the same catalogue to the bit; a third run
// loads everything; another catalogue's file is refused.
TEST(HenonOrbits, ResumeFromChunkFile) {
  const std::string dir = ds::test::make_tmpdir("henon-orbits");
  CatalogueParams p;
  p.period_max = 12;
  p.chunk_file = dir + "/c.chunks";
  const CatalogueResult full = catalogue(p);
  ASSERT_EQ(full.chunks_loaded, 0);
  ASSERT_EQ(full.chunks_run, full.chunks);
  const std::string text = ds::test::slurp(p.chunk_file);
  const size_t cut = text.find("chunk ", text.size() / 2);
  ASSERT_NE(cut, std::string::npos);
  const size_t mid = text.find('\n', text.find("\no ", cut) + 1);  // inside the block after the cut
  ASSERT_NE(mid, std::string::npos);
  {
    std::ofstream f(p.chunk_file, std::ios::trunc);
    f << text.substr(0, mid + 1) << "o 3 garbage\n";
  }
  auto same = [](const CatalogueResult& a, const CatalogueResult& b) {
    ASSERT_EQ(a.orbits.size(), b.orbits.size());
    for (size_t i = 0; i < a.orbits.size(); ++i) {
      ASSERT_EQ(a.orbits[i].period, b.orbits[i].period);
      for (size_t k = 0; k < a.orbits[i].x.size(); ++k) {
        EXPECT_EQ(a.orbits[i].x[k].lo, b.orbits[i].x[k].lo);
        EXPECT_EQ(a.orbits[i].x[k].hi, b.orbits[i].x[k].hi);
      }
      EXPECT_EQ(a.orbits[i].stability, b.orbits[i].stability);
    }
    for (size_t n = 0; n < a.counts.size(); ++n) {
      EXPECT_EQ(a.counts[n].orbits, b.counts[n].orbits);
      EXPECT_EQ(a.counts[n].walks, b.counts[n].walks);
      EXPECT_EQ(a.counts[n].undecided, b.counts[n].undecided);
    }
  };
  const CatalogueResult resumed = catalogue(p);
  EXPECT_GT(resumed.chunks_loaded, 0);
  EXPECT_LT(resumed.chunks_loaded, resumed.chunks);
  EXPECT_EQ(resumed.chunks_loaded + resumed.chunks_run, resumed.chunks);
  same(full, resumed);
  const CatalogueResult again = catalogue(p);
  EXPECT_EQ(again.chunks_loaded, again.chunks);
  EXPECT_EQ(again.chunks_run, 0);
  same(full, again);
  p.period_max = 11;
  EXPECT_THROW(catalogue(p), std::invalid_argument);
}

// The rows never depend on how the work is split or run: one thread over whole start cells (split
// 0, the decomposition before the walk trees were cut), two threads over trees cut at depth 3, one
// thread at depth 6, and two threads resuming half a depth-3 resume file give the same CSV, counts
// and walk counts. An old (v1) resume file is refused, naming its format.
TEST(HenonOrbits, SameRowsOnOneAndTwoThreadsAnySplitAndResumed) {
  const std::string dir = ds::test::make_tmpdir("henon-orbits-threads");
  auto run = [](unsigned threads, int split, const std::string& chunk_file) {
    CatalogueParams p;
    p.period_max = 16;
    p.threads = threads;
    p.split_depth = split;
    p.chunk_file = chunk_file;
    return catalogue(p);
  };
  const CatalogueResult one = run(1, 0, "");
  const std::string csv = catalogue_csv(one);
  ASSERT_EQ(one.orbits.size(), 315u);
  ASSERT_EQ(one.units, one.cells);  // split 0: one unit per start cell
  const std::string chunks = dir + "/t.chunks";
  const CatalogueResult two = run(2, 3, chunks);
  EXPECT_GT(two.units, two.cells);
  EXPECT_EQ(two.split_depth, 3);
  const CatalogueResult deep = run(1, 6, "");
  EXPECT_GT(deep.units, two.units);
  for (const CatalogueResult* r : {&two, &deep}) {
    EXPECT_EQ(catalogue_csv(*r), csv);
    ASSERT_EQ(r->counts.size(), one.counts.size());
    for (size_t n = 0; n < one.counts.size(); ++n) {
      EXPECT_EQ(r->counts[n].orbits, one.counts[n].orbits) << n + 1;
      EXPECT_EQ(r->counts[n].walks, one.counts[n].walks) << n + 1;
      EXPECT_EQ(r->counts[n].undecided, one.counts[n].undecided) << n + 1;
    }
  }
  // Keep the header and the first half of the blocks, then resume on two threads.
  const std::string text = ds::test::slurp(chunks);
  const size_t cut = text.find("\nchunk ", text.size() / 2);
  ASSERT_NE(cut, std::string::npos);
  {
    std::ofstream f(chunks, std::ios::trunc);
    f << text.substr(0, cut + 1);
  }
  const CatalogueResult resumed = run(2, 3, chunks);
  EXPECT_GT(resumed.chunks_loaded, 0);
  EXPECT_GT(resumed.chunks_run, 0);
  EXPECT_EQ(resumed.chunks_loaded + resumed.chunks_run, resumed.chunks);
  EXPECT_EQ(catalogue_csv(resumed), csv);
  for (size_t n = 0; n < one.counts.size(); ++n) EXPECT_EQ(resumed.counts[n].walks, one.counts[n].walks);
  // Another cut depth is another resume file.
  EXPECT_THROW(run(2, 4, chunks), std::invalid_argument);
  {
    std::ofstream f(chunks, std::ios::trunc);
    f << "deepscope henon orbits v1 a=1.4 b=0.3 region=quad N=16\n";
  }
  try {
    run(2, 3, chunks);
    ADD_FAILURE() << "a v1 resume file was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("resume format v1"), std::string::npos) << e.what();
  }
}

TEST(HenonOrbits, KrawczykThreeOutcomes) {
  orbits_detail::Map m{{std::nextafter(1.4, 0.0), std::nextafter(1.4, 2.0)},
                       {std::nextafter(0.3, 0.0), std::nextafter(0.3, 1.0)}};
  // Fixed point x = (-(1 - b) + sqrt((1 - b)^2 + 4a)) / (2a) = 0.63135...: proven, tight.
  std::vector<Interval> X = {{0.6, 0.7}};
  EXPECT_EQ(orbits_detail::krawczyk(m, X), 1);
  EXPECT_TRUE(X[0].contains(0.6313544770895048));
  EXPECT_LT(X[0].width(), 1e-14);
  // No fixed point in [0, 0.5].
  X = {{0.0, 0.5}};
  EXPECT_EQ(orbits_detail::krawczyk(m, X), 0);
  // Both fixed points (0.631 and -1.131) in one box: neither proven nor excluded.
  X = {{-1.5, 1.0}};
  EXPECT_EQ(orbits_detail::krawczyk(m, X), -1);
}

// At (a, b) = (0.3, 0.3) the fixed point (1, 0.3) is a sink (trace -0.6, det -0.3); the other
// fixed point, x = -10/3, lies outside the box.
TEST(HenonOrbits, SinkAtSmallA) {
  CatalogueParams p;
  p.a = "0.3";
  p.region.quadrilateral = false;
  p.region.box[0] = -2, p.region.box[1] = 2, p.region.box[2] = -1, p.region.box[3] = 1;
  p.period_max = 4;
  const CatalogueResult r = catalogue(p);
  ASSERT_EQ(r.counts[0].orbits, 1);
  EXPECT_EQ(r.counts[0].sinks, 1);
  for (int n = 2; n <= 4; ++n) EXPECT_EQ(r.counts[size_t(n - 1)].orbits, 0);
  for (const auto& c : r.counts) EXPECT_EQ(c.undecided, 0);
  EXPECT_NEAR(r.orbits[0].x[0].mid(), 1.0, 1e-14);
  EXPECT_EQ(r.orbits[0].stability, Stability::kSink);
}

TEST(HenonOrbits, BadInputNamesTheField) {
  auto message = [](CatalogueParams p) -> std::string {
    try {
      catalogue(p);
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "";
  };
  CatalogueParams p;
  p.period_max = 0;
  EXPECT_NE(message(p).find("period-max"), std::string::npos);
  p = CatalogueParams{};
  p.a = "nan";
  EXPECT_NE(message(p).find("a must"), std::string::npos);
  p = CatalogueParams{};
  p.b = "1e999";
  EXPECT_NE(message(p).find("b must"), std::string::npos);
  p = CatalogueParams{};
  p.region.quadrilateral = false;
  p.region.box[0] = 1, p.region.box[1] = -1, p.region.box[2] = -1, p.region.box[3] = 1;
  EXPECT_NE(message(p).find("region"), std::string::npos);
  p.region.box[0] = -1, p.region.box[1] = 1, p.region.box[2] = 1, p.region.box[3] = 1;  // empty
  EXPECT_NE(message(p).find("region"), std::string::npos);
  p = CatalogueParams{};
  p.period_max = 60;
  EXPECT_NE(message(p).find("memory budget"), std::string::npos);
  p = CatalogueParams{};
  p.split_depth = 17;
  EXPECT_NE(message(p).find("split-depth"), std::string::npos);
}

}  // namespace
