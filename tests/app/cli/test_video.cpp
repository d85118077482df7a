// `deepscope video`: frames whose zooms follow the easing (linear: the frames of render --frames,
// byte for byte), an MP4 with every frame that ffprobe reads back, an exit 2 before rendering where
// ffmpeg is missing, and a run stopped with SIGINT that resumes without rendering its finished
// frames again (the executable, as a user runs it).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "app/cli/commands.h"
#include "app/cli/zoom_frames.h"
#include "app/io/location.h"
#include "test_files.h"

namespace {

using ds::app::ArgList;
using ds::test::slurp;

int run(const std::string& sub, ArgList args) {
  args.insert(args.begin(), sub);
  return ds::app::run(args);
}

bool exists(const std::string& p) { return access(p.c_str(), F_OK) == 0; }

ino_t inode(const std::string& p) {
  struct stat st {};
  return stat(p.c_str(), &st) == 0 ? st.st_ino : 0;
}

std::string frame(const std::string& dir, int k) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "/frame%05d.png", k);
  return dir + buf;
}

ArgList zoom(const std::string& dir, int frames, const std::string& size = "48x30") {
  return {"--re",
          "-0.7453",
          "--im",
          "0.1127",
          "--zoom",
          "50",
          "--zoom-to",
          "50000",
          "--iter",
          "3000",
          "--size",
          size,
          "--backend",
          "cpu",
          "--frames",
          std::to_string(frames),
          "--quiet",
          "--out",
          dir + "/frame%05d.png"};
}

ArgList with(ArgList a, const ArgList& more) {
  a.insert(a.end(), more.begin(), more.end());
  return a;
}

std::string executable() {
  char self[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) return "";
  self[n] = 0;
  std::string dir(self);
  return dir.substr(0, dir.find_last_of('/')) + "/../app/deepscope";
}

