// `deepscope render` over kernels/work: a frame sequence cancelled and run again ends with the same
// files as one uninterrupted run (finished frames are not rendered again); two shards write the
// same files as one run; an image rendered in strips (--tile-rows) is byte-identical to the one
// render, also by perturbation, and resumes from its chunk file; bad --devices/--shard/--tile-rows
// exit with 2.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "app/cli/cancel.h"
#include "app/cli/commands.h"
#include "test_files.h"
#include "locations.h"

namespace {

using ds::app::ArgList;
using ds::test::slurp;

int render(ArgList args) {
  args.insert(args.begin(), "render");
  return ds::app::run(args);
}

bool exists(const std::string& p) { return access(p.c_str(), F_OK) == 0; }

ino_t inode(const std::string& p) {
  struct stat st {};
  return stat(p.c_str(), &st) == 0 ? st.st_ino : 0;
}

std::string frame(const std::string& dir, const char* stem, int k, const char* ext) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "/%s_%05d.%s", stem, k, ext);
  return dir + buf;
}

// A short zoom sequence on the CPU: frames of about 20 ms each.
ArgList sequence(const std::string& dir, int frames = 10) {
  return {"--re",         "-0.7453",  "--im",        "0.1127", "--zoom",   "50",
          "--iter",       "6000",     "--size",      "64x40",  "--frames", std::to_string(frames),
          "--zoom-to",    "5000",     "--backend",   "cpu",    "--quiet",  "--out",
          dir + "/f.png", "--counts", dir + "/f.npy"};
}

void expect_same_frames(const std::string& a, const std::string& b, int frames) {
  for (int k = 1; k <= frames; ++k)
    for (const char* ext : {"png", "npy"}) {
      const std::string x = slurp(frame(a, "f", k, ext)), y = slurp(frame(b, "f", k, ext));
      EXPECT_FALSE(x.empty()) << k << ext;
      EXPECT_EQ(x, y) << "frame " << k << " ." << ext;
    }
}

TEST(RenderWork, CancelledSequenceResumesToTheSameFiles) {
  const std::string whole = ds::test::make_tmpdir("render-work"), cut = ds::test::make_tmpdir("render-work");
  ASSERT_EQ(render(sequence(whole)), 0);

  // Ctrl-C once the second frame is written.
  std::atomic<bool> done{false};
  std::thread watcher([&] {
    while (!done && !exists(frame(cut, "f", 2, "png")))
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    ds::app::cancel_flag() = true;
  });
  const int rc = render(sequence(cut));
  done = true;
  watcher.join();
  ds::app::cancel_flag() = false;
  EXPECT_EQ(rc, 130);
  int written = 0;
  for (int k = 1; k <= 10; ++k) written += exists(frame(cut, "f", k, "png"));
  EXPECT_GE(written, 2);
  EXPECT_LT(written, 10) << "the cancel came too late to test anything";
  const ino_t first = inode(frame(cut, "f", 1, "png"));

  ASSERT_EQ(render(sequence(cut)), 0);
  expect_same_frames(whole, cut, 10);
  EXPECT_EQ(inode(frame(cut, "f", 1, "png")), first) << "a finished frame was rendered again";

  // A frame whose PNG shows another location, or whose array is missing, is rendered again.
  std::rename(frame(cut, "f", 3, "png").c_str(), frame(cut, "f", 4, "png").c_str());
  std::remove(frame(cut, "f", 5, "npy").c_str());
  ASSERT_EQ(render(sequence(cut)), 0);
  expect_same_frames(whole, cut, 10);
}

