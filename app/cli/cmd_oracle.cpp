// `deepscope oracle`: an N x N grid of a view's pixels by the MPFR oracle (kernels/perturb/oracle.h),
// written as .npy arrays (counts, smooth counts, trusted mask, certifying bits) and a JSON record.
// Resumable: finished pixels go to OUT.chunks as they come; every output is written whole at the end.
// A formula other than z^2 + c (--formula, or the location's): each pixel by the formula's own MPFR
// orbit (kernels/formula/mpfr_orbit.h) at two precisions, trusted where both give the same count.
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <map>
#include <sstream>

#include "cancel.h"
#include "cli.h"
#include "commands.h"
#include "app/io/image_io.h"
#include "kernels/core/atomic_file.h"
#include "kernels/core/cpu_parallel.h"
#include "kernels/formula/formula.h"
#include "kernels/formula/mpfr_orbit.h"
#include "kernels/perturb/oracle.h"
#include "kernels/core/work.h"
#include "app/io/location.h"
#include "version.h"

namespace ds::app {
namespace {

namespace orc = perturb::oracle;

struct OracleJob {
  mandel::View view;
  std::string location_file;
  int grid = 32;
  orc::OracleOptions opt;
  unsigned threads = 0;
  std::string out, smooth, trusted, bits, meta;
  bool quiet = false;
  formula::Formula formula = formula::parse_formula("mandelbrot");
  bool plain() const { return formula::is_mandelbrot(formula); }
};

// "a,b,c,d" -> four finite doubles.
void parse_pixel_map(const std::string& s, double* m) {
  std::stringstream in(s);
  std::string part;
  int k = 0;
  while (std::getline(in, part, ',')) {
    if (k == 4) break;
    m[k] = cli::parse_double("--pixel-map", part);
    if (!std::isfinite(m[k])) throw cli::UsageError("--pixel-map: \"" + part + "\" is not finite");
    ++k;
  }
  if (k != 4 || std::getline(in, part))
    throw cli::UsageError("--pixel-map takes four numbers m0,m1,m2,m3, got \"" + s + "\"");
  if (m[0] * m[3] - m[1] * m[2] == 0) throw cli::UsageError("--pixel-map is singular: \"" + s + "\"");
}

// OUT without a trailing ".npy", to name the companion files.
std::string stem_of(const std::string& out) {
  const std::string ext = ".npy";
  if (out.size() > ext.size() && out.compare(out.size() - ext.size(), ext.size(), ext) == 0)
    return out.substr(0, out.size() - ext.size());
  return out;
}

OracleJob parse_oracle(const ArgList& args) {
  cli::Args a(args,
              {"re", "im", "zoom", "iter", "size", "location", "grid", "out", "meta", "pixel-map",
               "start-bits", "max-bits", "escalations", "threads", "formula"},
              {"no-confirm", "quiet"});
  if (!a.positional().empty())
    throw cli::UsageError("oracle takes no positional argument: \"" + a.positional()[0] + "\"");
  OracleJob j;
  j.out = a.require("out");
  if (a.has("location")) {
    j.location_file = a.get("location", "");
    // The same view `render --location` draws (KF's axis, Rotate/Ratio, F3's transform).
    apply_to_view(read_location_file(j.location_file), &j.view, true, &j.formula);
  }
  if (a.has("formula")) j.formula = formula::parse_formula(a.get("formula", ""));
  j.view.re = a.get("re", j.view.re);
  j.view.im = a.get("im", j.view.im);
  j.view.zoom = a.get("zoom", j.view.zoom);
  j.view.max_iter = a.get_iterations("iter", j.view.max_iter);
  if (a.has("size")) cli::parse_size(a.get("size", ""), 1 << 20, &j.view.width, &j.view.height);
  if (a.has("pixel-map")) parse_pixel_map(a.get("pixel-map", ""), j.view.pixel_map);
  j.grid = static_cast<int>(a.get_int("grid", 32, 1, 4096));
  if (j.grid > std::min(j.view.width, j.view.height))
    throw cli::UsageError("--grid " + std::to_string(j.grid) + " is larger than the image's smaller side (" +
                          std::to_string(j.view.width) + "x" + std::to_string(j.view.height) + ")");
  j.opt.start_bits = static_cast<int>(a.get_int("start-bits", 0, 2, 1 << 24));
  j.opt.max_bits = static_cast<int>(a.get_int("max-bits", 0, 2, 1 << 24));
  if (j.opt.start_bits && j.opt.max_bits && j.opt.start_bits > j.opt.max_bits)
    throw cli::UsageError("--start-bits " + std::to_string(j.opt.start_bits) + " is above --max-bits " +
                          std::to_string(j.opt.max_bits) + " (no run may exceed --max-bits)");
  j.opt.max_escalations = static_cast<int>(a.get_int("escalations", 4, 0, 64));
  j.opt.confirm = !a.flag("no-confirm");
  j.threads = static_cast<unsigned>(a.get_int("threads", 0, 1, 4096));
  const std::string stem = stem_of(j.out);
  j.smooth = stem + "_smooth.npy";
  j.trusted = stem + "_trusted.npy";
  j.bits = stem + "_bits.npy";
  j.meta = a.get("meta", stem + ".json");
  j.quiet = a.flag("quiet");
  if (!j.plain()) {
    if (a.has("pixel-map"))
      throw cli::UsageError("--pixel-map with --formula " + formula::to_string(j.formula) +
                            ": the formula orbits take square, unrotated pixels only");
    if (a.has("max-bits") || a.has("escalations") || a.has("no-confirm"))
      throw cli::UsageError("--max-bits, --escalations and --no-confirm: not for formulas (--formula " +
                            formula::to_string(j.formula) +
                            " counts each pixel at --start-bits and one rung higher, no escalation)");
  }
  return j;
}

// A pixel's chunk payload: one text line (smooth as a hex float, so a resume loses nothing).
std::string encode_pixel(const orc::OraclePixel& p) {
  char b[200];
  std::snprintf(b, sizeof b, "%llu %a %d %d %d %d %d %.17g %llu\n", static_cast<unsigned long long>(p.count),
                static_cast<double>(p.smooth), static_cast<int>(p.status), p.bits, p.confirm_bits, p.top_bits, p.runs,
                p.log2_bound, static_cast<unsigned long long>(p.lost_at));
  return b;
}

// A formula pixel's record: the same fields and whether the higher run's error bound certified it.
std::string encode_formula_pixel(const orc::OraclePixel& p, bool bound_certified) {
  std::string s = encode_pixel(p);
  s.back() = ' ';
  return s + (bound_certified ? "1\n" : "0\n");
}

// `bound_certified`: the formula records' tenth field (they must have one; the others must not).
orc::OraclePixel decode_pixel(const std::string& s, bool* bound_certified = nullptr) {
  orc::OraclePixel p;
  double smooth = 0;
  int status = 0, cert = -1;
  unsigned long long count = 0, lost_at = 0;
  const int fields = std::sscanf(s.c_str(), "%llu %la %d %d %d %d %d %lg %llu %d", &count, &smooth, &status,
                                 &p.bits, &p.confirm_bits, &p.top_bits, &p.runs, &p.log2_bound, &lost_at, &cert);
  if (fields != (bound_certified ? 10 : 9) || status < 0 || status > static_cast<int>(orc::Status::kCancelled) ||
      (bound_certified && cert != 0 && cert != 1))
    throw std::runtime_error("oracle: malformed pixel record in the chunk file");
  if (bound_certified) *bound_certified = cert == 1;
  p.count = count;
  p.lost_at = lost_at;
  p.smooth = static_cast<float>(smooth);
  p.status = static_cast<orc::Status>(status);
  return p;
}

std::string json_string(const std::string& s) {
  std::string o = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      o += '\\';
      o += static_cast<char>(c);
    } else if (c < 0x20) {
      char b[8];
      std::snprintf(b, sizeof b, "\\u%04x", c);
      o += b;
    } else {
      o += static_cast<char>(c);
    }
  }
  return o + "\"";
}

