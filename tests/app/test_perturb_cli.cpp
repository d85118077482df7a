// `deepscope render --arith perturb` and `auto` past every direct format, and `deepscope bench
// perturb`: files written whole, the format recorded in the PNG's location, bad input exits 2.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "arith/error.h"
#include "cli.h"
#include "commands.h"
#include "kernels/perturb.h"
#include "location.h"

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
  mandel::perturb::misiurewicz_point(
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