// A rerun with another colouring (shader, its parameters, the stripe average's engine parameters)
// draws the frames again; with the same colouring it skips them.
TEST(RenderWork, AnotherColouringDrawsTheFramesAgain) {
  const std::string dir = ds::test::make_tmpdir("render-work"), fresh = ds::test::make_tmpdir("render-work");
  auto seq = [](const std::string& d, ArgList extra) {
    ArgList a = {"--re", "-0.7453", "--im", "0.1127", "--zoom", "50", "--iter", "1500", "--size", "48x30",
                 "--frames", "2", "--zoom-to", "500", "--backend", "cpu", "--quiet", "--out", d + "/f.png"};
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  };
  ASSERT_EQ(render(seq(dir, {})), 0);
  const ino_t palette_frame = inode(frame(dir, "f", 1, "png"));
  ASSERT_EQ(render(seq(dir, {})), 0);
  EXPECT_EQ(inode(frame(dir, "f", 1, "png")), palette_frame) << "the same colouring: nothing to draw";
  for (const ArgList& colouring : {ArgList{"--shader", "stripe"}, ArgList{"--shader", "stripe", "--stripe-memory", "0.5"},
                                   ArgList{"--shader", "stripe", "--stripe-memory", "0.5", "--shader-param",
                                           "stripe_mix=0.3"}}) {
    const ino_t before = inode(frame(dir, "f", 1, "png"));
    ASSERT_EQ(render(seq(dir, colouring)), 0);
    EXPECT_NE(inode(frame(dir, "f", 1, "png")), before) << colouring.back() << ": not drawn again";
    ASSERT_EQ(render(seq(fresh, colouring)), 0);
    EXPECT_EQ(slurp(frame(dir, "f", 2, "png")), slurp(frame(fresh, "f", 2, "png"))) << colouring.back();
  }
}

TEST(RenderWork, TwoShardsWriteTheFilesOfOneRun) {
  const std::string whole = ds::test::make_tmpdir("render-work"),
                    shards = ds::test::make_tmpdir("render-work");
  ASSERT_EQ(render(sequence(whole, 5)), 0);
  ArgList a = sequence(shards, 5), b = a;
  a.insert(a.end(), {"--shard", "0/2"});
  b.insert(b.end(), {"--shard", "1/2"});
  ASSERT_EQ(render(a), 0);
  EXPECT_TRUE(exists(frame(shards, "f", 1, "png")));
  EXPECT_FALSE(exists(frame(shards, "f", 2, "png")));  // frame 2 is chunk 1: shard 1's
  ASSERT_EQ(render(b), 0);
  expect_same_frames(whole, shards, 5);
}

// One image: --tile-rows gives the bytes of the one render, for direct f64 and perturbation.
TEST(RenderWork, StripsAreByteIdenticalToOneRender) {
  const std::string dir = ds::test::make_tmpdir("render-work");
  const std::vector<ArgList> views = {
      {"--re", "-0.7453", "--im", "0.1127", "--zoom", "100", "--iter", "1500", "--size", "40x27", "--arith",
       "f64"},
      {"--re", ds::test::kKf1e14Re, "--im", ds::test::kKf1e14Im, "--zoom", "1e14", "--iter", "4036",
       "--size", "32x21", "--arith", "perturb"}};
  for (const ArgList& view : views) {
    ArgList one = view, tiled = view;
    one.insert(one.end(), {"--backend", "cpu", "--quiet", "--out", dir + "/one.png", "--counts",
                           dir + "/one_c.npy", "--smooth", dir + "/one_s.npy"});
    tiled.insert(tiled.end(), {"--backend", "cpu", "--quiet", "--tile-rows", "4", "--out", dir + "/t.png",
                               "--counts", dir + "/t_c.npy", "--smooth", dir + "/t_s.npy"});
    ASSERT_EQ(render(one), 0);
    ASSERT_EQ(render(tiled), 0);
    EXPECT_EQ(slurp(dir + "/t.png"), slurp(dir + "/one.png")) << view[view.size() - 1];
    EXPECT_EQ(slurp(dir + "/t_c.npy"), slurp(dir + "/one_c.npy")) << view[view.size() - 1];
    EXPECT_EQ(slurp(dir + "/t_s.npy"), slurp(dir + "/one_s.npy")) << view[view.size() - 1];
    EXPECT_FALSE(exists(dir + "/t.png.chunks")) << "the chunk file stays after a complete render";
  }
}

