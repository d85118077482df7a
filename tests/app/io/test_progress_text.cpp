// The progress read-out shared by the window and the batch commands (app/io/progress_text.h): the
// stage, the share done, the time so far, and a time left only once it means something.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>
#include <thread>
#include <vector>

#include "app/cli/progress_line.h"
#include "app/io/progress_text.h"
#include "kernels/mandelbrot/mandelbrot.h"
#include "kernels/perturb/perturb.h"
#include "locations.h"

namespace {

using ds::app::duration_text;
using ds::app::progress_text;

TEST(ProgressText, DurationsInWords) {
  EXPECT_EQ(duration_text(0.2), "1 s");
  EXPECT_EQ(duration_text(12), "12 s");
  EXPECT_EQ(duration_text(200), "3 min 20 s");
  EXPECT_EQ(duration_text(3720), "1 h 02 min");
  EXPECT_EQ(duration_text(-1), "?");
  EXPECT_EQ(duration_text(NAN), "?");
}

TEST(ProgressText, StageShareElapsedAndTimeLeft) {
  // 40 % in 12 s: 18 s left at that rate.
  EXPECT_EQ(progress_text("pixels", 0.4, 12), "pixels 40 %, 12 s, about 18 s left");
  // No stage: the share first.
  EXPECT_EQ(progress_text("", 0.5, 10), "50 %, 10 s, about 10 s left");
  // Too early to say (below 2 % or under a second), and nothing left at the end.
  EXPECT_EQ(progress_text("reference orbit", 0.01, 30), "reference orbit 1 %, 30 s");
  EXPECT_EQ(progress_text("pixels", 0.5, 0.5), "pixels 50 %, 1 s");
  EXPECT_EQ(progress_text("glitch correction", 1.0, 65), "glitch correction 100 %, 1 min 05 s");
  // Out-of-range fractions are clamped, never printed as 130 % or nan %.
  EXPECT_EQ(progress_text("pixels", 1.3, 5), "pixels 100 %, 5 s");
  EXPECT_EQ(progress_text("pixels", NAN, 5), "pixels 0 %, 5 s");
}

// A reference orbit's share of max_iter reads 0 % for hours where max_iter is 2e8 and the ball's
// period may end the orbit at 3e5: the stage says the steps so far instead, and "at most".
TEST(ProgressText, ReferenceStageSaysTheStepsAndThatTheyAreAnUpperBound) {
  using ds::perturb::reference_stage_text;
  EXPECT_EQ(reference_stage_text(1228800.0 / 200000000.0, 200000000),
            "reference orbit (step 1,228,800 of at most 200,000,000)");
  EXPECT_EQ(reference_stage_text(0.0, 999), "reference orbit (step 0 of at most 999)");
  EXPECT_EQ(reference_stage_text(1.0, 1000), "reference orbit (step 1,000 of at most 1,000)");
  EXPECT_EQ(reference_stage_text(NAN, 1000), "reference orbit (step 0 of at most 1,000)");
}

// Where stderr is not a terminal (a batch job's log), the progress comes as whole lines, at most one
// per log_seconds, never the terminal's carriage returns.
TEST(ProgressText, ALogGetsWholeLinesAtMostOnceAPeriod) {
  ds::app::ProgressLine line;
  line.log = true;
  line.label = "render";
  line.log_seconds = 0.2;
  const auto progress = line.callback();
  const auto stage = line.stage_callback();
  ASSERT_TRUE(progress && stage);
  testing::internal::CaptureStderr();
  stage("pixels");
  for (int i = 0; i < 5; ++i) progress(0.1 * i);  // within the first period: nothing
  const std::string early = testing::internal::GetCapturedStderr();
  EXPECT_EQ(early, "");
  std::this_thread::sleep_for(std::chrono::milliseconds(250));
  testing::internal::CaptureStderr();
  progress(0.5);
  progress(0.6);  // the same period: not written
  line.clear();
  const std::string later = testing::internal::GetCapturedStderr();
  EXPECT_EQ(later.rfind("deepscope render: pixels 50 %, ", 0), 0u) << later;
  EXPECT_EQ(std::count(later.begin(), later.end(), '\n'), 1) << later;
  EXPECT_EQ(later.find('\r'), std::string::npos) << later;
  // Quiet (talk false): neither mode, no callbacks.
  ds::app::ProgressLine quiet;
  quiet.start(false);
  EXPECT_FALSE(quiet.on || quiet.log);
  EXPECT_FALSE(quiet.callback());
}

// What the read-out's stage comes from: a perturbation render says it computes the reference, then
// the BLA table, then the pixels, in that order; a direct render says pixels.
TEST(RenderStages, EachRenderSaysItsStagesInOrder) {
  using namespace ds::mandel;
  ds::perturb::clear_reference_cache();
  const View v = ds::test::make_view("-0.743643887037158704752191506114774", "0.131825904205311970493132056385139",
                                     "1e20", 2000, 8, 8);
  std::vector<std::string> seen;
  RenderOptions o;
  o.backend = ds::Backend::kCpu;
  o.method = Method::kPerturb;
  o.stage = [&](const char* s) { seen.push_back(s); };
  const RenderResult r = render(v, o);
  ASSERT_FALSE(r.cancelled);
  // The reference's stage may come again with its steps ("reference orbit (step N of at most M)").
  std::vector<std::string> stages;
  for (const std::string& s : seen) {
    const std::string what = s.rfind("reference orbit", 0) == 0 ? "reference orbit" : s;
    if (stages.empty() || stages.back() != what) stages.push_back(what);
  }
  ASSERT_GE(stages.size(), 3u);
  EXPECT_EQ(stages[0], "reference orbit");
  EXPECT_EQ(stages[1], "BLA table");
  EXPECT_EQ(stages[2], "pixels");
  seen.clear();
  o.method = Method::kDirect;
  View shallow = ds::test::make_view("-0.5", "0", "1", 100, 8, 8);
  (void)render(shallow, o);
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0], "pixels");
}

}  // namespace