// The command as a shell would take it back.
std::string command_line(const ArgList& args) {
  std::string s = "deepscope oracle";
  for (const std::string& a : args) {
    bool plain = !a.empty();
    for (unsigned char c : a)
      if (!(std::isalnum(c) || std::strchr("-_./=:,+@%", c))) plain = false;
    if (plain) {
      s += " " + a;
      continue;
    }
    s += " '";
    for (char c : a) s += c == '\'' ? std::string("'\\''") : std::string(1, c);
    s += "'";
  }
  return s;
}

std::string meta_json(const OracleJob& j, const ArgList& args, const mandel::Geometry& g,
                      const std::vector<orc::OraclePixel>& px, double seconds, int64_t resumed,
                      int64_t bound_certified) {
  const mandel::View& v = j.view;
  const int n = j.grid;
  std::map<orc::Status, int> by_status;
  std::map<int, int> by_bits;  // certifying precision -> pixels (0: none)
  for (const orc::OraclePixel& p : px) {
    ++by_status[p.status];
    ++by_bits[p.trusted() ? p.bits : 0];
  }
  std::ostringstream o;
  o << "{\n  \"command\": " << json_string(command_line(args)) << ",\n";
  o << "  \"deepscope\": {\"version\": " << json_string(DEEPSCOPE_VERSION)
    << ", \"commit\": " << json_string(DEEPSCOPE_GIT_COMMIT) << "},\n";
  o << "  \"location\": {\"file\": " << json_string(j.location_file) << ", \"re\": " << json_string(v.re)
    << ", \"im\": " << json_string(v.im) << ", \"zoom\": " << json_string(v.zoom)
    << ", \"iterations\": " << v.max_iter << "},\n";
  if (!j.plain()) o << "  \"formula\": " << json_string(formula::to_string(j.formula)) << ",\n";
  o << "  \"size\": [" << v.width << ", " << v.height << "],\n";
  o << "  \"pixel_map\": [" << v.pixel_map[0] << ", " << v.pixel_map[1] << ", " << v.pixel_map[2] << ", "
    << v.pixel_map[3] << "],\n";
  o << "  \"grid\": " << n << ",\n";
  o << "  \"pixels\": \"array [l][k] holds pixel (i, j) = (floor((k + 0.5) * width / grid), "
       "floor((l + 0.5) * height / grid)), j = 0 at the top\",\n";
  o << "  \"files\": {\"counts\": " << json_string(j.out)
    << ", \"smooth\": " << (j.plain() ? json_string(j.smooth) : std::string("null"))
    << ", \"trusted\": " << json_string(j.trusted) << ", \"bits\": " << json_string(j.bits) << "},\n";
  if (!j.plain()) {
    const int b = j.opt.start_bits ? j.opt.start_bits : orc::start_bits(g, v);
    o << "  \"oracle\": {\"start_bits\": " << b << ", \"confirm_bits\": " << orc::next_bits(b)
      << ", \"rule\": \"the formula's own MPFR orbit (kernels/formula/mpfr_orbit.h) at start_bits and at "
         "confirm_bits; a count is trusted when both runs give it (no smooth counts: the formula orbits give "
         "none)\", \"bound_certified\": "
      << bound_certified
      << ", \"bound_certified_is\": \"pixels whose confirm_bits run's rigorous error bound also decided every "
         "escape test\"},\n";
  } else {
  o << "  \"oracle\": {\"start_bits\": " << (j.opt.start_bits ? j.opt.start_bits : orc::start_bits(g, v))
    << ", \"max_bits\": " << j.opt.max_bits << ", \"max_escalations\": " << j.opt.max_escalations
    << ", \"confirm\": " << (j.opt.confirm ? "true" : "false")
    << ", \"rule\": \"MPFR direct iteration with a rigorous running error bound; a count is trusted when the "
       "bound certifies it"
    << (j.opt.confirm ? " and a run one rung higher (bits + max(64, bits/2)) certifies the same count" : "")
    << "\"},\n";
  }
  const int trusted = by_status[orc::Status::kTrusted];
  o << "  \"trusted\": " << trusted << ",\n  \"untrusted\": " << static_cast<int>(px.size()) - trusted
    << ",\n";
  o << "  \"status\": {";
  bool first = true;
  for (const auto& [s, c] : by_status) {
    o << (first ? "" : ", ") << json_string(orc::status_name(s)) << ": " << c;
    first = false;
  }
  o << "},\n  \"bits_histogram\": [";
  first = true;
  for (const auto& [b, c] : by_bits) {
    o << (first ? "" : ", ") << "{\"bits\": " << b << ", \"pixels\": " << c << "}";
    first = false;
  }
  o << "],\n  \"bits_per_grid_row\": [";
  for (int l = 0; l < n; ++l) {
    int lo = 0, hi = 0, top = 0;
    for (int k = 0; k < n; ++k) {
      const orc::OraclePixel& p = px[static_cast<size_t>(l) * n + k];
      const int b = p.trusted() ? p.bits : 0;
      lo = k == 0 ? b : std::min(lo, b);
      hi = std::max(hi, b);
      top = std::max(top, p.top_bits);
    }
    o << (l ? ", " : "") << "[" << lo << ", " << hi << ", " << top << "]";
  }
  o << "],\n  \"bits_per_grid_row_is\": \"[lowest, highest certifying bits (0: an untrusted pixel), "
       "highest bits tried]\",\n";
  o << "  \"seconds\": " << seconds << ",\n  \"resumed_pixels\": " << resumed << "\n}\n";
  return o.str();
}

