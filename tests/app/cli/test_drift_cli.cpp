// `deepscope drift`: the files sum, doundo and md write (CSV and PNG), a blown-up run keeping its
// samples, and bad input refused with the exceptions main maps to exit code 2.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cmath>
#include <fstream>
#include <sstream>
#include <string>

#include "arith/error.h"
#include "kernels/core/device.h"
#include "kernels/core/atomic_file.h"
#include "app/cli/cli.h"
#include "app/cli/commands.h"
#include "app/cli/drift_report.h"
#include "test_files.h"
#include "app/io/image_io.h"
#include "app/io/plot_png.h"

namespace {

using ds::app::ArgList;
using ds::app::cmd_drift;

std::string tmpdir() { return ds::test::make_tmpdir("drift-cli"); }
using ds::test::slurp;

// The exit code the program returns for `deepscope drift ARGS`.
int exit_code(ArgList args) {
  args.insert(args.begin(), "drift");
  return ds::app::run(args);
}

std::size_t lines(const std::string& s) {
  return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n'));
}

TEST(DriftCli, SumWritesCsv) {
  const std::string out = tmpdir() + "/sum.csv";
  ASSERT_EQ(cmd_drift({"sum", "--backend", "cpu", "--threads", "1,10", "--out", out, "--quiet"}), 0);
  const std::string csv = slurp(out);
  EXPECT_EQ(csv.rfind("backend,n,seed,threads,order,method,sum\n", 0), 0u);
  EXPECT_EQ(lines(csv), 1u + 2 * 6 * 5);
}

TEST(DriftCli, DoUndoWritesCsvAndPlots) {
  const std::string dir = tmpdir();
  ASSERT_EQ(cmd_drift({"doundo", "--backend", "cpu", "--iterations", "2000", "--every", "100", "--trials",
                       "2", "--out-dir", dir, "--quiet"}),
            0);
  EXPECT_EQ(lines(slurp(dir + "/doundo.csv")), 1u + 2 * 4 * 20);
  for (const char* f : {"/doundo_trial2_muldiv.png", "/doundo_trial2_divmul.png"})
    EXPECT_TRUE(ds::app::is_png(slurp(dir + f))) << f;
}

TEST(DriftCli, MdWritesCsvAndPlots) {
  const std::string pre = tmpdir() + "/md";
  testing::internal::CaptureStdout();
  const int rc = cmd_drift({"md", "--atoms", "500", "--steps", "20", "--every", "5", "--precision",
                            "float,composite", "--backend", "cpu", "--out", pre, "--quiet"});
  testing::internal::GetCapturedStdout();
  ASSERT_EQ(rc, 0);
  const std::string csv = slurp(pre + ".csv");
  EXPECT_EQ(csv.rfind("precision,seed,step,time,ke,pe,total\n", 0), 0u);
  EXPECT_EQ(lines(csv), 1u + 2 * 5);
  EXPECT_TRUE(ds::app::is_png(slurp(pre + "_drift.png")));
  EXPECT_TRUE(ds::app::is_png(slurp(pre + "_pe.png")));
  // One drift row per run and one per precision over the seeds.
  EXPECT_EQ(lines(slurp(pre + "_drift.csv")), 1u + 2 + 2);
  EXPECT_NE(slurp(pre + ".json").find("\"kT_per_ns_per_dof\""), std::string::npos);
}

// Several seeds: each precision runs once per seed; the table, PREFIX_drift.csv and PREFIX.json
// carry kT/ns/dof per run and the mean and standard error per precision, which must equal those of
// the per-run values.
TEST(DriftCli, MdSeedsGiveMeanAndStandardError) {
  const std::string pre = tmpdir() + "/seeds";
  testing::internal::CaptureStdout();
  const int rc = cmd_drift({"md", "--atoms", "500", "--steps", "40", "--every", "5", "--precision", "double",
                            "--seeds", "3,4,5", "--backend", "cpu", "--out", pre, "--quiet"});
  testing::internal::GetCapturedStdout();
  ASSERT_EQ(rc, 0);
  std::istringstream in(slurp(pre + "_drift.csv"));
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line.rfind("precision,seed,atoms,dof,dt,steps_done,status,slope_reduced,", 0), 0u) << line;
  std::vector<double> kt;
  double mean = NAN, se = NAN;
  int n = 0;
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::stringstream ls(line);
    std::string c;
    while (std::getline(ls, c, ',')) f.push_back(c);
    ASSERT_GE(f.size(), 13u) << line;
    EXPECT_EQ(f[0], "double");
    if (f[1] == "all") {
      mean = std::stod(f[11]);
      se = std::stod(f[12]);
      n = std::stoi(f[13]);
    } else {
      EXPECT_EQ(f[3], "1497");
      EXPECT_EQ(f[6], "ok");
      kt.push_back(std::stod(f[11]));
    }
  }
  ASSERT_EQ(kt.size(), 3u);
  EXPECT_EQ(n, 3);
  const double m = (kt[0] + kt[1] + kt[2]) / 3;
  double ss = 0;
  for (double v : kt) ss += (v - m) * (v - m);
  EXPECT_NEAR(mean, m, 1e-5 * std::fabs(m));
  EXPECT_NEAR(se, std::sqrt(ss / 2) / std::sqrt(3.0), 2e-3 * std::sqrt(ss));
  EXPECT_NE(kt[0], kt[1]);  // different seeds, different trajectories
  const std::string json = slurp(pre + ".json");
  EXPECT_NE(json.find("\"tau_ps\": 2.156"), std::string::npos) << json;
  EXPECT_NE(json.find("\"seeds\": 3"), std::string::npos) << json;
  EXPECT_NE(json.find("\"kT_per_ns_per_dof_stderr\": "), std::string::npos);
  EXPECT_EQ(lines(slurp(pre + ".csv")), 1u + 3 * 9);
  // --seed and --seeds together, a repeated seed and a negative one are refused.
  EXPECT_EQ(exit_code({"md", "--seed", "1", "--seeds", "2,3", "--out", pre}), 2);
  EXPECT_EQ(exit_code({"md", "--seeds", "2,2", "--out", pre}), 2);
  EXPECT_EQ(exit_code({"md", "--seeds", "-1", "--out", pre}), 2);
}

