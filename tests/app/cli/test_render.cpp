// `deepscope render`: bad input exits with code 2 and writes nothing; good input writes a PNG
// that reopens as a location, .npy arrays, numbered zoom frames; Ctrl-C leaves nothing behind.
// Runs the command in-process, and the built executable where it can be found (DEEPSCOPE_EXE, or
// ../app/deepscope next to this test in a CMake build tree).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <climits>
#include <csignal>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include "arith/error.h"
#include "kernels/core/atomic_file.h"
#include "app/cli/cancel.h"
#include "app/cli/cli.h"
#include "app/cli/commands.h"
#include "app/io/image_io.h"
#include "kernels/core/device.h"
#include "kernels/mandelbrot/mandelbrot.h"
#include "app/io/location.h"
#include "locations.h"
#include "render_in_process.h"

namespace {

using namespace ds;

const char* kKfRe = ds::test::kKf1e14Re;
const char* kKfIm = ds::test::kKf1e14Im;

std::string tmpdir() {
  char tmpl[] = "/tmp/deepscope-render-XXXXXX";
  return mkdtemp(tmpl);
}

bool exists(const std::string& p) { return access(p.c_str(), F_OK) == 0; }

std::string slurp(const std::string& p) {
  std::ifstream f(p, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

// Files in `dir` (to check that nothing, not even a temporary, was left).
int entries(const std::string& dir) {
  std::string cmd = "test -d " + dir + " && ls -A " + dir + " | wc -l";
  FILE* p = popen(cmd.c_str(), "r");
  int n = -1;
  if (p && fscanf(p, "%d", &n) != 1) n = -1;
  if (p) pclose(p);
  return n;
}

using ds::test::render_in_process;

std::string executable() {
#ifdef DEEPSCOPE_EXE
  return DEEPSCOPE_EXE;
#else
  char self[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) return "";
  self[n] = 0;
  std::string dir(self);
  dir = dir.substr(0, dir.find_last_of('/'));
  return dir + "/../app/deepscope";
#endif
}

std::string quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// Runs the executable; returns its exit code (stderr into *err).
int run_executable(const app::ArgList& args, std::string* err = nullptr) {
  const std::string log = tmpdir() + "/stderr.txt";
  std::string cmd = quote(executable()) + " render";
  for (const auto& a : args) cmd += " " + quote(a);
  cmd += " >/dev/null 2>" + quote(log);
  const int status = std::system(cmd.c_str());
  if (err) *err = slurp(log);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

struct BadCase {
  const char* what;
  app::ArgList args;  // --out is added
};

std::vector<BadCase> bad_cases(const std::string& dir) {
  const std::string kfr = dir + "/kf.kfr", broken = dir + "/broken.kfr";
  std::ofstream(kfr) << "Re: " << kKfRe << "\nIm: " << kKfIm << "\nZoom: 1.00e014\nIterations: 4036\n";
  std::ofstream(broken) << "Re: -0.5\nZoom: 2\n";  // no Im
  std::ofstream(dir + "/deep.kfr") << "Re: 2\nIm: 0\nZoom: 2\nIterations: 9223372036854775808\n";
  return {
      {"malformed re", {"--re", "abc"}},
      {"malformed im", {"--im", "1e5x"}},
      {"NaN re", {"--re", "nan"}},
      {"zero zoom", {"--zoom", "0"}},
      {"negative zoom", {"--zoom", "-5"}},
      {"malformed zoom", {"--zoom", "1e"}},
      {"zero size", {"--size", "0x10"}},
      {"malformed size", {"--size", "64by48"}},
      {"size beyond memory", {"--size", "200000x200000"}},
      {"unknown format", {"--arith", "f65"}},
      {"f64 at 1e14", {"--location", kfr, "--arith", "f64", "--size", "64x64"}},
      {"unknown palette", {"--palette", "nope"}},
      {"zero iterations", {"--iter", "0"}},
      {"negative iterations", {"--iter", "-5"}},
      {"iterations of 2^63", {"--iter", "9223372036854775808"}},
      {"iterations past 2^64", {"--iter", "18446744073709551617"}},
      {"fractional iterations", {"--iter", "2.5"}},
      {"iterations of 2^63 in a location", {"--location", dir + "/deep.kfr"}},
      {"missing location", {"--location", dir + "/nowhere.kfr"}},
      {"malformed location", {"--location", broken}},
      {"frames without zoom-to", {"--frames", "3"}},
      {"zoom-to without frames", {"--zoom-to", "10"}},
      {"bad zoom-to", {"--frames", "3", "--zoom-to", "0"}},
      {"zero density", {"--density", "0"}},
      {"bad backend", {"--backend", "gpu"}},
      {"bad limb strategy", {"--limb-strategy", "warp"}},
      {"unknown option", {"--bogus", "1"}},
      {"positional argument", {"extra"}},
      {"unwritable counts", {"--counts", "/nonexistent-dir/c.npy"}},
      {"counts onto a directory", {"--counts", dir}},
      {"device as location", {"--location", "/dev/zero"}},
      {"directory as location", {"--location", dir}},
      {"option given twice", {"--iter", "100", "--iter", "200"}},
  };
}

TEST(RenderCommand, BadInputExitsWithTwoAndWritesNothing) {
  const std::string dir = tmpdir(), outdir = tmpdir();
  for (const BadCase& c : bad_cases(dir)) {
    app::ArgList args = c.args;
    args.push_back("--out");
    args.push_back(outdir + "/x.png");
    args.push_back("--quiet");
    std::string msg;
    EXPECT_EQ(render_in_process(args, &msg), 2) << c.what;
    EXPECT_FALSE(msg.empty()) << c.what;
    EXPECT_EQ(entries(outdir), 0) << c.what << ": something was written";
  }
  std::string msg;
  EXPECT_EQ(render_in_process({"--out", "/nonexistent-dir/x.png", "--quiet"}, &msg), 2);
  EXPECT_EQ(render_in_process({"--size", "8x8"}, &msg), 2) << "--out is required";
}

TEST(RenderCommand, F64AtKfLocationNamesItsLimitAndAnAlternative) {
  const std::string dir = tmpdir();
  std::string msg;
  EXPECT_EQ(render_in_process({"--re", kKfRe, "--im", kKfIm, "--zoom", "1e14", "--arith", "f64", "--size",
                               "64x64", "--out", dir + "/x.png"},
                              &msg),
            2);
  EXPECT_NE(msg.find("up to zoom"), std::string::npos) << msg;
  EXPECT_NE(msg.find("would work"), std::string::npos) << msg;
}

TEST(RenderCommand, TheExecutableExitsWithTwoOnBadInput) {
  if (access(executable().c_str(), X_OK) != 0)
    GTEST_SKIP() << "deepscope executable not found at " << executable() << " (set DEEPSCOPE_EXE)";
  const std::string dir = tmpdir(), outdir = tmpdir();
  for (const BadCase& c : bad_cases(dir)) {
    app::ArgList args = c.args;
    args.push_back("--out");
    args.push_back(outdir + "/x.png");
    std::string err;
    EXPECT_EQ(run_executable(args, &err), 2) << c.what << ": " << err;
    EXPECT_NE(err.find("deepscope"), std::string::npos) << c.what;
    EXPECT_EQ(entries(outdir), 0) << c.what << ": something was written";
  }
  // A missing GPU with --backend cuda is a clear error, not a silent fallback.
  if (cuda_device_count() == 0) {
    std::string err;
    EXPECT_NE(run_executable({"--backend", "cuda", "--size", "16x16", "--out", outdir + "/x.png"}, &err), 0);
    EXPECT_NE(err.find("CUDA"), std::string::npos) << err;
    EXPECT_EQ(entries(outdir), 0);
  }
}

TEST(RenderCommand, PlainRenderWorksAndThePngReopensTheView) {
  const std::string dir = tmpdir();
  const bool have_exe = access(executable().c_str(), X_OK) == 0;
  if (have_exe) {
    EXPECT_EQ(run_executable({"--size", "64x36", "--backend", "cpu", "--out", dir + "/plain.png"}), 0);
    EXPECT_TRUE(app::is_png(slurp(dir + "/plain.png")));
  }
  const std::string shot = dir + "/shot.png";
  ASSERT_EQ(render_in_process({"--re",      kKfRe,      "--im",         kKfIm,      "--zoom",      "1e14",
                               "--iter",    "4036",     "--size",       "48x32",    "--palette",   "gray",
                               "--density", "3",        "--backend",    "cpu",      "--quiet",     "--out",
                               shot,        "--counts", dir + "/c.npy", "--smooth", dir + "/s.npy"}),
            0);
  const app::Location loc = app::read_location_file(shot);
  EXPECT_EQ(loc.re, kKfRe);
  EXPECT_EQ(loc.zoom, "1e14");
  EXPECT_EQ(*loc.iterations, 4036u);
  EXPECT_EQ(*loc.palette, "gray");
  EXPECT_EQ(*loc.width, 48);
  // Reopening the PNG renders the same view with the same colours: the same bytes.
  ASSERT_EQ(
      render_in_process({"--location", shot, "--backend", "cpu", "--quiet", "--out", dir + "/again.png"}), 0);
  EXPECT_EQ(slurp(dir + "/again.png"), slurp(shot));
  // The counts are the engine's, row 0 at the top.
  mandel::View v;
  v.re = kKfRe;
  v.im = kKfIm;
  v.zoom = "1e14";
  v.max_iter = 4036;
  v.width = 48;
  v.height = 32;
  mandel::RenderOptions o;
  o.backend = mandel::Backend::kCpu;
  const mandel::RenderResult r = mandel::render(v, o);
  EXPECT_EQ(slurp(dir + "/c.npy"), app::encode_npy(r.counts, 32, 48));
  EXPECT_EQ(slurp(dir + "/s.npy"), app::encode_npy(r.smooth, 32, 48));
  EXPECT_EQ(entries(dir), have_exe ? 5 : 4);  // shot, again, c, s (and plain): no temporaries
}

// Counts are 64-bit end to end: --iter takes up to 2^63 - 1 ("5e9" too), and a view whose pixels all
// escape within a few steps (Re c >= 0.66, right of M) gives the counts of --iter 1000 there; the
// PNG carries the limit, the .npy counts stay uint32 (every count fits) and smooth counts are float64.
TEST(RenderCommand, IterationsPast2To32) {
  const std::string dir = tmpdir();
  const app::ArgList view = {"--re", "2", "--im", "0", "--zoom", "2", "--size", "16x12", "--backend", "cpu", "--quiet"};
  auto with = [&](app::ArgList extra) {
    app::ArgList a = view;
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  };
  ASSERT_EQ(render_in_process(with({"--iter", "1000", "--out", dir + "/a.png", "--counts", dir + "/a.npy"})), 0);
  ASSERT_EQ(render_in_process(with({"--iter", "5e9", "--out", dir + "/b.png", "--counts", dir + "/b.npy", "--smooth",
                                    dir + "/b_smooth.npy"})),
            0);
  ASSERT_EQ(render_in_process(with({"--iter", "9223372036854775807", "--out", dir + "/c.png"})), 0);
  EXPECT_EQ(*app::read_location_file(dir + "/b.png").iterations, 5000000000ull);
  EXPECT_EQ(*app::read_location_file(dir + "/c.png").iterations, 9223372036854775807ull);
  EXPECT_EQ(slurp(dir + "/a.npy"), slurp(dir + "/b.npy"));
  EXPECT_NE(slurp(dir + "/b_smooth.npy").find("'<f8'"), std::string::npos);
  std::string msg;
  EXPECT_EQ(render_in_process(with({"--iter", "9223372036854775808", "--out", dir + "/d.png"}), &msg), 2);
  EXPECT_NE(msg.find("9223372036854775808"), std::string::npos) << msg;
  EXPECT_NE(msg.find("--iter"), std::string::npos) << msg;
  if (access(executable().c_str(), X_OK) == 0) {
    std::string err;
    app::ArgList a = with({"--iter", "5000000000", "--out", dir + "/e.png"});
    EXPECT_EQ(run_executable(a, &err), 0) << err;
    a = with({"--iter", "9223372036854775808", "--out", dir + "/f.png"});
    EXPECT_EQ(run_executable(a, &err), 2);
    EXPECT_NE(err.find("9223372036854775808"), std::string::npos) << err;
    EXPECT_FALSE(exists(dir + "/f.png"));
  }
}

TEST(RenderCommand, KfrLocationAndZoomSequence) {
  const std::string dir = tmpdir();
  const std::string kfr = dir + "/kf.kfr";
  std::ofstream(kfr) << "Re: " << kKfRe << "\r\nIm: " << kKfIm
                     << "\r\nZoom: 1.00e014\r\nIterations: 4036\r\n";
  ASSERT_EQ(
      render_in_process({"--location", kfr, "--size", "24x16", "--backend", "cpu", "--quiet", "--frames", "3",
                         "--zoom-to", "1e16", "--out", dir + "/seq.png", "--counts", dir + "/seq.npy"}),
      0);
  for (int k = 1; k <= 3; ++k) {
    char name[64];
    std::snprintf(name, sizeof name, "/seq_%05d.png", k);
    ASSERT_TRUE(exists(dir + name)) << name;
    std::snprintf(name, sizeof name, "/seq_%05d.npy", k);
    EXPECT_TRUE(exists(dir + name)) << name;
  }
  EXPECT_EQ(app::read_location_file(dir + "/seq_00001.png").zoom, "1.00e014");
  EXPECT_EQ(app::read_location_file(dir + "/seq_00003.png").zoom, "1e16");
  const double mid = std::stod(app::read_location_file(dir + "/seq_00002.png").zoom);
  EXPECT_NEAR(mid, 1e15, 1e3);
  // A printf pattern names the frames itself.
  ASSERT_EQ(render_in_process({"--location", kfr, "--size", "8x8", "--backend", "cpu", "--quiet", "--frames",
                               "2", "--zoom-to", "2e14", "--out", dir + "/f%03d.png"}),
            0);
  EXPECT_TRUE(exists(dir + "/f001.png"));
  EXPECT_TRUE(exists(dir + "/f002.png"));
}

TEST(RenderCommand, CancelledRenderWritesNothing) {
  const std::string dir = tmpdir();
  app::cancel_flag() = true;  // as if Ctrl-C came before the first row
  const int rc = render_in_process({"--size", "64x64", "--backend", "cpu", "--quiet", "--out", dir + "/x.png",
                                    "--counts", dir + "/x.npy"});
  app::cancel_flag() = false;
  EXPECT_EQ(rc, 130);
  EXPECT_EQ(entries(dir), 0);
}

// Two SIGINTs 30 ms apart (what `timeout -s INT` sends: one to the command, one to its process
// group) are one interruption: the render stops cleanly and keeps its reference's checkpoint. Before, the
// second signal aborted it at once, saving nothing.
TEST(RenderCommand, TwoSignalsAtOnceStopTheRenderCleanly) {
  if (access(executable().c_str(), X_OK) != 0)
    GTEST_SKIP() << "deepscope executable not found at " << executable();
  const std::string dir = tmpdir(), log = dir + "/stderr.txt";
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    const std::string exe = executable(), out = dir + "/x.png";
    std::vector<std::string> args = {exe,
                                     "render",
                                     "--re",
                                     "-0.1",
                                     "--im",
                                     "0.6",
                                     "--zoom",
                                     "1e17",
                                     "--iter",
                                     "1e9",
                                     "--size",
                                     "8x8",
                                     "--arith",
                                     "perturb",
                                     "--backend",
                                     "cpu",
                                     "--reference-cache",
                                     dir,
                                     // the centre's orbit, whose checkpoint this test asks for (the
                                     // nucleus search before it has none to keep)
                                     "--reference-at",
                                     "centre",
                                     "--out",
                                     out};
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(&a[0]);
    argv.push_back(nullptr);
    if (!freopen(log.c_str(), "w", stderr)) _exit(126);
    execv(exe.c_str(), argv.data());
    _exit(127);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));  // the reference is under way
  kill(pid, SIGINT);
  std::this_thread::sleep_for(std::chrono::milliseconds(30));  // handled apart, not merged into one
  kill(pid, SIGINT);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 130);
  const std::string err = slurp(log);
  EXPECT_NE(err.find("deepscope render: cancelled"), std::string::npos) << err;
  EXPECT_NE(err.find("reference: checkpoint"), std::string::npos) << err;
}
}  // namespace

// decode_npy reads back what encode_npy writes (shape and bytes) and refuses what it did not write.
TEST(Npy, DecodeReadsBackWhatEncodeWrites) {
  const std::vector<uint32_t> v = {1, 2, 3, 4, 5, 6};
  int rows = 0, cols = 0;
  std::string data;
  ASSERT_TRUE(ds::app::decode_npy(ds::app::encode_npy(v, 2, 3), 4, &rows, &cols, &data));
  EXPECT_EQ(rows, 2);
  EXPECT_EQ(cols, 3);
  EXPECT_EQ(data, std::string(reinterpret_cast<const char*>(v.data()), v.size() * 4));
  const std::vector<uint8_t> m = {1, 0, 1, 1};
  ASSERT_TRUE(ds::app::decode_npy(ds::app::encode_npy(m, 2, 2), 1, &rows, &cols, &data));
  EXPECT_EQ(data, std::string("\x01\x00\x01\x01", 4));
  EXPECT_FALSE(ds::app::decode_npy(ds::app::encode_npy(v, 2, 3), 1, &rows, &cols, &data));  // wrong size
  EXPECT_FALSE(ds::app::decode_npy("not an npy file", 4, &rows, &cols, &data));
}
