// `bench perturb --peer f3` (peer_f3.h): Fraktaler-3 and deepscope's CPU renderer on the same
// locations and cores, alternating, the minimum of --runs wall times each (whole processes: F3's
// batch program, and this program's own `render --backend cpu`); then one more F3 run from its
// centre-sampling build (fraktaler3.sh: the same sources with the per-pixel jitter at 0) and a
// render in this process, compared pixel for pixel; where they differ by more than one, up to
// --check of those pixels go to the MPFR oracle (kernels/perturb/oracle.h), which says which of
// the two is wrong. docs/bench/cpu-peers.md holds the results.
#include "peer_f3.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#if DEEPSCOPE_WITH_OPENEXR
#include <ImfChannelList.h>
#include <ImfFrameBuffer.h>
#include <ImfHeader.h>
#include <ImfInputFile.h>
#endif

#include "app/cli/cancel.h"
#include "app/cli/cli.h"
#include "bench.h"
#include "kernels/core/atomic_file.h"
#include "kernels/mandelbrot/view.h"
#include "kernels/perturb/oracle.h"
#include "kernels/perturb/perturb.h"

namespace ds::app {

std::string f3_toml(const Location& loc, uint64_t iterations, int w, int h, const std::string& exr_stem) {
  const std::string n = std::to_string(iterations);
  return "# written by deepscope bench perturb --peer f3 (tools/peers/loc2f3.py writes the same)\n"
         "[location]\nreal = \"" + loc.re + "\"\nimag = \"" + loc.im + "\"\nzoom = \"" + loc.zoom +
         "\"\n[bailout]\niterations = " + n + "\nmaximum_reference_iterations = " + n +
         "\nmaximum_perturb_iterations = " + n + "\nmaximum_bla_steps = " + n +
         "\nescape_radius = 2.0\n[image]\nwidth = " + std::to_string(w) + "\nheight = " + std::to_string(h) +
         "\nsubsampling = 1\nsubframes = 1\n[render]\nfilename = \"" + exr_stem + "\"\n";
}

std::vector<uint64_t> f3_counts(const std::vector<uint64_t>& raw, bool wide, int w, int h, uint64_t max_iter) {
  std::vector<uint64_t> out(raw.size());
  const uint64_t inside = wide ? ~uint64_t(0) : 0xFFFFFFFFu;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const uint64_t r = raw[static_cast<std::size_t>(h - 1 - y) * w + x];
      out[static_cast<std::size_t>(y) * w + x] = r == inside ? max_iter : r >= 1024 ? r - 1024 : 0;
    }
  return out;
}

PeerCompare compare_with_peer(const std::vector<uint64_t>& peer, const std::vector<uint64_t>& ours, uint64_t max_iter) {
  PeerCompare c;
  std::map<long long, std::size_t> hist;
  for (std::size_t k = 0; k < ours.size(); ++k) {
    const bool pin = peer[k] >= max_iter, oin = ours[k] >= max_iter;
    c.peer_iterations += pin ? max_iter : peer[k];
    c.ours_iterations += oin ? max_iter : ours[k];
    if (ours[k] == 0) {
      ++c.ours_undecided;
      continue;
    }
    c.peer_inside += pin;
    c.ours_inside += oin;
    if (!pin && !oin) {
      ++c.both_escaped;
      ++hist[static_cast<long long>(peer[k]) - static_cast<long long>(ours[k])];
    }
  }
  std::size_t best = 0;
  for (const auto& kv : hist)
    if (kv.second > best) {
      best = kv.second;
      c.offset = kv.first;
    }
  for (std::size_t k = 0; k < ours.size(); ++k) {
    if (ours[k] == 0) continue;
    const bool pin = peer[k] >= max_iter, oin = ours[k] >= max_iter;
    const long long d = static_cast<long long>(peer[k]) - static_cast<long long>(ours[k]) - c.offset;
    if (pin != oin || (!pin && (d > 1 || d < -1))) c.differ.push_back(k);
  }
  return c;
}