TEST(DriftCli, MdResumesFinishedPrecisions) {
  const std::string pre = tmpdir() + "/res";
  const ArgList first = {"md",          "--atoms", "500",       "--steps", "20",    "--every", "5",
                         "--precision", "float",   "--backend", "cpu",     "--out", pre,       "--quiet"};
  testing::internal::CaptureStdout();
  ASSERT_EQ(cmd_drift(first), 0);
  testing::internal::GetCapturedStdout();
  const std::string csv1 = slurp(pre + ".csv");
  // Same parameters, one more precision: float is loaded, double is run.
  testing::internal::CaptureStdout();
  testing::internal::CaptureStderr();
  const int rc = cmd_drift({"md", "--atoms", "500", "--steps", "20", "--every", "5", "--precision",
                            "float,double", "--backend", "cpu", "--out", pre});
  const std::string err = testing::internal::GetCapturedStderr();
  testing::internal::GetCapturedStdout();
  ASSERT_EQ(rc, 0);
  EXPECT_NE(err.find("float      resumed"), std::string::npos) << err;
  EXPECT_EQ(err.find("double     resumed"), std::string::npos) << err;
  const std::string csv2 = slurp(pre + ".csv");
  EXPECT_EQ(lines(csv2), 1u + 2 * 5);
  EXPECT_EQ(csv2.substr(0, csv1.size()), csv1);  // float's rows, to the digit
  // Other parameters: nothing is reused.
  testing::internal::CaptureStdout();
  testing::internal::CaptureStderr();
  ASSERT_EQ(cmd_drift({"md", "--atoms", "500", "--steps", "10", "--every", "5", "--precision", "float",
                       "--backend", "cpu", "--out", pre}),
            0);
  EXPECT_EQ(testing::internal::GetCapturedStderr().find("resumed"), std::string::npos);
  testing::internal::GetCapturedStdout();
}

