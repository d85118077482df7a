// `deepscope render --arith perturb` and `auto` past every direct format, and `deepscope bench
// perturb`: files written whole, the format recorded in the PNG's location, bad input exits 2.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "arith/error.h"
#include "app/cli/cli.h"
#include "app/cli/commands.h"
#include "app/cli/render_work.h"
#include "kernels/perturb/perturb.h"
#include "app/io/location.h"
#include "test_files.h"

namespace {

using namespace ds;

std::string tmpdir() {
  char tmpl[] = "/tmp/deepscope-perturb-XXXXXX";
  return mkdtemp(tmpl);
}

bool exists(const std::string& p) { return access(p.c_str(), F_OK) == 0; }

template <class F>
int in_process(F&& f, std::string* message = nullptr) {
  try {
    return f();
  } catch (const cli::UsageError& e) {
    if (message) *message = e.what();
    return 2;
  } catch (const ArithError& e) {
    if (message) *message = e.what();
    return 2;
  } catch (const std::exception& e) {
    if (message) *message = e.what();
    return 1;
  }
}

void deep_point(std::string* re, std::string* im) {
  perturb::misiurewicz_point(
      "-0."
      "4843959562623775919128287421586067691596124435419865096507798028029960660414365868871991207499025159",
      "0."
      "6418924099139518844354150775006524215199605374875397669595578755542089273055838652129049918350557796",
      11, 3, 3500, 1040, re, im);
}

TEST(PerturbCli, AutoRendersBeyondEveryDirectFormat) {
  const std::string dir = tmpdir();
  std::string re, im;
  deep_point(&re, &im);
  const std::string png = dir + "/deep.png";
  std::string msg;
  const int rc = in_process(
      [&] {
        return app::cmd_render({"--re", re, "--im", im, "--zoom", "1e1000", "--iter", "8000", "--size",
                                "32x24", "--backend", "cpu", "--quiet", "--out", png});
      },
      &msg);
  ASSERT_EQ(rc, 0) << msg;
  const app::Location loc = app::read_location_file(png);
  EXPECT_EQ(loc.zoom, "1e1000");
  EXPECT_EQ(loc.format_used, "perturb/floatexp");
  EXPECT_EQ(loc.re, re);
}

TEST(PerturbCli, ForcedPerturbAndNoBlaAgree) {
  const std::string dir = tmpdir();
  std::string re, im;
  deep_point(&re, &im);
  // 1e100: BLA does most iterations there, so --no-bla checks it.
  const std::vector<std::string> view = {"--re", re,       "--im",  im,          "--zoom", "1e100",  "--iter",
                                         "6000", "--size", "24x24", "--backend", "cpu",    "--quiet"};
  auto args = [&](std::vector<std::string> extra) {
    std::vector<std::string> a = view;
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  };
  ASSERT_EQ(in_process([&] {
              return app::cmd_render(
                  args({"--arith", "perturb", "--counts", dir + "/a.npy", "--out", dir + "/a.png"}));
            }),
            0);
  ASSERT_EQ(in_process([&] {
              return app::cmd_render(args(
                  {"--arith", "perturb", "--no-bla", "--counts", dir + "/b.npy", "--out", dir + "/b.png"}));
            }),
            0);
  std::ifstream a(dir + "/a.npy", std::ios::binary), b(dir + "/b.npy", std::ios::binary);
  std::stringstream sa, sb;
  sa << a.rdbuf();
  sb << b.rdbuf();
  EXPECT_GT(sa.str().size(), 24u * 24u * 4u);
  EXPECT_EQ(sa.str(), sb.str());
  EXPECT_EQ(app::read_location_file(dir + "/a.png").format_used, "perturb/f64");
}

TEST(PerturbCli, BadInputExitsWithTwo) {
  const std::string dir = tmpdir();
  EXPECT_EQ(in_process([&] {
              return app::cmd_render(
                  {"--re", "0", "--im", "0", "--zoom", "-1", "--arith", "perturb", "--out", dir + "/x.png"});
            }),
            2);
  EXPECT_EQ(in_process([&] { return app::cmd_render({"--arith", "pertrub", "--out", dir + "/x.png"}); }), 2);
  EXPECT_EQ(in_process([&] { return app::cmd_bench({"perturb", "--depths", "1e7"}); }), 2);
  EXPECT_FALSE(exists(dir + "/x.png"));
}

// f64 deltas forced at 1e320 underflow on every pixel: with the 106-bit tier off (--no-refine) and
// no secondary reference allowed the pixels stay unresolved, the command exits 1 and the PNG says
// so; with one allowed they are corrected and it exits 0; with the tier on, the tier decides all
// 64 and no reference is needed.
TEST(PerturbCli, UnresolvedGlitchesExitWithOne) {
  const std::string dir = tmpdir();
  std::string re, im;
  deep_point(&re, &im);
  const std::vector<std::string> view = {"--re",   re.substr(0, 420), "--im",   im.substr(0, 420), "--zoom",
                                         "1e320",  "--iter",          "3000",   "--size",          "8x8",
                                         "--backend", "cpu",          "--delta", "f64",            "--no-refine", "--quiet"};
  auto args = [&](std::vector<std::string> extra) {
    std::vector<std::string> a = view;
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  };
  EXPECT_EQ(in_process([&] { return app::cmd_render(args({"--max-references", "0", "--out", dir + "/u.png"})); }),
            1);
  ASSERT_TRUE(exists(dir + "/u.png"));
  std::ifstream f(dir + "/u.png", std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  EXPECT_NE(s.str().find("glitch_unresolved = 64"), std::string::npos);
  EXPECT_NE(s.str().find("64 pixels are not right"), std::string::npos);
  // Unresolved pixels are drawn magenta, never a palette colour.
  const std::string counts = dir + "/u.npy";
  EXPECT_EQ(in_process([&] {
              return app::cmd_render(args({"--max-references", "0", "--counts", counts, "--out", dir + "/u2.png"}));
            }),
            1);
  EXPECT_EQ(in_process([&] { return app::cmd_render(args({"--out", dir + "/c.png"})); }), 0);
  std::vector<std::string> bad_delta = args({"--out", dir + "/x.png"});  // the view's --delta, made f32
  *(std::find(bad_delta.begin(), bad_delta.end(), "--delta") + 1) = "f32";
  EXPECT_EQ(in_process([&] { return app::cmd_render(bad_delta); }), 2);
  std::vector<std::string> tiered = args({"--max-references", "0", "--out", dir + "/t.png"});
  tiered.erase(std::find(tiered.begin(), tiered.end(), "--no-refine"));
  EXPECT_EQ(in_process([&] { return app::cmd_render(tiered); }), 0);
  const std::string t = ds::test::slurp(dir + "/t.png");
  EXPECT_NE(t.find("glitch_refined = 64"), std::string::npos);
  EXPECT_NE(t.find("glitch_unresolved = 0"), std::string::npos);
}

// The summary's "106-bit tier:" line names each pass that ran, what it took and decided, and its
// time with where it went (tables, device, CPU); without BLA (one double-word pass, at 2^-106) it
// does not claim the coarse table.
TEST(PerturbCli, TheSummarySaysWhatEachTierPassDecided) {
  mandel::RenderResult r;
  r.width = r.height = 8;
  r.method = mandel::Method::kPerturb;
  r.perturb.glitch_pixels = 40;
  r.perturb.refine_pass_pixels[0] = 40;
  r.perturb.refine_pass_decided[0] = 30;
  r.perturb.refine_pass_seconds[0] = 1.5;
  r.perturb.refine_pass_table_seconds[0] = 0.25;  // where its time went (a CPU pass: tables, pixels)
  r.perturb.refine_pass_cpu_seconds[0] = 1.25;
  r.perturb.refine_pass_pixels[1] = 10;
  r.perturb.refine_pass_decided[1] = 9;
  r.perturb.refine_pass_pixels[2] = 1;
  r.perturb.refine_pass_host[1] = 3;  // a CUDA pass's slowest pixels, finished on the host
  const std::string s = app::render_summary(r);
  EXPECT_NE(s.find("106-bit tier: double words with BLA at eps 2^-70 30 of 40 pixels (1.500 s: tables 0.250 s, pixels "
                   "1.250 s); double words at 2^-106 9 of 10 pixels (0.000 s: tables 0.000 s, pixels 0.000 s; 3 "
                   "finished on the CPU); floatexp2 0 of 1 pixels (0.000 s: tables 0.000 s, pixels 0.000 s)"),
            std::string::npos)
      << s;
  r.perturb.refine_pass_pixels[0] = r.perturb.refine_pass_decided[0] = 0;
  r.perturb.refine_pass_pixels[2] = 0;
  const std::string one = app::render_summary(r);
  EXPECT_NE(one.find("106-bit tier: double words at 2^-106 9 of 10 pixels"), std::string::npos) << one;
  EXPECT_EQ(one.find("2^-70"), std::string::npos) << one;
  r.perturb.refine_pass_pixels[1] = 0;
  EXPECT_EQ(app::render_summary(r).find("106-bit tier"), std::string::npos);
  // The interior proofs for what the tiers left: what they decided, or why they did not run.
  r.perturb.refine_pass_pixels[5] = 15;
  r.perturb.refine_pass_decided[5] = 13;
  const std::string proofs = app::render_summary(r);
  EXPECT_NE(proofs.find("interior proofs for what the tiers left (two a pixel): floatexp2 13 of 15 pixels"),
            std::string::npos)
      << proofs;
  r.perturb.refine_pass_pixels[5] = r.perturb.refine_pass_decided[5] = 0;
  r.perturb.proof_note = "84 pixels at period 69078: over the budget";
  EXPECT_NE(app::render_summary(r).find("interior proofs: not run: 84 pixels at period 69078"), std::string::npos);
  // The wide tiers, with the wide orbit's time: computed there, or waited for after a prefetch.
  r.perturb.refine_pass_pixels[3] = 45;
  r.perturb.refine_pass_decided[3] = 45;
  r.perturb.refine_pass_seconds[3] = 2.5;
  r.perturb.wide_orbit_seconds = 2.0;
  EXPECT_NE(app::render_summary(r).find("wide tiers (a 424-bit orbit, 2.000 s): floatexp4 (212 bits) 45 of 45 "
                                        "pixels (2.500 s: tables 0.000 s, pixels 0.000 s)"),
            std::string::npos)
      << app::render_summary(r);
  // ... with how many floatexp4's coarse table decided, and the pixels finished on the host.
  r.perturb.wide_coarse_pixels = 45;
  r.perturb.wide_coarse_decided = 40;
  r.perturb.refine_pass_host[3] = 7;
  r.perturb.refine_pass_table_seconds[3] = 0.3;  // a CUDA pass: tables, the device's launches, the host tail
  r.perturb.refine_pass_device_seconds[3] = 1.0;
  r.perturb.refine_pass_cpu_seconds[3] = 1.2;
  EXPECT_NE(app::render_summary(r).find("floatexp4 (212 bits) 45 of 45 pixels (2.500 s: tables 0.300 s, device "
                                        "1.000 s, CPU 1.200 s; 40 by its 2^-128 table; 7 finished on the CPU)"),
            std::string::npos)
      << app::render_summary(r);
  r.perturb.wide_coarse_pixels = r.perturb.wide_coarse_decided = r.perturb.refine_pass_host[3] = 0;
  r.perturb.wide_prefetched = true;
  r.perturb.wide_orbit_seconds = 0.25;
  EXPECT_NE(app::render_summary(r).find("wide tiers (a 424-bit orbit, computed beside the first pass, then waited "
                                        "0.250 s): floatexp4"),
            std::string::npos)
      << app::render_summary(r);
}

TEST(PerturbCli, BenchWritesItsReport) {
  const std::string dir = tmpdir();
  const std::string md = dir + "/perturbation.md";
  ASSERT_EQ(in_process([&] {
              return app::cmd_bench(
                  {"perturb", "--cpu-only", "--size", "16", "--depths", "1e50,1e1000", "--out", md});
            }),
            0);
  std::ifstream f(md);
  std::stringstream s;
  s << f.rdbuf();
  EXPECT_NE(s.str().find("| misiurewicz spiral | 1e1000 | perturb/floatexp | cpu | 16^2 |"),
            std::string::npos)
      << s.str();
  EXPECT_NE(s.str().find("1e1086 | 274.50"), std::string::npos);
}

}  // namespace
