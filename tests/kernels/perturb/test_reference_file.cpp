// Reference orbits on disk (kernels/perturb/reference_file.h, `render --reference-cache DIR`): a
// file round-trips every field; a damaged or foreign file is never used; a render that loads the
// orbit gives the counts of one that computed it.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "kernels/mandelbrot/mandelbrot.h"
#include "kernels/perturb/perturb.h"
#include "kernels/perturb/reference_file.h"
#include "locations.h"
#include "reference_compare.h"

namespace {

using namespace ds;

// KF's 5e113 benchmark location at 48x48 (its reference: 22,906 points at 450 bits).
mandel::View kf5e113(int size) {
  return test::make_view(
      "-1.47981577613247326072298452597877854692240725774045369689878510139864920741002293820250517329282011"
      "227363313053159203914640783415609608168660705123082446357179491909705403381200",
      "-0.00063911193261361727152139632255671572957303918943984736047394936471220951961813321928573067036466"
      "151147195436388486168819318341208023229522609015461543581599807510715681229605",
      "5e113", 35494, size, size);
}

// The file's checksum (reference_file.cpp's FNV-1a).
uint64_t fnv1a(const char* p, std::size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (std::size_t k = 0; k < n; ++k) {
    h ^= static_cast<unsigned char>(p[k]);
    h *= 1099511628211ull;
  }
  return h;
}

std::string temp_dir() {
  char tmpl[] = "/tmp/deepscope-refcache-XXXXXX";
  const char* d = mkdtemp(tmpl);
  EXPECT_NE(d, nullptr);
  return d ? d : "/tmp";
}

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void write(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

TEST(ReferenceFile, RoundTripsEveryFieldAndRefusesDamage) {
  const mandel::View v = kf5e113(48);
  const mandel::Geometry g = mandel::geometry(v);
  const auto ref = perturb::compute_reference(v.re, v.im, perturb::reference_bits(g), 5000, perturb::pixel_step(g),
                                              nullptr, nullptr);
  ASSERT_TRUE(ref);
  const std::string bytes = perturb::encode_reference(*ref);
  // DSREF004: the points compressed (orbit_codec.h): under 4 bytes a point here, against DSREF002's 40.
  EXPECT_LT(bytes.size(), 8 + 8 + ref->re.size() + 8 + ref->im.size() + 21 + 48 + 8 + 4 * ref->length() + 8);
  test::expect_same_orbit(*ref, *perturb::decode_reference(bytes));
  // A long orbit stays packed when loaded (here: from 1,000 points on).
  const auto packed = perturb::decode_reference(bytes, 1000);
  EXPECT_TRUE(packed->packed && packed->zr.empty());
  test::expect_same_orbit(*ref, *packed);
  // Damaged codes under a checksum made to match: refused by the chunks' hashes.
  std::string recoded = bytes;
  recoded[bytes.size() - 200] ^= 0x04;
  const uint64_t sum = fnv1a(recoded.data(), recoded.size() - 8);
  std::memcpy(&recoded[recoded.size() - 8], &sum, 8);
  try {
    perturb::decode_reference(recoded);
    ADD_FAILURE() << "damaged codes decoded";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("compressed orbit"), std::string::npos) << e.what();
  }
  std::string flipped = bytes;
  flipped[bytes.size() / 2] ^= 0x10;
  EXPECT_THROW(perturb::decode_reference(flipped), std::runtime_error);
  EXPECT_THROW(perturb::decode_reference(bytes.substr(0, bytes.size() - 100)), std::runtime_error);
  EXPECT_THROW(perturb::decode_reference("DSREF00"), std::runtime_error);
  EXPECT_THROW(perturb::decode_reference(std::string(64, 'x')), std::runtime_error);
}

TEST(ReferenceFile, RenderLoadsTheSavedOrbitAndGivesTheSameCounts) {
  const std::string dir = temp_dir();
  mandel::View v = kf5e113(48);
  mandel::RenderOptions o;
  o.method = mandel::Method::kPerturb;
  o.backend = mandel::Backend::kCpu;
  o.reference_cache = dir;
  perturb::clear_reference_cache();
  const mandel::RenderResult first = mandel::render(v, o);
  ASSERT_EQ(first.perturb.reference_cache.rfind("saved ", 0), 0u) << first.perturb.reference_cache;
  const std::string file = first.perturb.reference_cache.substr(6);
  EXPECT_EQ(file.rfind(dir + "/ref-", 0), 0u) << file;
  EXPECT_NO_THROW(perturb::decode_reference(read(file)));
  perturb::clear_reference_cache();
  const mandel::RenderResult second = mandel::render(v, o);
  EXPECT_EQ(second.perturb.reference_cache, "loaded " + file);
  EXPECT_TRUE(second.perturb.reference_reused);
  EXPECT_EQ(second.counts, first.counts);
  EXPECT_EQ(second.smooth, first.smooth);

  // A damaged file is rejected, the orbit computed again (same counts) and the file replaced.
  std::string bytes = read(file);
  bytes[bytes.size() - 20] ^= 1;
  write(file, bytes);
  perturb::clear_reference_cache();
  const mandel::RenderResult third = mandel::render(v, o);
  EXPECT_NE(third.perturb.reference_cache.find("rejected"), std::string::npos) << third.perturb.reference_cache;
  EXPECT_NE(third.perturb.reference_cache.find("checksum"), std::string::npos) << third.perturb.reference_cache;
  EXPECT_FALSE(third.perturb.reference_reused);
  EXPECT_EQ(third.counts, first.counts);
  EXPECT_NO_THROW(perturb::decode_reference(read(file)));

  // Another view's orbit under this view's name (a renamed file) is not used either.
  mandel::View other = v;
  other.max_iter = 30000;
  perturb::clear_reference_cache();
  mandel::RenderOptions o2 = o;
  const mandel::RenderResult r_other = mandel::render(other, o2);
  const std::string other_file = r_other.perturb.reference_cache.substr(6);
  ASSERT_NE(other_file, file);
  write(file, read(other_file));
  perturb::clear_reference_cache();
  const mandel::RenderResult fourth = mandel::render(v, o);
  EXPECT_NE(fourth.perturb.reference_cache.find("another view's orbit"), std::string::npos)
      << fourth.perturb.reference_cache;
  EXPECT_EQ(fourth.counts, first.counts);
  perturb::clear_reference_cache();
  EXPECT_EQ(std::system(("rm -rf " + dir).c_str()), 0);
}

}  // namespace