// A report from the resume file alone: `--backend cuda` where there is no device loads every run
// from PREFIX.resume and writes the tables and plots (runs made on a GPU host, reported elsewhere:
// the machine that ran them is given back before its files come home); where a run is missing, the
// device's absence is the error, named with the missing run, before any work.
TEST(DriftCli, MdReportsFromTheResumeFileWithoutTheDevice) {
  if (ds::built_with_cuda() && ds::cuda_device_count() > 0) GTEST_SKIP() << "a CUDA device is here";
  const std::string pre = tmpdir() + "/gpu";
  ArgList a = {"md",      "--atoms", "500", "--steps", "20",  "--every", "5",       "--precision",
               "float",   "--seeds", "1,2", "--backend", "cpu", "--out",   pre,       "--quiet"};
  testing::internal::CaptureStdout();
  ASSERT_EQ(cmd_drift(a), 0);
  testing::internal::GetCapturedStdout();
  // The same runs as if they had been made on CUDA: the fingerprint's backend and each run's.
  std::istringstream in(slurp(pre + ".resume"));
  std::string text, line;
  while (std::getline(in, line)) {
    if (line.rfind("deepscope drift md", 0) == 0) line.replace(line.find("backend=cpu"), 11, "backend=cuda");
    if (line.rfind("run ", 0) == 0) line.replace(line.rfind(" cpu "), 5, " cuda ");
    text += line + "\n";
  }
  ds::write_file_atomically(pre + ".resume", text);
  for (const char* f : {".csv", "_drift.csv", ".json", "_drift.png", "_pe.png"}) std::remove((pre + f).c_str());
  a[12] = "cuda";
  testing::internal::CaptureStderr();
  EXPECT_EQ(exit_code(a), 0);
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  const std::string drift_csv = slurp(pre + "_drift.csv");
  EXPECT_EQ(lines(drift_csv), 1u + 2 + 1) << drift_csv;  // two seeds and their mean
  EXPECT_TRUE(ds::app::is_png(slurp(pre + "_drift.png")));
  // A third seed would have to run: refused at once, naming it.
  ds::write_file_atomically(pre + ".resume", text);
  a[10] = "1,2,3";
  testing::internal::CaptureStderr();
  EXPECT_EQ(exit_code(a), 1);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("no usable CUDA device"), std::string::npos) << err;
  EXPECT_NE(err.find("does not hold the run of float seed 3"), std::string::npos) << err;
  EXPECT_EQ(slurp(pre + ".resume"), text);  // nothing ran, nothing was written
}

// A resumed run keeps the backend it ran on (a run on CUDA was once reported as "cpu" when
// loaded back), and a file written before the backend was recorded takes the fingerprint's.
TEST(DriftCli, ResumeFileKeepsTheBackend) {
  ds::drift::MdParams p;
  p.backend = ds::Backend::kCuda;
  const std::string fp = ds::app::md_fingerprint(p);
  ds::app::MdRun run;
  run.precision = ds::drift::Precision::kComposite;
  run.result.atoms = 4000;
  run.result.steps_done = 10;
  run.result.backend = ds::Backend::kCuda;
  run.result.samples.push_back(ds::drift::MdSample{0, 0.0, 1.0, -2.0, -1.0});
  run.result.samples.push_back(ds::drift::MdSample{10, 0.05, 1.0, -2.0, -1.0});
  const std::string text = ds::app::md_runs_text(fp, {run});
  std::vector<ds::app::MdRun> back = ds::app::md_runs_load(text, fp);
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back[0].result.backend, ds::Backend::kCuda);
  EXPECT_EQ(back[0].precision, ds::drift::Precision::kComposite);
  // The same line without its last two tokens (backend, seed), as files written before they were
  // recorded.
  std::string old = text;
  const auto at = old.find(" cuda 0\n", old.find("\nrun "));
  ASSERT_NE(at, std::string::npos);
  old.erase(at, 7);
  back = ds::app::md_runs_load(old, fp);
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back[0].result.backend, ds::Backend::kCuda);
  run.result.backend = ds::Backend::kCpu;
  p.backend = ds::Backend::kCpu;
  back = ds::app::md_runs_load(ds::app::md_runs_text(ds::app::md_fingerprint(p), {run}), ds::app::md_fingerprint(p));
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back[0].result.backend, ds::Backend::kCpu);
}

TEST(DriftCli, BlowUpKeepsSamplesAndFails) {
  const std::string pre = tmpdir() + "/boom";
  testing::internal::CaptureStderr();
  const int rc = exit_code({"md", "--cells", "5", "--steps", "400", "--every", "20", "--dt", "0.1", "--temp",
                            "100", "--precision", "double", "--backend", "cpu", "--out", pre, "--quiet"});
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(rc, 1);
  EXPECT_NE(err.find("at step"), std::string::npos) << err;
  EXPECT_GE(lines(slurp(pre + ".csv")), 2u);  // header and the step-0 sample at least
}

