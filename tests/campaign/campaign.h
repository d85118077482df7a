// The MPFR campaign (issue #43): one location rendered 32x32 by the library's auto path on the CPU
// and checked pixel by pixel against the MPFR oracle (kernels/perturb/oracle.h, trusted pixels
// only), each pixel counted as equal, off by one, off by more but flagged (count 0 with
// glitch_unresolved saying so), or off by more and not flagged (silent); and the tallies by depth
// band and by format. Locations: campaign_locations.h.
#pragma once
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "campaign_locations.h"
#include "kernels/mandelbrot/mandelbrot.h"
#include "kernels/perturb/oracle.h"

namespace ds::campaign {

namespace orc = ds::perturb::oracle;

struct Counts {
  uint64_t equal = 0, off_by_one = 0, flagged = 0, silent = 0;
  uint64_t untrusted = 0;  // oracle pixels not trusted (cancelled ones included): not compared
  uint64_t cancelled = 0;  // of the untrusted: the oracle's time budget ran out
  uint64_t locations = 0;
  uint64_t trusted() const { return equal + off_by_one + flagged + silent; }
  Counts& operator+=(const Counts& o) {
    equal += o.equal, off_by_one += o.off_by_one, flagged += o.flagged, silent += o.silent;
    untrusted += o.untrusted, cancelled += o.cancelled, locations += o.locations;
    return *this;
  }
};

// A trusted pixel where the render is not equal to MPFR.
struct Finding {
  int i = 0, j = 0;
  uint64_t ours = 0, mpfr = 0;
  int oracle_bits = 0;
  const char* kind = "";  // "off by one", "flagged", "silent"
};

struct RunOptions {
  int size = 32;  // the render's width and height
  int grid = 32;  // the oracle's n x n sample grid (oracle::grid_pixels); 32 at size 32: every pixel
  double oracle_seconds = 0;  // > 0: the oracle's pixels are cancelled past this many seconds
  unsigned threads = 0;       // render and oracle threads (0: every core)
  // The render's options (RenderOptions defaults: the auto path); backend and threads are set
  // from the above. Replays change them to see which stage made a pixel wrong (refine, bla, ...).
  mandel::RenderOptions render;
};

struct LocationResult {
  Location loc;
  std::string format;  // mandel::format_label
  int band = 0;        // floor(log10 zoom)
  Counts counts;
  uint64_t escaped = 0;  // rendered pixels with count < max_iter (the view is not all interior)
  uint64_t glitch_pixels = 0, glitch_refined = 0, glitch_corrected = 0, glitch_unresolved = 0;
  int secondary_references = 0;
  uint64_t zero_counts = 0;  // rendered pixels with count 0 (must equal glitch_unresolved)
  double render_seconds = 0, oracle_seconds = 0;
  std::vector<Finding> findings;
  std::string error;  // a render or oracle that threw (the location is then not counted)
  // The tiers a perturbation render used beyond binary64 deltas: "106", "secondary", both or "".
  std::string tiers() const {
    std::string t;
    if (glitch_refined) t += "106-bit";
    if (secondary_references) t += std::string(t.empty() ? "" : "+") + "secondary";
    return t;
  }
};

inline mandel::View location_view(const Location& loc, int size) {
  mandel::View v;
  v.re = loc.re;
  v.im = loc.im;
  v.zoom = loc.zoom;
  v.width = v.height = size;
  v.max_iter = loc.max_iter;
  return v;
}

// Sets *flag after `seconds` unless destroyed first.
class Deadline {
 public:
  Deadline(std::atomic<bool>* flag, double seconds) {
    if (seconds <= 0) return;
    thread_ = std::thread([this, flag, seconds] {
      std::unique_lock<std::mutex> lock(m_);
      if (!cv_.wait_for(lock, std::chrono::duration<double>(seconds), [this] { return done_; }))
        flag->store(true);
    });
  }
  ~Deadline() {
    if (!thread_.joinable()) return;
    {
      std::lock_guard<std::mutex> lock(m_);
      done_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }

 private:
  std::mutex m_;
  std::condition_variable cv_;
  bool done_ = false;
  std::thread thread_;
};

// Renders the location (auto path, CPU backend, RenderOptions defaults otherwise) and compares it
// with the oracle. Where no pixel of the render escaped, the limit is raised tenfold (up to
// loc.iter_cap) and the view rendered again, so that no view is trivially all at the limit;
// result.loc holds the limit used.
inline LocationResult run_location(Location loc, const RunOptions& ro) {
  LocationResult res;
  res.band = static_cast<int>(std::floor(loc.log10_zoom));
  try {
    mandel::RenderOptions opt = ro.render;
    opt.backend = Backend::kCpu;
    opt.cpu_threads = ro.threads;
    mandel::RenderResult r;
    for (;;) {
      const auto t0 = std::chrono::steady_clock::now();
      r = mandel::render(location_view(loc, ro.size), opt);
      res.render_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      res.escaped = 0;
      for (size_t k = 0; k < r.counts.size(); ++k)
        res.escaped += r.count(k) != 0 && r.count(k) < loc.max_iter;
      if (res.escaped > 0 || loc.max_iter >= loc.iter_cap) break;
      loc.max_iter = std::min(loc.iter_cap, loc.max_iter * 10);
    }
    res.loc = loc;
    res.format = mandel::format_label(r);
    // Perturbation's glitch counters, and a direct render's undecided pixels (the same counters).
    res.glitch_pixels = r.perturb.glitch_pixels;
    res.glitch_refined = r.perturb.glitch_refined;
    res.glitch_corrected = r.perturb.glitch_corrected;
    res.glitch_unresolved = r.perturb.glitch_unresolved;
    res.secondary_references = r.perturb.secondary_references;
    for (size_t k = 0; k < r.counts.size(); ++k) res.zero_counts += r.count(k) == 0;

    const mandel::View v = location_view(loc, ro.size);
    const mandel::Geometry g = mandel::geometry(v);
    std::atomic<bool> cancel{false};
    orc::OracleOptions oo;
    oo.cancel = &cancel;
    orc::OracleGrid grid;
    {
      Deadline deadline(&cancel, ro.oracle_seconds);
      grid = orc::oracle_grid(g, v, ro.grid, oo, nullptr, ro.threads);
    }
    res.oracle_seconds = grid.seconds;
    res.counts.locations = 1;
    for (size_t q = 0; q < grid.where.size(); ++q) {
      const orc::OraclePixel& p = grid.pixels[q];
      if (!p.trusted()) {
        ++res.counts.untrusted;
        res.counts.cancelled += p.status == orc::Status::kCancelled;
        continue;
      }
      const size_t k = static_cast<size_t>(grid.where[q].j) * ro.size + grid.where[q].i;
      const uint64_t ours = r.count(k);
      if (ours == p.count) {
        ++res.counts.equal;
        continue;
      }
      Finding f{grid.where[q].i, grid.where[q].j, ours, p.count, p.bits, ""};
      const uint64_t diff = ours > p.count ? ours - p.count : p.count - ours;
      // Flagged: the render's count 0 (never a count: counts are >= 1) with the render saying that
      // it left pixels unresolved.
      if (ours == 0 && res.glitch_unresolved > 0) {
        ++res.counts.flagged;
        f.kind = "flagged";
      } else if (diff == 1) {
        ++res.counts.off_by_one;
        f.kind = "off by one";
      } else {
        ++res.counts.silent;
        f.kind = "silent";
      }
      res.findings.push_back(f);
    }
  } catch (const std::exception& e) {
    res.loc = loc;
    res.error = e.what();
    res.counts = Counts{};
  }
  return res;
}

// The location as a replayable line (seed index and the numbers themselves).
inline std::string describe(const Location& loc) {
  std::ostringstream o;
  o << "#" << loc.index << " --re " << loc.re << " --im " << loc.im << " --zoom " << loc.zoom << " --iter "
    << loc.max_iter << " (path " << loc.path << (loc.period ? ", period " + std::to_string(loc.period) : "")
    << ")";
  return o.str();
}

inline std::string describe(const LocationResult& r) {
  std::ostringstream o;
  o << "campaign " << describe(r.loc) << "\n  ";
  if (!r.error.empty()) {
    o << "ERROR: " << r.error;
    return o.str();
  }
  char t[160];
  std::snprintf(t, sizeof t, "render %.2f s, oracle %.2f s", r.render_seconds, r.oracle_seconds);
  o << r.format << (r.tiers().empty() ? "" : " [" + r.tiers() + "]") << ", band 1e" << r.band << ": equal "
    << r.counts.equal << ", off by one " << r.counts.off_by_one << ", flagged " << r.counts.flagged
    << ", silent " << r.counts.silent << ", untrusted " << r.counts.untrusted << " (cancelled "
    << r.counts.cancelled << "); escaped " << r.escaped << ", glitch " << r.glitch_pixels << "/"
    << r.glitch_refined << "/" << r.glitch_corrected << "/" << r.glitch_unresolved
    << " (flagged/106-bit/corrected/unresolved), secondary " << r.secondary_references << "; " << t;
  for (const Finding& f : r.findings)
    o << "\n  " << f.kind << ": pixel (" << f.i << ", " << f.j << ") ours " << f.ours << ", MPFR " << f.mpfr
      << " (" << f.oracle_bits << " bits), " << r.format;
  return o.str();
}

// Totals by depth band (decade of zoom, grouped in tens: "1e0-1e9", ...), by format and tier.
struct Tally {
  Counts total;
  std::map<int, Counts> by_band;            // floor(log10 zoom / 10)
  std::map<std::string, Counts> by_format;  // format_label [tiers]
  std::vector<std::string> errors;
  std::vector<std::string> findings;  // describe() of each location with a finding
  void add(const LocationResult& r) {
    if (!r.error.empty()) {
      errors.push_back(describe(r));
      return;
    }
    total += r.counts;
    by_band[r.band / 10] += r.counts;
    by_format[r.format + (r.tiers().empty() ? "" : " [" + r.tiers() + "]")] += r.counts;
    if (!r.findings.empty()) findings.push_back(describe(r));
  }
  static std::string row(const std::string& name, const Counts& c) {
    std::ostringstream o;
    o << "| " << name << " | " << c.locations << " | " << c.trusted() << " | " << c.equal << " | "
      << c.off_by_one << " | " << c.flagged << " | " << c.silent << " | " << c.untrusted << " ("
      << c.cancelled << ") |\n";
    return o.str();
  }
  // Markdown tables (docs/bench/campaign.md).
  std::string table() const {
    const std::string head =
        "| locations | trusted pixels | equal | off by one | flagged | silent | untrusted (cancelled) |\n"
        "|---|---|---|---|---|---|---|---|\n";
    std::ostringstream o;
    o << "| depth band " << head;
    for (const auto& [b, c] : by_band)
      o << row("1e" + std::to_string(10 * b) + " - 1e" + std::to_string(10 * b + 9), c);
    o << row("all", total) << "\n| format [tiers] " << head;
    for (const auto& [f, c] : by_format) o << row(f, c);
    o << row("all", total);
    return o.str();
  }
};

}  // namespace ds::campaign