namespace {

// v's reference with a checkpoint at `path` (saved every `seconds`, and when cancelled), cancelled
// once past iteration 9,000 (its progress says so): the note it leaves.
std::string cut_orbit(const mandel::View& v, const std::string& path, uint64_t budget,
                      double seconds = 3600) {
  const mandel::Geometry g = mandel::geometry(v);
  std::atomic<bool> stop{false};
  std::string note;
  const auto cut = perturb::compute_reference(
      v.re, v.im, perturb::reference_bits(g), v.max_iter, perturb::pixel_step(g), &stop,
      [&](double x) {
        if (x * v.max_iter > 9000) stop = true;
      },
      false, 0, budget, path, seconds, &note);
  EXPECT_FALSE(cut);  // cancelled
  return note;
}

// A checkpointed orbit (compute_reference's checkpoint, `render --reference-cache`): cancelled part
// way, it leaves a checkpoint; resumed from it, the orbit is bit for bit the uninterrupted one; a
// damaged checkpoint is not used (the orbit starts over and says why).
TEST(ReferenceCheckpoint, ResumedOrbitIsTheUninterruptedOne) {
  const mandel::View v = kf5e113(48);
  const mandel::Geometry g = mandel::geometry(v);
  const int bits = perturb::reference_bits(g);
  const auto whole = perturb::compute_reference(v.re, v.im, bits, v.max_iter, perturb::pixel_step(g), nullptr, nullptr);
  ASSERT_TRUE(whole);
  ASSERT_GT(whole->length(), 3 * 4096u);
  const std::string path = temp_dir() + "/orbit.partial";
  std::string note = cut_orbit(v, path, 0);
  EXPECT_NE(note.find("checkpoint " + path + " at iteration 16384"), std::string::npos) << note;
  const std::string saved = read(path), saved_points = read(path + ".points");
  ASSERT_FALSE(saved.empty());
  const perturb::ReferenceCheckpoint k = perturb::decode_checkpoint_state(saved);
  EXPECT_EQ(k.points, 16385u);
  // The points file: one segment, compressed (about 2.2 bytes a point at 5e113; 40 before DSPART03).
  EXPECT_LT(saved_points.size(), 16385u * 4);
  EXPECT_LT(saved.size(), 4096u);  // the state: small, whatever the orbit's length

  note.clear();
  const auto resumed = perturb::compute_reference(v.re, v.im, bits, v.max_iter, perturb::pixel_step(g), nullptr,
                                                  nullptr, false, 0, 0, path, 3600, &note);
  ASSERT_TRUE(resumed);
  EXPECT_EQ(note, "resumed " + path + " at iteration 16384");
  test::expect_same_orbit(*whole, *resumed);
  EXPECT_TRUE(read(path).empty());  // spent: removed
  EXPECT_TRUE(read(path + ".points").empty());

  // Points appended after the state was saved (a crash between the two writes) are cut off.
  write(path, saved);
  write(path + ".points", saved_points + std::string(4000, '\x7f'));
  note.clear();
  const auto longer = perturb::compute_reference(v.re, v.im, bits, v.max_iter, perturb::pixel_step(g), nullptr,
                                                 nullptr, false, 0, 0, path, 3600, &note);
  ASSERT_TRUE(longer);
  EXPECT_EQ(note, "resumed " + path + " at iteration 16384");
  test::expect_same_orbit(*whole, *longer);

  // A damaged point is refused (the state's hash of the points), and the orbit starts over.
  std::string bad_points = saved_points;
  bad_points[bad_points.size() / 3] ^= 0x01;
  write(path, saved);
  write(path + ".points", bad_points);
  note.clear();
  const auto redone = perturb::compute_reference(v.re, v.im, bits, v.max_iter, perturb::pixel_step(g), nullptr,
                                                 nullptr, false, 0, 0, path, 3600, &note);
  ASSERT_TRUE(redone);
  EXPECT_NE(note.find("the points' hash differs"), std::string::npos) << note;
  test::expect_same_orbit(*whole, *redone);

  // A damaged checkpoint is refused, and the orbit is computed from the start, the same.
  std::string bad = saved;
  bad[bad.size() / 2] ^= 0x10;
  write(path, bad);
  note.clear();
  const auto fresh = perturb::compute_reference(v.re, v.im, bits, v.max_iter, perturb::pixel_step(g), nullptr,
                                                nullptr, false, 0, 0, path, 3600, &note);
  ASSERT_TRUE(fresh);
  EXPECT_NE(note.find("not used (reference checkpoint: checksum mismatch)"), std::string::npos) << note;
  test::expect_same_orbit(*whole, *fresh);
  // Another precision's checkpoint is not this orbit's.
  write(path, saved);
  note.clear();
  const auto other = perturb::compute_reference(v.re, v.im, bits + 64, v.max_iter, perturb::pixel_step(g), nullptr,
                                                nullptr, false, 0, 0, path, 3600, &note);
  ASSERT_TRUE(other);
  EXPECT_NE(note.find("another orbit's"), std::string::npos) << note;
}

// A checkpoint carries the ball riding along the orbit (DSPART04): an orbit cut before the ball's
// period and resumed still stops there, as the uninterrupted one does. Before, a resumed orbit ran
// without the ball, to max_iter: at FractalShark's view 30 that is 2e8 steps of 380,000 bits
// (days) in place of the period's 669,772 (45 s on the H200). A checkpoint made for another disk
// resumes without the ball and says so.
TEST(ReferenceCheckpoint, AResumedOrbitStillStopsAtTheBallsPeriod) {
  const auto kv = test::data_file_keys("../../assets/locations/fractalshark/view05.loc", '=');
  const mandel::View v = test::keyed_view(kv, "re", "im", "zoom", "iterations", 1920, 1080);
  const mandel::Geometry g = mandel::geometry(v);
  const int bits = perturb::reference_bits(g);
  const perturb::BallStop ball = perturb::view_ball(g, v);
  ASSERT_GT(ball.max_period, 0u);
  const auto orbit = [&](const std::string& path, perturb::BallStop b, std::atomic<bool>* stop, std::string* note) {
    return perturb::compute_reference(
        v.re, v.im, bits, v.max_iter, perturb::pixel_step(g), stop,
        [&](double x) {
          if (stop && x * static_cast<double>(v.max_iter) > 4000) *stop = true;
        },
        false, 0, 0, path, 3600, note, perturb::ReferencePath::kAuto, perturb::kReferenceShiftLog2, b);
  };
  const auto whole = orbit("", ball, nullptr, nullptr);
  ASSERT_TRUE(whole);
  ASSERT_GT(whole->ball_period, 8192u);  // 16,044: past the cut below
  const std::string path = temp_dir() + "/orbit.partial";
  std::atomic<bool> stop{false};
  std::string note;
  EXPECT_FALSE(orbit(path, ball, &stop, &note));
  EXPECT_NE(note.find("at iteration 8192"), std::string::npos) << note;
  const std::string saved = read(path), saved_points = read(path + ".points");
  const perturb::ReferenceCheckpoint k = perturb::decode_checkpoint_state(saved);
  EXPECT_EQ(k.ball.max_period, ball.max_period);
  EXPECT_TRUE(k.ball_r > FloatExp(0.0));

  note.clear();
  const auto resumed = orbit(path, ball, nullptr, &note);
  ASSERT_TRUE(resumed);
  EXPECT_EQ(note, "resumed " + path + " at iteration 8192");
  EXPECT_EQ(resumed->ball_period, whole->ball_period);
  test::expect_same_orbit(*whole, *resumed);

  // Another disk's checkpoint: the same points, resumed without the ball (to the limit), said
  // (read at the first progress after the resume, which is then cancelled).
  write(path, saved);
  write(path + ".points", saved_points);
  perturb::BallStop other = ball;
  other.radius = other.radius * FloatExp(2.0);
  note.clear();
  std::string at_resume;
  stop = false;
  EXPECT_FALSE(perturb::compute_reference(v.re, v.im, bits, v.max_iter, perturb::pixel_step(g), &stop,
                                          [&](double) {
                                            if (at_resume.empty()) at_resume = note;
                                            stop = true;
                                          },
                                          false, 0, 0, path, 3600, &note, perturb::ReferencePath::kAuto,
                                          perturb::kReferenceShiftLog2, other));
  EXPECT_EQ(at_resume, "resumed " + path +
                           " at iteration 8192 (without the ball's period: the checkpoint was made for another "
                           "disk, or before checkpoints carried it)");
}

// A checkpoint saved at every chunk of steps: its points file is one segment a save, and the
// orbit resumes from them bit for bit (and from a copy cut back to fewer saves, the state of that
// time: later segments are cut off).
TEST(ReferenceCheckpoint, SegmentsOfEverySaveResumeTheSame) {
  const mandel::View v = kf5e113(48);
  const mandel::Geometry g = mandel::geometry(v);
  const int bits = perturb::reference_bits(g);
  const auto whole =
      perturb::compute_reference(v.re, v.im, bits, v.max_iter, perturb::pixel_step(g), nullptr, nullptr);
  ASSERT_TRUE(whole);
  const std::string path = temp_dir() + "/often.partial";
  const std::string note = cut_orbit(v, path, 0, 0.0);
  EXPECT_NE(note.find("at iteration 16384"), std::string::npos) << note;
  const std::string points = read(path + ".points");
  // Segments: u64 bytes, then the segment, whose first u64 is its points.
  uint64_t segments = 0, total = 0;
  for (std::size_t at = 0; at + 16 <= points.size(); ++segments) {
    uint64_t len = 0, count = 0;
    std::memcpy(&len, points.data() + at, 8);
    std::memcpy(&count, points.data() + at + 8, 8);
    total += count;
    at += 8 + len;
  }
  EXPECT_GE(segments, 3u);
  EXPECT_EQ(total, 16385u);
  std::string again;
  const auto resumed = perturb::compute_reference(v.re, v.im, bits, v.max_iter, perturb::pixel_step(g),
                                                  nullptr, nullptr, false, 0, 0, path, 3600, &again);
  ASSERT_TRUE(resumed);
  EXPECT_EQ(again, "resumed " + path + " at iteration 16384");
  test::expect_same_orbit(*whole, *resumed);
}

// The same with an orbit packed while it is computed (a budget that packs it past 8,192 points,
// orbit_codec.h): the checkpoint's points file holds the same bytes as the arrays' (read back from
// the packed chunks), and the resumed orbit is packed and bit for bit the uninterrupted one.
TEST(ReferenceCheckpoint, PackedOrbitResumesTheSame) {
  const mandel::View v = kf5e113(48);
  const mandel::Geometry g = mandel::geometry(v);
  const int bits = perturb::reference_bits(g);
  const uint64_t budget = 8 * perturb::kReferenceBytesPerPoint * 8192;
  const auto whole =
      perturb::compute_reference(v.re, v.im, bits, v.max_iter, perturb::pixel_step(g), nullptr, nullptr);
  ASSERT_TRUE(whole);
  const std::string dir = temp_dir(), plain_path = dir + "/plain.partial", path = dir + "/packed.partial";
  for (const std::string& p : {plain_path, path}) {
    const std::string note = cut_orbit(v, p, p == path ? budget : 0);
    EXPECT_NE(note.find("at iteration 16384"), std::string::npos) << note;
  }
  EXPECT_EQ(read(path + ".points"), read(plain_path + ".points"));
  EXPECT_LT(read(path + ".points").size(), 16385u * 4);
  std::string note;
  const auto resumed = perturb::compute_reference(v.re, v.im, bits, v.max_iter, perturb::pixel_step(g),
                                                  nullptr, nullptr, false, 0, budget, path, 3600, &note);
  ASSERT_TRUE(resumed);
  EXPECT_EQ(note, "resumed " + path + " at iteration 16384");
  EXPECT_TRUE(resumed->packed);
  test::expect_same_orbit(*whole, *resumed);
  EXPECT_EQ(std::system(("rm -rf " + dir).c_str()), 0);
}

}  // namespace