TEST(DriftCli, BadInputExitsTwo) {
  const std::string pre = tmpdir() + "/x";
  for (const ArgList& a : std::vector<ArgList>{
           {"md", "--cells", "0", "--out", pre},
           {"md", "--cells", "-4", "--out", pre},
           {"md", "--atoms", "1000", "--out", pre},
           {"md", "--atoms", "-500", "--out", pre},
           {"md", "--dt", "-0.01", "--out", pre},
           {"md", "--dt", "3", "--out", pre},
           {"md", "--dt", "abc", "--out", pre},
           {"md", "--steps", "0", "--out", pre},
           {"md", "--steps", "1e15", "--out", pre},
           {"md", "--precision", "half", "--out", pre},
           {"md", "--cells", "5"},
           {"md", "--out", "/nonexistent-dir/x"},
           {"sum", "--n", "7"},
           {"sum", "--threads", "0"},
           {"doundo", "--arith", "limb4", "--out-dir", "/tmp"},
           {"doundo", "--iterations", "-5", "--out-dir", "/tmp"},
           {"doundo", "--trials", "4", "--out-dir", "/tmp"},
           {"frobnicate"},
       })
    EXPECT_EQ(exit_code(a), 2) << a[0] << " " << (a.size() > 2 ? a[1] + " " + a[2] : "");
}

// Bad input to `drift md`: exit 2 with a message naming the field, and no file written (not even
// the resume file). Absurd: dt above 0.1 (Verlet's stability bound is 0.187), a cutoff wider than a
// third of the box or outside [1, 5], density outside [0.05, 1.5], temperature outside (0, 100], a
// fixed-point scale the forces could exceed.
TEST(DriftCli, MdBadInputNamesTheFieldAndWritesNothing) {
  const std::string dir = tmpdir();
  const std::string pre = dir + "/bad";
  struct Case {
    ArgList args;
    const char* field;
  };
  const std::vector<Case> cases = {
      {{"--dt", "0"}, "dt"},
      {{"--dt", "-0.001"}, "dt"},
      {{"--dt", "nan"}, "dt"},
      {{"--dt", "0.2"}, "dt"},
      {{"--cutoff", "0"}, "cutoff"},
      {{"--cutoff", "-2.5"}, "cutoff"},
      {{"--cutoff", "nan"}, "cutoff"},
      {{"--cutoff", "3"}, "cutoff"},  // 500 atoms: box 8.4 < 3 x 3
      {{"--cutoff", "50", "--cells", "40"}, "cutoff"},
      {{"--density", "0"}, "density"},
      {{"--density", "-0.8"}, "density"},
      {{"--density", "nan"}, "density"},
      {{"--density", "20"}, "density"},
      {{"--temp", "0"}, "temp"},
      {{"--temp", "-3"}, "temp"},
      {{"--temp", "nan"}, "temp"},
      {{"--temp", "inf"}, "temp"},
      {{"--temp", "1e6"}, "temp"},
      {{"--precision", "fixed", "--fixed-bits", "38"}, "fixed-bits"},
      {{"--precision", "double,fixed", "--fixed-bits", "40"}, "fixed-bits"},
      {{"--fixed-bits", "4"}, "fixed-bits"},
  };
  for (const Case& c : cases) {
    ArgList a = {"md", "--cells", "5", "--steps", "20", "--backend", "cpu", "--out", pre, "--quiet"};
    a.insert(a.end(), c.args.begin(), c.args.end());
    testing::internal::CaptureStderr();
    const int rc = exit_code(a);
    const std::string err = testing::internal::GetCapturedStderr();
    EXPECT_EQ(rc, 2) << c.args[0] << " " << c.args[1];
    EXPECT_NE(err.find(c.field), std::string::npos) << c.args[0] << " " << c.args[1] << ": " << err;
  }
  for (const char* f : {".csv", "_drift.csv", ".json", "_drift.png", "_pe.png", ".resume"})
    EXPECT_FALSE(std::ifstream(pre + f).good()) << f << " was written";
}

