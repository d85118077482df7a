// `deepscope drift md` checkpoints (docs/drift.md, "Checkpoints"): the built executable interrupted
// by SIGINT after it wrote PREFIX.ckpt (one precision finished, the next part-way), then run again,
// writes the uninterrupted run's files byte for byte and removes the checkpoint; a damaged
// checkpoint, one of other parameters, or one of a run the command does not do exits 2 and writes
// nothing.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <climits>
#include <csignal>
#include <string>
#include <thread>
#include <vector>

#include "app/cli/commands.h"
#include "kernels/core/atomic_file.h"
#include "test_files.h"

namespace {

using Clock = std::chrono::steady_clock;
using ds::app::ArgList;
using ds::test::slurp;

std::string executable() { return ds::test::sibling_executable(); }

bool exists(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0;
}

const char* const kOutputs[] = {".csv", "_drift.csv", ".json", "_drift.png", "_pe.png"};

// Two precisions of 500 atoms, 100 equilibration steps and 1,200 sampled: a few seconds each on
// two cores; a checkpoint at every sample once 0.2 s have passed since the last.
ArgList md_args(const std::string& prefix) {
  return {"drift", "md",          "--atoms", "500",   "--steps",            "1200", "--every", "10",
          "--equilibrate", "100", "--precision", "float,double", "--backend", "cpu", "--checkpoint-every",
          "0.2",   "--out",       prefix};
}

int run_quietly(const ArgList& args, std::string* err = nullptr) {
  testing::internal::CaptureStdout();
  testing::internal::CaptureStderr();
  const int rc = ds::app::run(args);
  testing::internal::GetCapturedStdout();
  const std::string e = testing::internal::GetCapturedStderr();
  if (err) *err = e;
  return rc;
}

TEST(DriftCheckpointCli, InterruptedAndRerunWritesTheUninterruptedFiles) {
  if (access(executable().c_str(), X_OK) != 0) GTEST_SKIP() << "deepscope executable not found";
  const std::string dir = ds::test::make_tmpdir("drift-ckpt-cli");
  const std::string whole = dir + "/whole", cut = dir + "/cut";
  ASSERT_EQ(run_quietly(md_args(whole)), 0);
  EXPECT_FALSE(exists(whole + ".ckpt")) << "a finished run left its checkpoint";

  // The executable, stopped by SIGINT once float is kept in cut.resume and double's checkpoint is
  // written.
  const std::string log = dir + "/stderr.txt";
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ArgList a = md_args(cut);
    std::vector<std::string> all = {executable()};
    all.insert(all.end(), a.begin(), a.end());
    std::vector<char*> argv;
    for (std::string& s : all) argv.push_back(&s[0]);
    argv.push_back(nullptr);
    if (!freopen(log.c_str(), "w", stderr) || !freopen("/dev/null", "w", stdout)) _exit(126);
    execv(all[0].c_str(), argv.data());
    _exit(127);
  }
  int status = 0;
  bool ended = false;
  const auto t0 = Clock::now();
  while (!(exists(cut + ".resume") && exists(cut + ".ckpt"))) {
    if (waitpid(pid, &status, WNOHANG) == pid) {
      ended = true;
      break;
    }
    if (Clock::now() - t0 > std::chrono::seconds(40)) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (!ended) {
    kill(pid, SIGINT);
    waitpid(pid, &status, 0);
  }
  ASSERT_FALSE(ended) << "ended before the signal: " << slurp(log);
  ASSERT_TRUE(WIFEXITED(status)) << slurp(log);
  EXPECT_EQ(WEXITSTATUS(status), 130) << slurp(log);
  ASSERT_TRUE(exists(cut + ".ckpt")) << slurp(log);
  EXPECT_NE(slurp(log).find("state in " + cut + ".ckpt"), std::string::npos) << slurp(log);
  const std::string ckpt = slurp(cut + ".ckpt");

  // Run again: float from cut.resume, double from its checkpoint; the files are the whole run's.
  std::string err;
  ASSERT_EQ(run_quietly(md_args(cut), &err), 0) << err;
  EXPECT_NE(err.find("float      resumed from " + cut + ".resume"), std::string::npos) << err;
  EXPECT_NE(err.find("double     resumed from " + cut + ".ckpt at sampling step "), std::string::npos) << err;
  for (const char* f : kOutputs) EXPECT_EQ(slurp(cut + f), slurp(whole + f)) << f << " differs";
  EXPECT_FALSE(exists(cut + ".ckpt")) << "the finished run's checkpoint was not removed";

  // Refused before any work (exit 2, no file written), in a fresh prefix with that checkpoint.
  const std::string bad = dir + "/bad";
  const std::string resume = slurp(cut + ".resume");
  auto refused = [&](const std::string& ckpt_bytes, ArgList args, const std::string& says, bool keep_resume) {
    for (const char* f : kOutputs) std::remove((bad + f).c_str());
    std::remove((bad + ".resume").c_str());
    if (keep_resume) ds::write_file_atomically(bad + ".resume", resume);
    ds::write_file_atomically(bad + ".ckpt", ckpt_bytes);
    std::string e;
    EXPECT_EQ(run_quietly(args, &e), 2) << says << "\n" << e;
    EXPECT_NE(e.find(says), std::string::npos) << e;
    for (const char* f : kOutputs) EXPECT_FALSE(exists(bad + f)) << says << ": wrote " << f;
    EXPECT_EQ(slurp(bad + ".ckpt"), ckpt_bytes) << "the checkpoint was changed";
  };
  refused(ckpt.substr(0, ckpt.size() / 2), md_args(bad), "checksum", false);
  refused(ckpt.substr(0, 20), md_args(bad), "not a drift md checkpoint", false);
  refused("precision,seed,step\n", md_args(bad), "not a drift md checkpoint", false);
  std::string flipped = ckpt;
  flipped[ckpt.size() / 3] = static_cast<char>(flipped[ckpt.size() / 3] ^ 1);
  refused(flipped, md_args(bad), "checksum", false);
  ArgList other = md_args(bad);
  other[5] = "3000";  // --steps
  refused(ckpt, other, "checkpoint of other parameters", false);
  ArgList fixed_only = md_args(bad);
  fixed_only[11] = "fixed";  // --precision
  refused(ckpt, fixed_only, "checkpoint of double seed 87287, which this command does not run", false);
  // The resume file already holds double finished: its checkpoint cannot be used.
  ArgList double_only = md_args(bad);
  double_only[11] = "double";
  refused(ckpt, double_only, "checkpoint of double seed 87287, which this command does not run", true);
  // PREFIX.ckpt is one of the outputs checked before any work: a directory there is refused.
  const std::string dir_at = dir + "/dirat";
  ASSERT_EQ(mkdir((dir_at + ".ckpt").c_str(), 0755), 0);
  EXPECT_EQ(run_quietly(md_args(dir_at)), 2);
  for (const char* f : kOutputs) EXPECT_FALSE(exists(dir_at + f)) << f;
}

}  // namespace