// The fields travel with the strips: a shader that reads the distance estimate, the phase or the
// stripe average colours the strips' image as the one render's, byte for byte (PNG records
// included, the stripe's approximate count among them).
TEST(RenderWork, StripsCarryTheFieldsTheShaderReads) {
  const std::string dir = ds::test::make_tmpdir("render-work");
  const ArgList view = {"--re", ds::test::kKf1e14Re, "--im", ds::test::kKf1e14Im, "--zoom", "1e14", "--iter", "4036",
                        "--size", "32x21", "--arith", "perturb", "--backend", "cpu", "--quiet"};
  for (const char* shader : {"slopes", "decomposition", "stripe"}) {
    ArgList one = view, tiled = view;
    one.insert(one.end(), {"--shader", shader, "--stripe-memory", "0.9", "--out", dir + "/one.png"});
    tiled.insert(tiled.end(), {"--shader", shader, "--stripe-memory", "0.9", "--tile-rows", "4", "--out",
                               dir + "/t.png"});
    ASSERT_EQ(render(one), 0) << shader;
    ASSERT_EQ(render(tiled), 0) << shader;
    const std::string a = slurp(dir + "/one.png"), b = slurp(dir + "/t.png");
    EXPECT_EQ(a, b) << shader;
    if (std::string(shader) == "stripe") {
      EXPECT_NE(a.find("deepscope-stripe"), std::string::npos);
    }
  }
}

// Ctrl-C during a strip render keeps the finished strips; the rerun loads them and writes the image.
TEST(RenderWork, CancelledStripsResume) {
  const std::string dir = ds::test::make_tmpdir("render-work");
  const ArgList base = {"--re",   "-0.7453", "--im",      "0.1127", "--zoom",  "100",     "--iter", "20000",
                        "--size", "64x64",   "--backend", "cpu",    "--quiet", "--arith", "f64"};
  ArgList one = base, tiled = base;
  one.insert(one.end(), {"--out", dir + "/one.png"});
  tiled.insert(tiled.end(), {"--tile-rows", "2", "--out", dir + "/t.png"});
  ASSERT_EQ(render(one), 0);
  std::atomic<bool> done{false};
  std::thread watcher([&] {
    while (!done) {
      struct stat st {};
      if (stat((dir + "/t.png.chunks").c_str(), &st) == 0 && st.st_size > 3 * 64 * 2 * 8) break;
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    ds::app::cancel_flag() = true;
  });
  const int rc = render(tiled);
  done = true;
  watcher.join();
  ds::app::cancel_flag() = false;
  EXPECT_EQ(rc, 130);
  EXPECT_FALSE(exists(dir + "/t.png"));
  EXPECT_TRUE(exists(dir + "/t.png.chunks"));
  ASSERT_EQ(render(tiled), 0);
  EXPECT_EQ(slurp(dir + "/t.png"), slurp(dir + "/one.png"));
  EXPECT_FALSE(exists(dir + "/t.png.chunks"));
}

TEST(RenderWork, BadPlacementExitsWithTwo) {
  const std::string dir = ds::test::make_tmpdir("render-work");
  const ArgList base = {"--size", "8x8", "--quiet", "--out", dir + "/x.png"};
  const std::vector<ArgList> bad = {
      {"--backend", "cpu", "--devices", "0"},  // a device list on the CPU
      {"--backend", "cpu", "--devices", "zero"},
      {"--device", "0", "--devices", "0"},
      {"--shard", "2/2", "--frames", "2", "--zoom-to", "2"},
      {"--shard", "1", "--frames", "2", "--zoom-to", "2"},
      {"--shard", "-1/2", "--frames", "2", "--zoom-to", "2"},
      {"--shard", "0/2"},  // one image cannot be sharded
      {"--tile-rows", "0"},
      {"--tile-rows", "4", "--frames", "2", "--zoom-to", "2"},
  };
  for (const ArgList& extra : bad) {
    ArgList args = base;
    args.insert(args.end(), extra.begin(), extra.end());
    std::string line;
    for (const std::string& s : extra) line += s + " ";
    EXPECT_EQ(render(args), 2) << line;
  }
  EXPECT_FALSE(exists(dir + "/x.png"));
}

}  // namespace