// A count far outside its range is named with MdParams's range (--atoms 4e9 said "must be an integer
// in [-1000000000, 1000000000]").
TEST(DriftCli, CountsOutOfRangeNameTheRealRange) {
  const std::string pre = tmpdir() + "/r";
  const std::pair<ArgList, std::string> cases[] = {
      {{"--atoms", "4000000000"}, "--atoms must be an integer in [500, 1048576]"},
      {{"--atoms", "-32"}, "--atoms must be an integer in [500, 1048576]"},
      {{"--cells", "400"}, "--cells must be an integer in [5, 64]"},
      {{"--steps", "1e30"}, "--steps must be an integer in [1, 1000000000]"},
      {{"--steps", "10", "--every", "11"}, "--every must be an integer in [1, 10]"},
      {{"--equilibrate", "-1"}, "--equilibrate must be an integer in [0, 1000000000]"},
      {{"--fixed-bits", "-5"}, "--fixed-bits must be an integer in [8, 48]"},
  };
  // (drift sum --threads 4294967297 wrapped to 1 thread and ran)
  for (const char* t : {"4294967297", "0", "1001"}) {
    testing::internal::CaptureStderr();
    EXPECT_EQ(exit_code({"sum", "--n", "1000", "--threads", t, "--out", pre + ".csv"}), 2) << t;
    const std::string err = testing::internal::GetCapturedStderr();
    EXPECT_EQ(err.rfind(std::string("deepscope: --threads takes counts in [1, --n = 1000], got ") + t, 0), 0u) << err;
  }
  for (const auto& [args, says] : cases) {
    ArgList a = {"md", "--backend", "cpu", "--quiet", "--out", pre};
    a.insert(a.end(), args.begin(), args.end());
    testing::internal::CaptureStderr();
    EXPECT_EQ(exit_code(a), 2) << args[0];
    const std::string err = testing::internal::GetCapturedStderr();
    EXPECT_EQ(err.rfind("deepscope: " + says, 0), 0u) << err;
  }
}

// The fixed-point mode from the command line: a run, its kT/ns/dof, and a run whose forces leave
// the range at run time (a blow-up at --fixed-bits 37) stopped with exit 2 naming the limit.
TEST(DriftCli, MdFixedRunsAndRangeFaultExitsTwo) {
  const std::string pre = tmpdir() + "/fx";
  testing::internal::CaptureStdout();
  ASSERT_EQ(cmd_drift({"md", "--atoms", "500", "--steps", "20", "--every", "5", "--precision", "fixed",
                       "--backend", "cpu", "--out", pre, "--quiet"}),
            0);
  testing::internal::GetCapturedStdout();
  EXPECT_NE(slurp(pre + "_drift.csv").find("\nfixed,87287,500,1497,"), std::string::npos);
  EXPECT_NE(slurp(pre + ".json").find("\"fixed_bits\": 32"), std::string::npos);
  testing::internal::CaptureStderr();
  const int rc = exit_code({"md", "--cells", "5", "--steps", "400", "--every", "20", "--dt", "0.1", "--temp",
                            "100", "--precision", "fixed", "--fixed-bits", "37", "--backend", "cpu", "--out",
                            pre + "2", "--quiet"});
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(rc, 2);
  EXPECT_NE(err.find("--fixed-bits"), std::string::npos) << err;
  EXPECT_NE(slurp(pre + "2_drift.csv").find("fixed_range_exceeded"), std::string::npos);
}

TEST(PlotPng, DrawsSeriesInTheirColours) {
  ds::app::PlotSpec spec;
  spec.width = 400;
  spec.height = 300;
  ds::app::PlotSeries s{"line", {0, 1, 2, 3}, {0, 1, 0, 1}};
  const std::vector<uint8_t> rgb = ds::app::plot_rgb(spec, {s});
  ASSERT_EQ(rgb.size(), 400u * 300u * 3u);
  uint8_t c[3];
  ds::app::plot_colour(0, c);
  std::size_t hits = 0;
  for (std::size_t i = 0; i < rgb.size(); i += 3)
    hits += rgb[i] == c[0] && rgb[i + 1] == c[1] && rgb[i + 2] == c[2];
  EXPECT_GT(hits, 300u);  // the zig-zag (and the legend swatch)
  EXPECT_THROW(ds::app::plot_rgb(spec, {ds::app::PlotSeries{"bad", {0, 1}, {0}}}), std::invalid_argument);
}

}  // namespace
