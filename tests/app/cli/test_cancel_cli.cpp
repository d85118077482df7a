// Cancellation within a second (docs/quality.md, "Cancellation"): one SIGTERM or SIGINT during a
// long pixel loop (a few pixels of billions of iterations, each minutes of work) ends the built
// executable within 2 s with exit 130 and no image, on the CPU and, where there is one, the GPU.
// Before, a signal waited for the current pixels to finish (42 s for the first case).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <climits>
#include <fstream>
#include <csignal>
#include <string>
#include <thread>
#include <vector>

#include "oracle.h"
#include "test_files.h"

namespace {

using Clock = std::chrono::steady_clock;

std::string executable() { return ds::test::sibling_executable(); }

std::string tmpdir() {
  char tmpl[] = "/tmp/deepscope-cancel-XXXXXX";
  return mkdtemp(tmpl);
}

bool exists(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0;
}

struct Stopped {
  double seconds_after_signal = -1;  // -1: still running after the limit (then killed)
  int exit_code = -1;
  std::string err;
};

// Starts `deepscope ARGS`, sends `sig` after `run_ms`, and waits up to `limit_s` for it to exit.
Stopped signal_after(const std::vector<std::string>& args, int run_ms, int sig, double limit_s) {
  const std::string dir = tmpdir(), log = dir + "/stderr.txt";
  Stopped out;
  const pid_t pid = fork();
  if (pid < 0) return out;
  if (pid == 0) {
    std::vector<std::string> all = {executable()};
    all.insert(all.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (std::string& a : all) argv.push_back(&a[0]);
    argv.push_back(nullptr);
    if (!freopen(log.c_str(), "w", stderr)) _exit(126);
    execv(all[0].c_str(), argv.data());
    _exit(127);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(run_ms));
  int status = 0;
  if (waitpid(pid, &status, WNOHANG) == pid) {  // ended before the signal: nothing was tested
    out.err = "ended before the signal: " + ds::test::slurp(log);
    return out;
  }
  kill(pid, sig);
  const auto t0 = Clock::now();
  for (;;) {
    if (waitpid(pid, &status, WNOHANG) == pid) {
      out.seconds_after_signal = std::chrono::duration<double>(Clock::now() - t0).count();
      out.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      break;
    }
    if (std::chrono::duration<double>(Clock::now() - t0).count() > limit_s) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  out.err = ds::test::slurp(log);
  return out;
}

void expect_stopped_within(const Stopped& s, double limit_s, const std::string& png) {
  ASSERT_GE(s.seconds_after_signal, 0.0) << "still running " << limit_s << " s after the signal\n" << s.err;
  EXPECT_LT(s.seconds_after_signal, limit_s) << s.err;
  EXPECT_EQ(s.exit_code, 130) << s.err;
  EXPECT_FALSE(exists(png)) << "a cancelled render wrote its image";
}

// Direct iteration (f64, interior test off): 16 pixels inside the set at 3e9 iterations each, about
// 40 s of work on two cores. SIGTERM after 1 s: out within 2 s.
TEST(CancelCli, DirectPixelLoopStopsWithinOneSecondOfSigterm) {
  if (access(executable().c_str(), X_OK) != 0) GTEST_SKIP() << "deepscope executable not found";
  const std::string png = tmpdir() + "/x.png";
  const Stopped s = signal_after({"render", "--backend", "cpu", "--size", "4x4", "--iter", "3000000000", "--no-interior",
                                  "--re", "-0.1", "--im", "0", "--zoom", "100", "--arith", "f64", "--out", png},
                                 1000, SIGTERM, 10.0);
  expect_stopped_within(s, 2.0, png);
}

// Perturbation without BLA or the interior test, centred on the nucleus 0: the reference stops as
// periodic at once (3 points), and each pixel then runs 3e9 perturbation steps. SIGINT after 1.5 s,
// in the pixel loop (the render says where it was): out within 2 s.
TEST(CancelCli, PerturbationPixelLoopStopsWithinOneSecondOfSigint) {
  if (access(executable().c_str(), X_OK) != 0) GTEST_SKIP() << "deepscope executable not found";
  const std::string png = tmpdir() + "/x.png";
  const Stopped s = signal_after({"render", "--backend", "cpu", "--size", "4x4", "--iter", "3000000000", "--no-interior",
                                  "--no-bla", "--re", "0", "--im", "0", "--zoom", "1e20", "--arith", "perturb",
                                  "--out", png},
                                 1500, SIGINT, 10.0);
  expect_stopped_within(s, 2.0, png);
}

// The same loops on the GPU: kernels poll a flag in mapped pinned memory that the host raises.
// `bench perturb --peer` runs the peer's programs as children; a SIGINT sent to the bench alone (not
// its process group, as `kill -INT` or a scheduler sends it) goes on to the running child, so the
// bench ends within the second (exit 130, no report) instead of when the child ends. The stand-in
// peer sleeps 30 s.
TEST(CancelCli, BenchPeerPassesASigintOnToItsChild) {
  if (access(executable().c_str(), X_OK) != 0) GTEST_SKIP() << "deepscope executable not found";
  const std::string dir = tmpdir(), bin = dir + "/build", loc = dir + "/v.loc", md = dir + "/report.md";
  mkdir(bin.c_str(), 0755);
  for (const char* name : {"fraktaler-3", "fraktaler-3-centres"}) {
    const std::string p = bin + "/" + name;
    std::ofstream(p) << "#!/bin/sh\nexec sleep 30\n";
    chmod(p.c_str(), 0755);
  }
  std::ofstream(loc) << "re = -0.75\nim = 0.1\nzoom = 100\niterations = 1000\n";
  const Stopped s = signal_after({"bench", "perturb", "--peer", "f3", "--peer-dir", bin, "--location", loc, "--size",
                                  "16x16", "--runs", "1", "--out", md},
                                 1000, SIGINT, 10.0);
  expect_stopped_within(s, 1.0, md);
}

TEST(CancelCliDevice, GpuPixelLoopsStopWithinOneSecondOfSigterm) {
  DEEPSCOPE_REQUIRE_GPU();
  if (access(executable().c_str(), X_OK) != 0) GTEST_SKIP() << "deepscope executable not found";
  for (const char* arith : {"f64", "perturb"}) {
    const std::string png = tmpdir() + "/x.png";
    const Stopped s =
        signal_after({"render", "--backend", "cuda", "--size", "64x64", "--iter", "100000000000", "--no-interior",
                      "--no-bla", "--re", std::string(arith) == "f64" ? "-0.1" : "0", "--im", "0", "--zoom",
                      std::string(arith) == "f64" ? "100" : "1e20",
                      "--arith", arith, "--out", png},
                     2500, SIGTERM, 10.0);
    SCOPED_TRACE(arith);
    expect_stopped_within(s, 2.0, png);
  }
}

}  // namespace