namespace {

struct Interrupted {};  // Ctrl-C: bench_perturb_peer says so and exits 130

// s as one word for the shell: in single quotes, each ' as '\'' (for the messages: the commands
// themselves run without a shell).
std::string shq(const std::string& s) {
  std::string q = "'";
  for (const char ch : s) q += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return q + "'";
}

// A program's wall time (argv[0] its path, run directly: no shell), its stdout and stderr to
// `log`; throws on failure, naming the command and the log's tail (exit 1), and on a signal
// (Ctrl-C) as cancelled.
double timed(const std::vector<std::string>& argv, const std::string& log) {
  std::string cmd;
  for (const std::string& a : argv) cmd += (cmd.empty() ? "" : " ") + shq(a);
  std::vector<char*> av;
  for (const std::string& a : argv) av.push_back(const_cast<char*>(a.c_str()));
  av.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  const auto t0 = std::chrono::steady_clock::now();
  pid_t pid = 0;
  const int err = posix_spawn(&pid, av[0], &fa, nullptr, av.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (err != 0)
    throw std::runtime_error("bench perturb --peer: cannot run `" + cmd + "`: " + std::strerror(err));
  // A Ctrl-C meant for this process alone (not its group: kill -INT, a scheduler) goes on to the child.
  int rc = 0;
  bool passed_on = false;
  while (waitpid(pid, &rc, 0) < 0) {
    if (errno != EINTR) throw std::runtime_error("bench perturb --peer: waiting for `" + cmd + "`: " + std::strerror(errno));
    if (cancel_flag().load() && !passed_on) {
      kill(pid, SIGINT);
      passed_on = true;
    }
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (cancel_flag().load() || WIFSIGNALED(rc) || (WIFEXITED(rc) && WEXITSTATUS(rc) == 130)) throw Interrupted{};
  if (rc != 0) {
    std::ifstream in(log);
    std::stringstream ss;
    ss << in.rdbuf();
    std::string tail = ss.str();
    if (tail.size() > 600) tail = tail.substr(tail.size() - 600);
    throw std::runtime_error("bench perturb --peer: `" + cmd + "` failed (exit " +
                             std::to_string(WIFEXITED(rc) ? WEXITSTATUS(rc) : rc) + "): " + tail);
  }
  return s;
}

std::string self_exe() {
  std::error_code ec;
  const auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) throw std::runtime_error("bench perturb --peer: cannot find this program's path (/proc/self/exe)");
  return p.string();
}

// F3's raw count channel from its EXR (N, or N0 and N1).
std::vector<uint64_t> read_f3_exr(const std::string& path, int w, int h, bool* wide) {
#if DEEPSCOPE_WITH_OPENEXR
  Imf::InputFile in(path.c_str());
  const Imath::Box2i dw = in.header().dataWindow();
  if (dw.max.x - dw.min.x + 1 != w || dw.max.y - dw.min.y + 1 != h)
    throw std::runtime_error(path + ": not " + std::to_string(w) + "x" + std::to_string(h));
  *wide = in.header().channels().findChannel("N0") != nullptr;
  if (!*wide && !in.header().channels().findChannel("N")) throw std::runtime_error(path + ": no N channel");
  const std::size_t n = static_cast<std::size_t>(w) * h;
  std::vector<uint32_t> n0(n), n1(n, 0);
  Imf::FrameBuffer fb;
  const std::size_t xs = sizeof(uint32_t), ys = xs * w;
  const long shift = (dw.min.x + static_cast<long>(dw.min.y) * w) * static_cast<long>(xs);
  fb.insert(*wide ? "N0" : "N", Imf::Slice(Imf::UINT, reinterpret_cast<char*>(n0.data()) - shift, xs, ys));
  if (*wide) fb.insert("N1", Imf::Slice(Imf::UINT, reinterpret_cast<char*>(n1.data()) - shift, xs, ys));
  in.setFrameBuffer(fb);
  in.readPixels(dw.min.y, dw.max.y);
  std::vector<uint64_t> raw(n);
  for (std::size_t k = 0; k < n; ++k) raw[k] = (static_cast<uint64_t>(n1[k]) << 32) | n0[k];
  return raw;
#else
  (void)path;
  (void)w;
  (void)h;
  (void)wide;
  throw std::runtime_error("bench perturb --peer: built without OpenEXR (libopenexr-dev), which reads F3's counts");
#endif
}

std::string min_and_runs(const std::vector<double>& t) {
  std::string s = fmt("%.2f s", *std::min_element(t.begin(), t.end())) + " (";
  for (std::size_t i = 0; i < t.size(); ++i) s += (i ? ", " : "") + fmt("%.2f", t[i]);
  return s + ")";
}

}  // namespace

namespace {

int run_peer(const ArgList& args) {
  cli::Args a(args, {"peer", "peer-dir", "kf", "depths", "location", "size", "runs", "check", "out"}, {});
  if (!a.positional().empty()) throw cli::UsageError("bench perturb --peer: unexpected \"" + a.positional()[0] + "\"");
  if (a.get("peer", "") != "f3")
    throw cli::UsageError("bench perturb --peer: \"" + a.get("peer", "") + "\" is not a known peer (f3: Fraktaler-3)");
  if (a.has("kf") == a.has("location"))
    throw cli::UsageError("bench perturb --peer: give --kf DIR (KF's benchmark files) or --location FILE");
  const std::string dir = a.get("peer-dir", ".peers/fraktaler3/build");
  const std::string f3 = dir + "/fraktaler-3", f3c = dir + "/fraktaler-3-centres";
  for (const std::string& p : {f3, f3c})
    if (access(p.c_str(), X_OK) != 0)
      throw cli::UsageError("bench perturb --peer: --peer-dir: no program " + p +
                            " (build the peer with tools/peers/fraktaler3.sh prepare and build)");
  int w = 256, h = 256;
  if (a.has("size")) cli::parse_size(a.get("size", ""), 8192, &w, &h);
  const int runs = static_cast<int>(a.get_int("runs", 3, 1, 100));
  const int check = static_cast<int>(a.get_int("check", 16, 0, 100000));
  const std::string out = a.get("out", "");
  if (!out.empty()) check_writable(out);
  std::vector<std::string> files;
  if (a.has("location")) {
    files.push_back(a.get("location", ""));
  } else {
    std::vector<std::string> names = {"1e14", "1e50", "5e113", "5e227", "4e533", "1e1086"};
    if (a.has("depths")) {
      names.clear();
      std::stringstream ss(a.get("depths", ""));
      for (std::string d; std::getline(ss, d, ',');) names.push_back(d);
    }
    for (const std::string& n : names) files.push_back(a.get("kf", "") + "/" + n + ".kfr");
  }
  std::vector<Location> locs;
  for (const std::string& f : files) {
    locs.push_back(read_location_file(f));  // bad files refused before any work
    if (!locs.back().formula.empty())
      throw cli::UsageError("bench perturb --peer: " + f + ": only z^2 + c is compared (formula " +
                            locs.back().formula + ")");
  }
  char tmpl[] = "/tmp/ds-peer.XXXXXX";
  if (!mkdtemp(tmpl)) throw std::runtime_error("bench perturb --peer: cannot make a temporary directory");
  const std::string tmp = tmpl;
  struct Cleanup {
    std::string d;
    ~Cleanup() {
      std::error_code ec;
      std::filesystem::remove_all(d, ec);
    }
  } cleanup{tmp};
  const std::string wisdom = dir + "/../wisdom.toml", self = self_exe();
  // F3's default wisdom (its number types by zoom), as `fraktaler-3 -W` writes it.
  if (access(wisdom.c_str(), R_OK) != 0) timed({f3, "-W", "-w", wisdom}, tmp + "/wisdom.log");
  std::ostringstream md;
  // The machine and the peer's version (fraktaler3.sh prepare records them beside its build).
  const auto first_line = [](const std::string& path) {
    std::ifstream in(path);
    std::string l;
    std::getline(in, l);
    return l.empty() ? std::string("unknown") : l;
  };
  md << bench_preamble("perturb", args) << "- machine: " << cpu_name() << ", " << sysconf(_SC_NPROCESSORS_ONLN)
     << " threads\n- peer: Fraktaler-3 " << first_line(dir + "/../VERSION") << " (" << first_line(dir + "/../COMMIT")
     << "), " << f3 << "\n\n"
     << "Wall time of each whole process, alternating, the minimum of " << runs
     << " (all runs in brackets); F3 as `fraktaler-3 -b -P -q -w wisdom.toml F.toml` with its per-pixel "
        "caps at the iteration limit and escape radius 2, deepscope as `render --backend cpu`, each on "
        "every core. *differ*: pixels where the two counts (at the pixel centres: F3's centre-sampling "
        "build) differ by more than one, or one escaped and the other did not; up to "
     << check
     << " of them checked against the MPFR oracle (trusted pixels only): how many each program has "
        "wrong there by more than one.\n\n"
     << "| file | size | F3 | deepscope | deepscope / F3 | iterations F3 / deepscope | never escaped F3 / deepscope "
        "| deepscope undecided | differ | MPFR-checked: F3 wrong / deepscope wrong / untrusted |\n"
     << "|---|---|---|---|---|---|---|---|---|---|\n";
  for (std::size_t i = 0; i < files.size(); ++i) {
    const Location& loc = locs[i];
    mandel::View v;
    apply_to_view(loc, &v, false);
    v.width = w;
    v.height = h;
    const std::string toml = tmp + "/f3.toml";
    write_file_atomically(toml, f3_toml(loc, v.max_iter, w, h, tmp + "/f3"));
    std::vector<double> tf, td;
    for (int r = 0; r < runs; ++r) {
      std::filesystem::remove(tmp + "/f3.exr");
      tf.push_back(timed({f3, "-b", "-P", "-q", "-w", wisdom, toml}, tmp + "/f3.log"));
      td.push_back(timed({self, "render", "--backend", "cpu", "--location", files[i], "--size",
                          std::to_string(w) + "x" + std::to_string(h), "--out", tmp + "/ds.png"},
                         tmp + "/ds.log"));
      std::fprintf(stderr, "%s run %d: F3 %.2f s, deepscope %.2f s\n", files[i].c_str(), r + 1, tf.back(), td.back());
    }
    std::filesystem::remove(tmp + "/f3.exr");
    timed({f3c, "-b", "-P", "-q", "-w", wisdom, toml}, tmp + "/f3c.log");
    bool wide = false;
    const std::vector<uint64_t> peer = f3_counts(read_f3_exr(tmp + "/f3.exr", w, h, &wide), wide, w, h, v.max_iter);
    mandel::RenderOptions o;
    o.backend = mandel::Backend::kCpu;
    o.cancel = &cancel_flag();
    const mandel::RenderResult res = mandel::render(v, o);
    if (cancel_flag().load()) throw Interrupted{};
    std::vector<uint64_t> ours(res.counts.size());
    for (std::size_t k = 0; k < ours.size(); ++k) ours[k] = res.count(k);
    const PeerCompare c = compare_with_peer(peer, ours, v.max_iter);
    // Up to `check` of the differing pixels, evenly spread, against MPFR.
    std::vector<mandel::PixelIndex> where;
    const std::size_t m = std::min<std::size_t>(check, c.differ.size());
    for (std::size_t q = 0; q < m; ++q) {
      const std::size_t k = c.differ[q * c.differ.size() / m];
      where.push_back({static_cast<int>(k % w), static_cast<int>(k / w)});
    }
    perturb::oracle::OracleOptions oo;
    oo.cancel = &cancel_flag();
    if (!where.empty())
      std::fprintf(stderr, "%s: %zu of the %zu differing pixels against MPFR\n", files[i].c_str(), where.size(),
                   c.differ.size());
    const auto px = perturb::oracle::oracle_pixels(mandel::geometry(v), v, where, oo, stderr_progress());
    if (!where.empty()) std::fprintf(stderr, "\n");
    if (cancel_flag().load()) throw Interrupted{};
    std::size_t f3_wrong = 0, ds_wrong = 0, untrusted = 0;
    const auto off = [](uint64_t a, uint64_t b) { return a > b + 1 || b > a + 1; };
    for (std::size_t q = 0; q < px.size(); ++q) {
      if (!px[q].trusted()) {
        ++untrusted;
        continue;
      }
      const std::size_t k = static_cast<std::size_t>(where[q].j) * w + where[q].i;
      f3_wrong += off(peer[k], px[q].count);
      ds_wrong += off(ours[k], px[q].count);
    }
    const double ratio = *std::min_element(td.begin(), td.end()) / *std::min_element(tf.begin(), tf.end());
    md << "| " << std::filesystem::path(files[i]).filename().string() << " | " << w << "x" << h << " | "
       << min_and_runs(tf) << " | " << min_and_runs(td) << " | " << fmt("%.2f", ratio) << " | "
       << fmt("%.4e", static_cast<double>(c.peer_iterations)) << " / " << fmt("%.4e", static_cast<double>(c.ours_iterations))
       << " | " << c.peer_inside << " / " << c.ours_inside << " | " << c.ours_undecided << " | " << c.differ.size()
       << (c.offset != 0 ? " (count offset " + std::to_string(c.offset) + ")" : std::string()) << " | " << f3_wrong
       << " / " << ds_wrong << " / " << untrusted << " of " << px.size() << " |\n";
  }
  std::cout << md.str();
  if (!out.empty()) write_file_atomically(out, md.str());
  return 0;
}

}  // namespace

int bench_perturb_peer(const ArgList& args) {
  install_cancel_handler();
  try {
    return run_peer(args);
  } catch (const Interrupted&) {
    std::cerr << "deepscope bench perturb --peer: interrupted; nothing written\n";
    return 130;
  }
}

}  // namespace ds::app
