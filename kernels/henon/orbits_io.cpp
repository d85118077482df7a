// The periodic-orbit catalogue's files: one CSV row per orbit and the JSON metadata (parameters,
// region, method, counts per period with undecided box sequences, entropy estimates).
#include <cmath>
#include <cstdio>
#include <sstream>
#include <string>

#include "orbits.h"

namespace ds::henon {

namespace {

std::string num(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

const char* stability_name(Stability s) {
  return s == Stability::kSink ? "sink" : s == Stability::kSaddle ? "saddle" : "undecided";
}

// P_n = sum over d | n of d Q_d: the fixed points of h^n in the region.
double fixed_points(const CatalogueResult& r, int n) {
  double p = 0;
  for (int d = 1; d <= n; ++d)
    if (n % d == 0) p += double(d) * double(r.counts[size_t(d - 1)].orbits);
  return p;
}

}  // namespace

std::string catalogue_csv(const CatalogueResult& r) {
  // Appended to one string (not an ostringstream, whose str() copies it): at period 30 the rows
  // take about a gigabyte.
  std::string o = "period,index,x,y,x_width,y_width,trace_lo,trace_hi,det,l1_re,l1_im,l2_re,l2_im,stability\n";
  size_t points = 0;
  for (const CertifiedOrbit& c : r.orbits) points += size_t(c.period);
  o.reserve(o.size() + points * 320);
  for (const CertifiedOrbit& c : r.orbits) {
    const std::string tail = num(c.trace.lo) + ',' + num(c.trace.hi) + ',' + num(c.det) + ',' + num(c.l1_re) +
                             ',' + num(c.l1_im) + ',' + num(c.l2_re) + ',' + num(c.l2_im) + ',' +
                             stability_name(c.stability) + '\n';
    for (int k = 0; k < c.period; ++k) {
      o += std::to_string(c.period) + ',' + std::to_string(k) + ',' + num(c.x[size_t(k)].mid()) + ',' +
           num(c.y[size_t(k)].mid()) + ',' + num(c.x[size_t(k)].width()) + ',' + num(c.y[size_t(k)].width()) +
           ',';
      o += tail;
    }
  }
  return o;
}

std::string catalogue_json(const CatalogueParams& p, const CatalogueResult& r, const std::string& command) {
  std::ostringstream o;
  int64_t undecided = 0, total = 0;
  for (const auto& c : r.counts) undecided += c.undecided, total += c.orbits;
  o << "{\n  \"command\": \"" << command << "\",\n";
  o << "  \"a\": \"" << p.a << "\", \"b\": \"" << p.b << "\",\n";
  if (p.region.quadrilateral)
    o << "  \"region\": {\"kind\": \"quadrilateral\", \"vertices\": [[-1.33, 0.42], [-1.06, -0.5], [1.245, "
         "-0.14], "
         "[1.32, 0.133]], \"source\": \"M. Henon, Commun. Math. Phys. 50 (1976) 69-77\"},\n";
  else
    o << "  \"region\": {\"kind\": \"box\", \"x_lo\": " << num(p.region.box[0])
      << ", \"x_hi\": " << num(p.region.box[1]) << ", \"y_lo\": " << num(p.region.box[2])
      << ", \"y_hi\": " << num(p.region.box[3]) << "},\n";
  o << "  \"method\": \"cover graph of the region's invariant part (cells of level " << r.graph_level
    << "), closed walks of length n, interval Krawczyk test on the periodic system with local subdivision "
       "(double intervals, outward rounding); see docs/henon.md\",\n";
  o << "  \"graph\": {\"level\": " << r.graph_level << ", \"cells\": " << r.cells
    << ", \"edges\": " << r.edges << ", \"cell_w\": " << num(r.cell_w) << ", \"cell_h\": " << num(r.cell_h)
    << ", \"cover\": [" << num(r.cover[0]) << ", " << num(r.cover[1]) << ", " << num(r.cover[2]) << ", "
    << num(r.cover[3]) << "]},\n";
  o << "  \"work\": {\"split_depth\": " << r.split_depth << ", \"units\": " << r.units << ", \"chunks\": " << r.chunks
    << ", \"chunks_resumed\": " << r.chunks_loaded << "},\n";
  o << "  \"period_max\": " << p.period_max
    << ",\n  \"complete\": " << (!r.cancelled && undecided == 0 ? "true" : "false")
    << ",\n  \"cancelled\": " << (r.cancelled ? "true" : "false") << ",\n  \"orbits\": " << total
    << ",\n  \"undecided\": " << undecided << ",\n  \"seconds\": " << num(r.seconds)
    << ",\n  \"per_period\": [\n";
  for (size_t n = 1; n <= r.counts.size(); ++n) {
    const PeriodCounts& c = r.counts[n - 1];
    const double pn = fixed_points(r, int(n));
    o << "    {\"n\": " << n << ", \"orbits\": " << c.orbits << ", \"fixed_points_of_h^n\": " << num(pn)
      << ", \"entropy_estimate\": " << (pn > 0 ? num(std::log(pn) / double(n)) : std::string("null"))
      << ", \"sinks\": " << c.sinks << ", \"saddles\": " << c.saddles << ", \"outside_region\": " << c.outside
      << ", \"undecided\": " << c.undecided << ", \"walks\": " << c.walks << "}"
      << (n < r.counts.size() ? "," : "") << "\n";
  }
  o << "  ]\n}\n";
  return o.str();
}

}  // namespace ds::henon