// Progress on stderr: one rewritten line on a terminal, a line every 30 s otherwise.
struct Progress {
  bool tty = false, quiet = false;
  std::chrono::steady_clock::time_point t0 = std::chrono::steady_clock::now(), last = t0;
  void show(int64_t done, int64_t total, int64_t untrusted) {
    if (quiet) return;
    const auto now = std::chrono::steady_clock::now();
    if (!tty && now - last < std::chrono::seconds(30) && done < total) return;
    last = now;
    const double s = std::chrono::duration<double>(now - t0).count();
    std::fprintf(stderr, "%soracle: %lld/%lld pixels (%lld untrusted), %.0f s%s", tty ? "\r" : "",
                 static_cast<long long>(done), static_cast<long long>(total),
                 static_cast<long long>(untrusted), s, tty ? "" : "\n");
    std::fflush(stderr);
  }
  void clear() {
    if (tty && !quiet) std::fprintf(stderr, "\r%*s\r", 60, "");
  }
};

}  // namespace

int cmd_oracle(const ArgList& args) {
  OracleJob j = parse_oracle(args);
  const mandel::Geometry g = mandel::geometry(j.view);  // ViewError: exit 2
  if (!j.plain() && !g.square_pixels)
    throw cli::UsageError("oracle --formula " + formula::to_string(j.formula) +
                          ": the view has a pixel map or an exponential map; the formula orbits take square, "
                          "unrotated pixels only");
  const std::string chunk_file = j.out + ".chunks";
  if (j.plain())
    check_outputs({j.out, j.smooth, j.trusted, j.bits, j.meta, chunk_file});
  else
    check_outputs({j.out, j.trusted, j.bits, j.meta, chunk_file});

  const int n = j.grid;
  const std::vector<orc::PixelIndex> where = orc::grid_pixels(j.view, n);
  std::vector<orc::OraclePixel> px(where.size());
  std::vector<uint8_t> bound_certified(j.plain() ? 0 : where.size());
  int64_t untrusted = 0, done = 0;
  Progress line;
  line.tty = isatty(2);
  line.quiet = j.quiet;

  install_cancel_handler();
  work::Job job;
  job.chunks = static_cast<int64_t>(where.size());
  job.chunk_file = chunk_file;
  const mandel::View& v = j.view;
  char map[160];
  std::snprintf(map, sizeof map, "%a,%a,%a,%a", v.pixel_map[0], v.pixel_map[1], v.pixel_map[2],
                v.pixel_map[3]);
  // Everything that decides a pixel's record: a chunk file of other parameters is refused.
  job.header = "deepscope-oracle 1 re=" + v.re + " im=" + v.im + " zoom=" + v.zoom +
               " size=" + std::to_string(v.width) + "x" + std::to_string(v.height) +
               " iter=" + std::to_string(v.max_iter) + " map=" + map + " grid=" + std::to_string(n) +
               " start=" + std::to_string(j.opt.start_bits) + " max=" + std::to_string(j.opt.max_bits) +
               " esc=" + std::to_string(j.opt.max_escalations) + " confirm=" + (j.opt.confirm ? "1" : "0");
  if (!j.plain()) job.header += " formula=" + formula::to_string(j.formula);
  const int formula_bits = j.opt.start_bits ? j.opt.start_bits : orc::start_bits(g, v);
  // One worker per core, one pixel per chunk: pixels cost from one step to max_iter steps.
  const unsigned threads = resolve_threads(j.threads);
  job.workers.assign(threads, work::Worker{});
  job.cancel = &cancel_flag();
  job.compute = [&](int64_t c, const work::Worker&, const std::atomic<bool>& stop,
                    const std::function<void(double)>&, std::string* payload) {
    orc::OracleOptions o = j.opt;
    o.cancel = &stop;
    const orc::PixelIndex at = where[static_cast<size_t>(c)];
    if (!j.plain()) {  // two runs of the formula's orbit (not cancellable mid-run: one pixel each)
      if (stop.load()) return false;
      orc::OraclePixel p;
      bool cert_low = false, cert_high = false;
      const int high = orc::next_bits(formula_bits);
      const uint64_t n1 = formula::mpfr_count_certified(g, v, j.formula, at.i, at.j, formula_bits, &cert_low);
      const uint64_t n2 = formula::mpfr_count_certified(g, v, j.formula, at.i, at.j, high, &cert_high);
      p.count = n2;
      p.smooth = 0;
      p.status = n1 == n2 ? orc::Status::kTrusted : orc::Status::kContradicted;
      p.bits = formula_bits;
      p.confirm_bits = high;
      p.top_bits = high;
      p.runs = 2;
      *payload = encode_formula_pixel(p, n1 == n2 && cert_high);
      return true;
    }
    const orc::OraclePixel p = orc::oracle_pixel(g, v, at.i, at.j, o);
    if (p.status == orc::Status::kCancelled) return false;
    *payload = encode_pixel(p);
    return true;
  };
  job.take = [&](int64_t c, const std::string& payload, bool) {
    if (j.plain()) {
      px[static_cast<size_t>(c)] = decode_pixel(payload);
    } else {
      bool cert = false;
      px[static_cast<size_t>(c)] = decode_pixel(payload, &cert);
      bound_certified[static_cast<size_t>(c)] = cert ? 1 : 0;
    }
    untrusted += px[static_cast<size_t>(c)].trusted() ? 0 : 1;
    line.show(++done, job.chunks, untrusted);
  };
  if (!j.quiet)
    std::cerr << "deepscope oracle: " << n << "x" << n << " grid of " << v.width << "x" << v.height << ", "
              << v.max_iter << " iterations"
              << (j.plain() ? "" : ", formula " + formula::to_string(j.formula) + ", at") << (j.plain() ? ", from " : " ")
              << (j.opt.start_bits ? j.opt.start_bits : orc::start_bits(g, v)) << " bits, " << threads
              << " threads\n";
  const work::Stats s = work::run(job);
  line.clear();
  if (!work::is_writer()) return s.cancelled ? 130 : 0;
  if (!s.complete()) {
    if (!j.quiet) return report_interrupted(s.loaded + s.run, s.owned, "pixels", job.chunk_file);
    return 130;
  }

  // Counts and smooth counts in the engine's storage (counts.h), written as deepscope render writes them.
  const bool wide = mandel::wide_counts(j.view.max_iter);
  std::vector<uint32_t> counts(px.size()), bits(px.size()), counts_high(wide ? px.size() : 0);
  std::vector<float> smooth(px.size());
  std::vector<uint8_t> trusted(px.size());
  for (size_t k = 0; k < px.size(); ++k) {
    mandel::store_pixel(counts.data(), wide ? counts_high.data() : nullptr, smooth.data(), k, px[k].count,
                        px[k].smooth);
    trusted[k] = px[k].trusted() ? 1 : 0;
    bits[k] = px[k].trusted() ? static_cast<uint32_t>(px[k].bits) : 0;
  }
  write_file_atomically(j.out, encode_counts_npy(counts, counts_high, n, n));
  if (j.plain()) write_file_atomically(j.smooth, encode_smooth_npy(smooth, counts, counts_high, n, n));
  write_file_atomically(j.trusted, encode_npy(trusted, n, n));
  write_file_atomically(j.bits, encode_npy(bits, n, n));
  int64_t certified = 0;
  for (uint8_t c : bound_certified) certified += c;
  write_file_atomically(j.meta, meta_json(j, args, g, px, s.seconds, s.loaded, j.plain() ? -1 : certified));
  std::remove(job.chunk_file.c_str());
  if (!j.quiet) {
    std::map<int, int> by_bits;
    for (const orc::OraclePixel& p : px)
      if (p.trusted()) ++by_bits[p.bits];
    std::cerr << "deepscope oracle: " << px.size() - untrusted << "/" << px.size() << " pixels trusted (";
    bool first = true;
    for (const auto& [b, c] : by_bits) {
      std::cerr << (first ? "" : ", ") << c << " at " << b << " bits";
      first = false;
    }
    std::cerr << (first ? "none" : "") << "), " << untrusted << " untrusted; " << s.seconds << " s";
    if (s.loaded) std::cerr << " (" << s.loaded << " pixels resumed)";
    if (!j.plain()) std::cerr << "; " << certified << " of the trusted certified by the error bound too";
    std::cerr << "\ndeepscope oracle: wrote " << j.out << ", " << (j.plain() ? j.smooth + ", " : "") << j.trusted << ", "
              << j.bits << ", " << j.meta << "\n";
  }
  return 0;
}

}  // namespace ds::app