std::string quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string capture(const std::string& cmd) {
  FILE* p = popen(cmd.c_str(), "r");
  std::string out;
  char buf[4096];
  for (size_t n; p && (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  if (p) pclose(p);
  return out;
}

TEST(Video, FrameZoomsFollowTheEasing) {
  const int n = 6;
  for (const char* easing : {"linear", "smooth", "in", "out"}) {
    const std::string dir = ds::test::make_tmpdir("video");
    ASSERT_EQ(run("video", with(zoom(dir, n), {"--easing", easing})), 0) << easing;
    const ds::app::Easing e = ds::app::parse_easing(easing);
    for (int k = 1; k <= n; ++k) {
      const ds::app::Location loc = ds::app::read_location_file(frame(dir, k));
      const double t = static_cast<double>(k - 1) / (n - 1);
      const double expect = std::log(50.0) + ds::app::ease(e, t) * std::log(1000.0);
      EXPECT_NEAR(std::log(std::stod(loc.zoom)), expect, 1e-12) << easing << " frame " << k;
    }
  }
  // smooth: slow at both ends (the first and last steps are smaller than the middle one).
  const auto z = ds::app::frame_zooms("1", "1e6", 7, ds::app::Easing::kSmooth);
  auto step = [&](int k) { return std::log(std::stod(z[k + 1]) / std::stod(z[k])); };
  EXPECT_LT(step(0), step(3));
  EXPECT_LT(step(5), step(3));
  EXPECT_EQ(z.front(), "1");
  EXPECT_EQ(z.back(), "1e6");
}

// A video is `render --frames --auto-iter` (auto iterations are video's default), and with
// --no-auto-iter plain `render --frames`; the frames that needed it record a raised limit.
TEST(Video, LinearEasingIsRenderFrames) {
  const std::string a = ds::test::make_tmpdir("video"), b = ds::test::make_tmpdir("video");
  ASSERT_EQ(run("video", zoom(a, 4)), 0);
  ASSERT_EQ(run("render", with(zoom(b, 4), {"--auto-iter"})), 0);
  int raised = 0;
  for (int k = 1; k <= 4; ++k) {
    EXPECT_FALSE(slurp(frame(a, k)).empty());
    EXPECT_EQ(slurp(frame(a, k)), slurp(frame(b, k))) << k;
    raised += slurp(frame(a, k)).find("iterations = 3000\n") == std::string::npos;
  }
  EXPECT_GT(raised, 0) << "no frame's limit was raised";
  const std::string c = ds::test::make_tmpdir("video"), d = ds::test::make_tmpdir("video");
  ASSERT_EQ(run("video", with(zoom(c, 4), {"--no-auto-iter"})), 0);
  ASSERT_EQ(run("render", zoom(d, 4)), 0);
  for (int k = 1; k <= 4; ++k) {
    EXPECT_EQ(slurp(frame(c, k)), slurp(frame(d, k))) << k;
    EXPECT_NE(slurp(frame(c, k)).find("iterations = 3000\n"), std::string::npos) << k;
  }
}

TEST(Video, Mp4HoldsEveryFrame) {
  if (access("/usr/bin/ffprobe", X_OK) != 0 ||
      capture("ffmpeg -hide_banner -encoders 2>&1").find("libx264") == std::string::npos)
    GTEST_SKIP() << "ffmpeg with libx264 and ffprobe are not installed";
  const std::string dir = ds::test::make_tmpdir("video");
  // An odd size: yuv420p needs even sides, so ffmpeg pads to 64x42.
  ASSERT_EQ(
      run("video", with(zoom(dir, 7, "63x41"), {"--mp4", dir + "/zoom.mp4", "--fps", "24", "--aa", "2"})), 0);
  const std::string probe = capture(
      "ffprobe -v error -count_frames -select_streams v:0 -show_entries "
      "stream=codec_name,width,height,pix_fmt,nb_read_frames,r_frame_rate -of default=nw=1 " +
      quote(dir + "/zoom.mp4"));
  EXPECT_NE(probe.find("codec_name=h264"), std::string::npos) << probe;
  EXPECT_NE(probe.find("width=64"), std::string::npos) << probe;
  EXPECT_NE(probe.find("height=42"), std::string::npos) << probe;
  EXPECT_NE(probe.find("pix_fmt=yuv420p"), std::string::npos) << probe;
  EXPECT_NE(probe.find("nb_read_frames=7"), std::string::npos) << probe;
  EXPECT_NE(probe.find("r_frame_rate=24/1"), std::string::npos) << probe;
  EXPECT_FALSE(exists(dir + "/zoom.mp4.part"));
}

TEST(Video, MissingFfmpegExitsTwoBeforeRendering) {
  const std::string dir = ds::test::make_tmpdir("video");
  setenv("DEEPSCOPE_FFMPEG", (dir + "/no-ffmpeg-here").c_str(), 1);
  const int rc = run("video", with(zoom(dir, 3), {"--mp4", dir + "/zoom.mp4"}));
  unsetenv("DEEPSCOPE_FFMPEG");
  EXPECT_EQ(rc, 2);
  EXPECT_FALSE(exists(frame(dir, 1))) << "nothing is rendered";
  EXPECT_FALSE(exists(dir + "/zoom.mp4"));
}

TEST(Video, BadInputExitsTwo) {
  const std::string dir = ds::test::make_tmpdir("video");
  for (const ArgList& args : std::vector<ArgList>{
           with(zoom(dir, 3), {"--easing", "bouncy"}),
           with(zoom(dir, 3), {"--fps", "0"}),
           with(zoom(dir, 3), {"--crf", "60"}),
           with(zoom(dir, 3), {"--mp4", dir + "/no/such/dir/z.mp4"}),
           with(zoom(dir, 3), {"--mp4", dir + "/z.mp4", "--shard", "0/2"}),
           {"--zoom-to", "100", "--frames", "1", "--out", dir + "/frame%05d.png"},
           {"--frames", "3", "--out", dir + "/frame%05d.png"},
       })
    EXPECT_EQ(run("video", args), 2);
  EXPECT_FALSE(exists(frame(dir, 1)));
}

// A frame counts as written only when drawn with the same --aa: changing it renders every frame again,
// and the same --aa again renders none.
TEST(Video, FramesOfAnotherAaAreRenderedAgain) {
  const std::string dir = ds::test::make_tmpdir("video");
  ArgList args = zoom(dir, 3);
  args.erase(std::find(args.begin(), args.end(), "--quiet"));
  auto rerun = [&](const ArgList& extra) {
    testing::internal::CaptureStderr();
    const int rc = run("video", with(args, extra));
    const std::string err = testing::internal::GetCapturedStderr();
    EXPECT_EQ(rc, 0) << err;
    return err;
  };
  EXPECT_NE(rerun({"--aa", "2"}).find("3 frames rendered, 0 of 3 were already written"), std::string::npos);
  EXPECT_NE(rerun({"--aa", "2"}).find("0 frames rendered, 3 of 3 were already written"), std::string::npos);
  EXPECT_NE(rerun({}).find("3 frames rendered, 0 of 3 were already written"), std::string::npos);
  EXPECT_NE(rerun({"--aa", "1"}).find("0 frames rendered, 3 of 3 were already written"), std::string::npos);
  EXPECT_NE(rerun({"--aa", "3"}).find("3 frames rendered, 0 of 3 were already written"), std::string::npos);
}

// The executable stopped with SIGINT once frame 3 is written, then run again: the frames written
// before the signal keep their files (same inodes) and the rerun says how many it found.
TEST(Video, StoppedRunResumes) {
  const std::string exe = executable();
  if (access(exe.c_str(), X_OK) != 0) GTEST_SKIP() << "no executable at " << exe;
  const std::string dir = ds::test::make_tmpdir("video");
  const int frames = 12;
  ArgList args = {"video",
                  "--re",
                  "-0.7453",
                  "--im",
                  "0.1127",
                  "--zoom",
                  "50",
                  "--zoom-to",
                  "5000",
                  "--iter",
                  "4000",
                  "--size",
                  "160x100",
                  "--backend",
                  "cpu",
                  "--frames",
                  std::to_string(frames),
                  "--out",
                  dir + "/frame%05d.png"};
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    std::vector<char*> argv = {const_cast<char*>(exe.c_str())};
    for (std::string& a : args) argv.push_back(&a[0]);
    argv.push_back(nullptr);
    freopen("/dev/null", "w", stderr);
    execv(exe.c_str(), argv.data());
    _exit(127);
  }
  const auto t0 = std::chrono::steady_clock::now();
  while (!exists(frame(dir, 3)) && std::chrono::steady_clock::now() - t0 < std::chrono::seconds(120))
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  kill(pid, SIGINT);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 130);
  std::vector<ino_t> before;
  int written = 0;
  for (int k = 1; k <= frames; ++k) {
    before.push_back(inode(frame(dir, k)));
    written += exists(frame(dir, k));
  }
  ASSERT_GE(written, 3);
  ASSERT_LT(written, frames) << "the signal came too late to test anything";

  std::string cmd = quote(exe);
  for (size_t k = 0; k < args.size(); ++k) cmd += " " + quote(args[k]);
  const std::string err = capture(cmd + " 2>&1 >/dev/null; echo rc=$?");
  EXPECT_NE(err.find("rc=0"), std::string::npos) << err;
  const std::string expect = std::to_string(frames - written) + " frames rendered, " +
                             std::to_string(written) + " of " + std::to_string(frames) +
                             " were already written";
  EXPECT_NE(err.find(expect), std::string::npos) << err;
  for (int k = 1; k <= frames; ++k) {
    EXPECT_TRUE(exists(frame(dir, k)));
    if (before[static_cast<size_t>(k - 1)]) {
      EXPECT_EQ(inode(frame(dir, k)), before[static_cast<size_t>(k - 1)]) << k;
    }
  }
}

}  // namespace
