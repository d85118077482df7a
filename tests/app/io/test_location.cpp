// Location files (ours, Kalles Fraktaler .kfr, Fraktaler-3 .toml, PNG tEXt) read as their authors
// meant them, the collection in tests/data/locations, PNG chunk handling and .npy encoding.
#include <dirent.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <fstream>

#include "app/io/image_io.h"
#include "kernels/core/atomic_file.h"
#include "app/io/location.h"
#include "test_files.h"

namespace {

using namespace ds;
using namespace ds::app;

std::string tmpdir() {
  char tmpl[] = "/tmp/deepscope-loc-XXXXXX";
  return mkdtemp(tmpl);
}

// Whether `what` (an exception's message) names every one of `parts`.
::testing::AssertionResult names(const std::string& what, std::initializer_list<const char*> parts) {
  for (const char* p : parts)
    if (what.find(p) == std::string::npos)
      return ::testing::AssertionFailure() << "\"" << what << "\" lacks " << p;
  return ::testing::AssertionSuccess();
}

// The IoError message of parse_location(text), or "" when it parses.
std::string parse_error(const std::string& text) {
  try {
    parse_location(text, "t");
  } catch (const IoError& e) {
    return e.what();
  }
  return "";
}

void expect_map(const PixelMap& got, const PixelMap& want, double tol = 1e-15) {
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(got[i], want[i], tol) << "element " << i;
}

std::string all(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += x + "\n";
  return s;
}

const char* kKfHead =
    "Re: -1.759817130804847813610825010561798238243999999999999999999800\r\n"
    "Im: -0.012593310799749865383746631843264858450340000000000000000000\r\n"
    "Zoom: 1.00e014\r\nIterations: 4036\r\n";

TEST(Location, ParsesOurFormat) {
  const Location l = parse_location(
      "# a comment\n"
      "re = -0.75   # trailing comment\n"
      "IM=0.1\n"
      "zoom = 1e300\n"
      "iterations = 5000\n"
      "width = 640\nheight = 480\npalette = gray\ndensity = 2.5\noffset = 0.25\n"
      "format_used = limb32\nsomething_new = 1\n",
      "test");
  EXPECT_EQ(l.re, "-0.75");
  EXPECT_EQ(l.im, "0.1");
  EXPECT_EQ(l.zoom, "1e300");
  EXPECT_EQ(*l.iterations, 5000u);
  EXPECT_EQ(*l.width, 640);
  EXPECT_EQ(*l.height, 480);
  EXPECT_EQ(*l.palette, "gray");
  EXPECT_DOUBLE_EQ(*l.density, 2.5);
  EXPECT_DOUBLE_EQ(*l.offset, 0.25);
  EXPECT_EQ(l.format_used, "limb32");
  EXPECT_EQ(l.pixel_map, kIdentityMap);
  // An unknown key is not dropped without a word.
  ASSERT_EQ(l.warnings.size(), 1u);
  EXPECT_TRUE(names(l.warnings[0], {"unknown", "something_new"}));
}

TEST(Location, ParsesKallesFraktalerFiles) {
  // The head of KF 2's benchmarks/1e14.kfr (CRLF line ends, colouring keys we do not reproduce).
  const Location l =
      parse_location(std::string(kKfHead) +
                         "IterDiv: 1.000000\r\nSmoothMethod: 0\r\nRotate: 0.000000\r\n"
                         "Ratio: 360.000000\r\nColors: 0,0,0,41,35,190,\r\nPower: 2\r\n"
                         "FractalType: 0\r\nSlopes: 0\r\nSlopePower: 50\r\nSeedR: 0\r\nFactorAR: 1\r\n",
                     "kf.kfr");
  EXPECT_EQ(l.re, "-1.759817130804847813610825010561798238243999999999999999999800");
  EXPECT_EQ(l.zoom, "1.00e014");
  EXPECT_EQ(*l.iterations, 4036u);
  EXPECT_FALSE(l.width.has_value());
  // KF's imaginary axis points down (ImagPointsUp, KF 2.15.4, makes it point up).
  EXPECT_EQ(l.pixel_map, (PixelMap{1, 0, 0, -1}));
  // The colouring keys are KF's colouring, which the kf shader draws: nothing to warn about.
  EXPECT_TRUE(l.warnings.empty()) << all(l.warnings);
  ASSERT_TRUE(l.kf_colouring.has_value());
  EXPECT_EQ(l.kf_colouring->colors.size(), 2u);
  EXPECT_DOUBLE_EQ(l.kf_colouring->iter_div, 1);
  // The view draws KF's mirror image as the conjugate view with the identity map.
  mandel::View v;
  apply_to_view(l, &v, true);
  EXPECT_EQ(v.im, "0.012593310799749865383746631843264858450340000000000000000000");
  EXPECT_EQ(v.re, l.re);
  EXPECT_TRUE(v.pixel_map_identity());
  EXPECT_EQ(v.max_iter, 4036u);
}

TEST(Location, KfRotateIsRadiansAndRatioStretchesTheRealAxis) {
  // KF <= 2.14: c - centre = (s/2) (C a kx - S ky, -S a kx - C ky), a = 360/Ratio.
  const double t = 0.5, c = std::cos(t), s = std::sin(t);
  expect_map(kf_legacy_pixel_map(t, 720), {c / 2, -s, -s / 2, -c});
  const Location l = parse_location(std::string(kKfHead) + "Rotate: 0.5\r\nRatio: 720\r\n", "r.kfr");
  expect_map(l.pixel_map, {c / 2, -s, -s / 2, -c});
  // Ratio 381.176471 (KF's 1e1086 benchmark): pixels 17/18 as wide as high.
  expect_map(
      parse_location(std::string(kKfHead) + "Rotate: 0.000000\r\nRatio: 381.176471\r\n", "x").pixel_map,
      {360 / 381.176471, 0, 0, -1});
}

TEST(Location, KfNewTransformKeys) {
  // KF >= 2.15: m = G B Rot(r) D. A pure rotation by r is KF 2.14's Rotate of -r (KF 2.14's own
  // conversion, GetTransformMatrix, negates the angle too).
  for (double deg : {0.0, 30.0, -100.0, 180.0})
    expect_map(kf_pixel_map(deg, 0, 0, false), kf_legacy_pixel_map(-deg * M_PI / 180, 360), 1e-15);
  // ImagPointsUp without rotation is the maths orientation, our identity.
  expect_map(kf_pixel_map(0, 0, 0, true), kIdentityMap);
  const Location up = parse_location(std::string(kKfHead) + "ImagPointsUp: 1\r\n", "x");
  expect_map(up.pixel_map, kIdentityMap);
  // A stretch keeps the determinant at -1 and stretches along StretchAngle.
  const PixelMap m = kf_pixel_map(0, 0, 1, false);  // factor 2 along the real axis
  expect_map(m, {2, 0, 0, -0.5});
  const Location l = parse_location(std::string(kKfHead) +
                                        "RotateAngle: 30\r\nStretchAngle: 45\r\n"
                                        "StretchAmount: 0.5\r\nImagPointsUp: 0\r\n",
                                    "x");
  expect_map(l.pixel_map, kf_pixel_map(30, 45, 0.5, false));
  EXPECT_NEAR(l.pixel_map[0] * l.pixel_map[3] - l.pixel_map[1] * l.pixel_map[2], -1, 1e-14);
  EXPECT_TRUE(l.warnings.empty()) << all(l.warnings);
  // Both generations of keys in one file: KF 2.15 reads the new ones, and a disagreement is said.
  const Location both =
      parse_location(std::string(kKfHead) + "Rotate: 0.3\r\nRatio: 360\r\nRotateAngle: 10\r\n", "x");
  expect_map(both.pixel_map, kf_pixel_map(10, 0, 0, false));
  ASSERT_EQ(both.warnings.size(), 1u);
  EXPECT_TRUE(names(both.warnings[0], {"Rotate/Ratio", "disagree"}));
}

TEST(Location, KfFieldsThatChangeTheFormulaAreErrors) {
  for (const char* f : {"SeedR: 0.5", "SeedI: -1", "FactorAR: 2", "FactorAI: 1", "UseHybridFormula: 1"}) {
    const std::string key(f, std::strchr(f, ':'));
    const std::string value(std::strchr(f, ':') + 2);
    EXPECT_TRUE(
        names(parse_error(std::string(kKfHead) + f + "\r\n"), {key.c_str(), value.c_str(), "z^2 + c"}))
        << f;
  }
  // FractalType and Power outside the formulas deepscope computes (docs/formulas.md), by name.
  EXPECT_TRUE(names(parse_error(std::string(kKfHead) + "FractalType: 11\r\nPower: 3\r\n"),
                    {"FractalType = 11", "t:6"}));
  EXPECT_TRUE(names(parse_error(std::string(kKfHead) + "Power: 9\r\n"), {"Power = 9", "Mandelbrot"}));
  EXPECT_TRUE(names(parse_error(std::string(kKfHead) + "FractalType: 1\r\nPower: 4\r\n"),
                    {"Power = 4", "Burning Ship", "2, 3"}));
  EXPECT_TRUE(names(parse_error(std::string(kKfHead) + "FractalType: 1.5\r\n"), {"FractalType", "integer"}));
  // The neutral values in KF's own spellings are accepted.
  EXPECT_EQ(parse_error(std::string(kKfHead) + "Power: 2\r\nSeedR: 0.000000\r\nFactorAR: 1.0\r\n"), "");
}

TEST(Location, KfFractalTypeAndPowerChooseTheFormula) {
  EXPECT_EQ(parse_location(std::string(kKfHead) + "Power: 2\r\nFractalType: 0\r\n", "t").formula, "");
  EXPECT_EQ(parse_location(std::string(kKfHead) + "Power: 3\r\n", "t").formula, "mandelbrot3");
  EXPECT_EQ(parse_location(std::string(kKfHead) + "FractalType: 1\r\nPower: 2\r\n", "t").formula,
            "burning-ship");
  EXPECT_EQ(parse_location(std::string(kKfHead) + "FractalType: 1\r\nPower: 3\r\n", "t").formula,
            "burning-ship3");
  EXPECT_EQ(parse_location(std::string(kKfHead) + "FractalType: 7\r\n", "t").formula,
            "perpendicular-burning-ship");
  // Every command but render refuses a location with another formula, naming it; render's
  // apply_to_view gives the formula, conjugated for KF's downward imaginary axis (a mirror that is
  // folded into the conjugate view) where the formula is not symmetric.
  const Location bs = parse_location(std::string(kKfHead) + "FractalType: 1\r\n", "t");
  ds::mandel::View v;
  try {
    apply_to_view(bs, &v, true);
    ADD_FAILURE() << "a Burning Ship location applied as a Mandelbrot view";
  } catch (const IoError& e) {
    EXPECT_TRUE(names(e.what(), {"burning-ship", "render"}));
  }
  ds::formula::Formula f;
  apply_to_view(bs, &v, true, &f);
  EXPECT_EQ(ds::formula::to_string(f), "absx absy negy sqr add");
  EXPECT_EQ(v.im, "0.012593310799749865383746631843264858450340000000000000000000");
  const Location mbar = parse_location(std::string(kKfHead) + "FractalType: 4\r\n", "t");
  apply_to_view(mbar, &v, true, &f);
  EXPECT_EQ(ds::formula::to_string(f), "mandelbar");
  // Ours: formula = NAME, written back by format_location; a bad one is refused by name.
  const Location ours = parse_location("re = -1.75\nim = -0.03\nzoom = 20\nformula = burning-ship\n", "o");
  EXPECT_EQ(ours.formula, "burning-ship");
  EXPECT_EQ(parse_location(format_location(ours), "o").formula, "burning-ship");
  EXPECT_TRUE(names(parse_error("re = 0\nim = 0\nzoom = 1\nformula = burning-boat\n"), {"burning-boat", "t:4"}));
  // A .kfr of a KF formula: FractalType and Power written, and read back the same.
  const std::string kfr = format_kfr(bs);
  EXPECT_NE(kfr.find("FractalType: 1\r\n"), std::string::npos) << kfr;
  EXPECT_EQ(parse_location(kfr, "k").formula, "burning-ship");
  EXPECT_THROW(format_kfr(ours), IoError);  // upward imaginary axis, not symmetric: not written yet
}

TEST(Location, KfColouringFieldsAreListedInOneWarning) {
  const Location l =
      parse_location(std::string(kKfHead) +
                         "ColorMethod: 7\r\nSlopes: 1\r\nSlopePower: 50\r\nBailoutRadiusPreset: 1\r\n"
                         "GLSL: #version 330\\nvec3 colour() { return vec3(0.0); }\r\nNewThing: 1\r\n",
                     "c.kfr");
  ASSERT_EQ(l.warnings.size(), 2u) << all(l.warnings);
  EXPECT_TRUE(names(l.warnings[0], {"c.kfr", "ColorMethod=7", "Slopes=1", "BailoutRadiusPreset=1"}));
  EXPECT_EQ(l.warnings[0].find("SlopePower"), std::string::npos);  // a detail of Slopes
  EXPECT_TRUE(names(l.warnings[1], {"unknown", "NewThing"}));
}

// With a palette (Colors), KF's colour method keys are the kf shader's and are not warned about;
// what it cannot draw (GLSL, MultiColor, ColorMethod 4) still is.
TEST(Location, KfColouringWithAPaletteIsReproduced) {
  const Location l = parse_location(std::string(kKfHead) +
                                        "Colors: 1,2,3,4,5,6,\r\nColorMethod: 7\r\nDifferences: 3\r\n"
                                        "IterDiv: 0.5\r\nSlopes: 1\r\nMultiColor: 1\r\n",
                                    "c.kfr");
  ASSERT_EQ(l.warnings.size(), 1u) << all(l.warnings);
  EXPECT_TRUE(names(l.warnings[0], {"c.kfr", "MultiColor=1"}));
  EXPECT_EQ(l.warnings[0].find("ColorMethod"), std::string::npos) << l.warnings[0];
  EXPECT_EQ(l.warnings[0].find("Slopes"), std::string::npos) << l.warnings[0];
  ASSERT_TRUE(l.kf_colouring.has_value());
  EXPECT_EQ(l.kf_colouring->color_method, 7);
  EXPECT_EQ(l.kf_colouring->differences, 3);
  // ColorMethod 4 (stretched) is reproduced (the kf shader); square-root smoothing at KF's radius
  // 10000 and at radius 2 (SmoothMethod 1) is too; at a custom radius below 2 it is not, and said.
  const Location s = parse_location(std::string(kKfHead) + "Colors: 1,2,3,\r\nColorMethod: 4\r\n", "s.kfr");
  EXPECT_TRUE(s.warnings.empty()) << all(s.warnings);
  const Location q = parse_location(std::string(kKfHead) + "Colors: 1,2,3,\r\nSmoothingMethod: 1\r\n", "q.kfr");
  EXPECT_TRUE(q.warnings.empty()) << all(q.warnings);
  const Location low = parse_location(std::string(kKfHead) +
                                          "Colors: 1,2,3,\r\nSmoothingMethod: 1\r\nBailoutRadiusPreset: 3\r\n"
                                          "BailoutRadiusCustom: 1.5\r\n",
                                      "low.kfr");
  ASSERT_EQ(low.warnings.size(), 1u) << all(low.warnings);
  EXPECT_TRUE(names(low.warnings[0], {"low.kfr", "square-root smoothing"}));
  const Location q2 = parse_location(std::string(kKfHead) + "Colors: 1,2,3,\r\nSmoothMethod: 1\r\n", "q2.kfr");
  EXPECT_TRUE(q2.warnings.empty()) << all(q2.warnings);
  // Written back, it stays square-root smoothing at radius 2 (KF would otherwise take its default,
  // the logarithmic smoothing).
  const std::string kfr = format_kfr(q2);
  EXPECT_NE(kfr.find("SmoothingMethod: 1\r\n"), std::string::npos) << kfr;
  const Location q3 = parse_location(kfr, "q3.kfr");
  ASSERT_TRUE(q3.kf_colouring.has_value());
  EXPECT_TRUE(q3.kf_colouring->sqrt_smoothing);
  EXPECT_DOUBLE_EQ(q3.kf_colouring->escape_radius, 2);
  EXPECT_TRUE(q3.warnings.empty()) << all(q3.warnings);
}

TEST(Location, RejectsMalformedFiles) {
  EXPECT_THROW(parse_location("re = 1\nim = 0\n", "x"), IoError);              // no zoom
  EXPECT_THROW(parse_location("re = 1\nim = 0\nzoom = abc\n", "x"), IoError);  // bad number
  EXPECT_THROW(parse_location("re = 1\nim = 0\nzoom = 1\njunk line\n", "x"), IoError);
  EXPECT_THROW(parse_location("re = 1\nim = 0\nzoom = 1\niterations = 0\n", "x"), IoError);
  EXPECT_THROW(parse_location("re = 1\nim = 0\nzoom = 1\ndensity = inf\n", "x"), IoError);
  EXPECT_THROW(parse_location("", "x"), IoError);
  try {
    parse_location("re = 1\nim = zz\nzoom = 1\n", "here.txt");
    FAIL();
  } catch (const IoError& e) {
    EXPECT_NE(std::string(e.what()).find("here.txt:2"), std::string::npos) << e.what();
  }
  // Each bad field is named (ours, then KF's spelling).
  const struct {
    const char* text;
    const char* field;
  } cases[] = {
      {"im = 0\nzoom = 1\n", "missing re"},
      {"re = 1\nzoom = 1\n", "missing im"},
      {"re = nan\nim = 0\nzoom = 1\n", "re"},
      {"re = 1\nim = \nzoom = 1\n", "im"},
      {"re = 1\nim = 0\nzoom = inf\n", "zoom"},
      {"re = 1\nim = 0\nzoom = 1e2000000\n", "zoom"},
      {"re = 1\nim = 0\nzoom = 0\n", "zoom must be > 0"},
      {"re = 1\nim = 0\nzoom = 0.000e5\n", "zoom must be > 0"},
      {"re = 1\nim = 0\nzoom = -3\n", "zoom must be > 0"},
      {"re = 1\nim = 0\nzoom = 1\nre = 2\n", "re is given twice"},
      {"re = 1\nim = 0\nzoom = 1\npixel_map = 1 0 0\n", "pixel_map"},
      {"re = 1\nim = 0\nzoom = 1\npixel_map = 1 2 2 4\n", "singular"},
      {"Re: 1\r\nZoom: 1\r\n", "missing Im"},
      {"Re: 1\r\nIm: 0\r\n", "missing Zoom"},
      {"Re: NaN\r\nIm: 0\r\nZoom: 1\r\n", "Re"},
      {"Re: \r\nIm: 0\r\nZoom: 1\r\n", "Re"},
      {"Re: 1\r\nIm: 0\r\nZoom: 0\r\n", "Zoom must be > 0"},
      {"Re: 1\r\nIm: 0\r\nZoom: -1E5\r\n", "Zoom must be > 0"},
      {"Re: 1\r\nIm: 0\r\nZoom: 1\r\nRatio: wide\r\n", "Ratio"},
      {"Re: 1\r\nIm: 0\r\nZoom: 1\r\nRatio: 0\r\n", "Ratio must be > 0"},
      {"Re: 1\r\nIm: 0\r\nZoom: 1\r\nRotate: 1e400\r\n", "Rotate"},
      {"Re: 1\r\nIm: 0\r\nZoom: 1\r\nRotate: a\r\n", "Rotate"},
      {"Re: 1\r\nIm: 0\r\nZoom: 1\r\nRotateAngle: x\r\n", "RotateAngle"},
      {"Re: 1\r\nIm: 0\r\nZoom: 1\r\nIterations: 9223372036854775808\r\n", "Iterations"},
      {"Re: 1\r\nIm: 0\r\nZoom: 1\r\nno colon here\r\n", "Key: value"},
  };
  for (const auto& c : cases) {
    const std::string e = parse_error(c.text);
    EXPECT_TRUE(names(e, {c.field})) << c.text;
  }
}

// Only a regular file is read as a location, and only up to 16 MiB of text: /dev/zero used to grow
// memory without end, and a directory was reported as "missing re".
TEST(Location, FilesMustBeRegularAndOfSaneSize) {
  const std::string dir = tmpdir();
  auto read_error = [](const std::string& path) {
    try {
      read_location_file(path);
    } catch (const IoError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_TRUE(names(read_error(dir), {"location \"", "is a directory"})) << read_error(dir);
  EXPECT_TRUE(names(read_error("/dev/zero"), {"/dev/zero", "not a regular file"}));
  EXPECT_TRUE(names(read_error("/dev/urandom"), {"/dev/urandom", "not a regular file"}));
  const std::string fifo = dir + "/l.loc";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_TRUE(names(read_error(fifo), {"l.loc", "FIFO"}));
  // A text location of 16 MiB + 1 byte (sparse) is refused unread; one of a few lines is read.
  const std::string big = dir + "/big.loc", small = dir + "/small.loc";
  std::ofstream(big) << "re = 0\nim = 0\nzoom = 1\n# ";
  ASSERT_EQ(truncate(big.c_str(), (16 << 20) + 1), 0);
  EXPECT_TRUE(names(read_error(big), {"big.loc", "over the 16 MiB limit"})) << read_error(big);
  std::ofstream(small) << "re = 0\nim = 0\nzoom = 1\n";
  EXPECT_EQ(read_error(small), "");
}

TEST(Location, ReadsKallesFraktalersBenchmarks) {
  const std::string dir = test::shared_locations_dir() + "/kf-benchmarks";
  if (access(dir.c_str(), R_OK) != 0)
    GTEST_SKIP() << dir << " is not there (../shared beside the repository)";
  for (const char* name : {"1e14", "1e50", "5e113", "5e227", "4e533", "1e1086"}) {
    SCOPED_TRACE(name);
    const Location l = read_location_file(dir + "/" + name + ".kfr");
    ASSERT_TRUE(l.iterations.has_value());
    mandel::View v;
    apply_to_view(l, &v, true);
    if (std::string(name) == "1e1086") {
      // Ratio: 381.176471 (KF 2.12.11 drew it so; KF >= 2.15 ignores Ratio).
      expect_map(l.pixel_map, kf_legacy_pixel_map(0, 381.176471));
      EXPECT_FALSE(v.pixel_map_identity());
      EXPECT_NEAR(v.pixel_map[0], 360 / 381.176471, 1e-15);
      EXPECT_EQ(v.pixel_map[3], 1.0);
    } else {
      EXPECT_EQ(l.pixel_map, (PixelMap{1, 0, 0, -1}));
      EXPECT_TRUE(v.pixel_map_identity());
    }
    EXPECT_NE(v.im, l.im);  // the conjugate centre
    EXPECT_NO_THROW(mandel::geometry(v));
    // Written back as KF reads it: the same centre, zoom, iterations and transform.
    const std::string kfr = format_kfr(l);
    EXPECT_NE(kfr.find("\r\nColors: "), std::string::npos);
    EXPECT_NE(kfr.find("\r\nPower: 2\r\n"), std::string::npos);
    const Location back = parse_location(kfr, "back");
    EXPECT_EQ(back.re, l.re);
    EXPECT_EQ(back.im, l.im);
    EXPECT_EQ(back.zoom, l.zoom);
    EXPECT_EQ(back.iterations, l.iterations);
    const KfTransform a = kf_transform(l.pixel_map), b = kf_transform(back.pixel_map);
    ASSERT_TRUE(a.legacy && b.legacy);
    EXPECT_EQ(b.rotate, a.rotate);
    EXPECT_NEAR(b.ratio, name == std::string("1e1086") ? 381.176471 : 360.0, 1e-9);
    expect_map(back.pixel_map, l.pixel_map);
  }
}

TEST(Location, KfrOfADeepscopeViewShowsTheSamePicture) {
  // Our identity map: KF's downward axis is met by writing the conjugate centre.
  Location l;
  l.re = "-0.75";
  l.im = "0.1";
  l.zoom = "7.5e88";
  l.iterations = 123;
  const std::string kfr = format_kfr(l);
  EXPECT_NE(kfr.find("Im: -0.1\r\n"), std::string::npos) << kfr;
  EXPECT_EQ(kfr.find("RotateAngle"), std::string::npos) << kfr;
  mandel::View v;
  apply_to_view(parse_location(kfr, "k"), &v, false);
  EXPECT_EQ(v.im, "0.1");
  EXPECT_TRUE(v.pixel_map_identity());
  // A rotated and stretched view comes back the same through KF's keys.
  const double t = 0.7;
  l.pixel_map = {std::cos(t), -std::sin(t), std::sin(t), std::cos(t)};
  const std::string kfr2 = format_kfr(l);
  EXPECT_NE(kfr2.find("RotateAngle: "), std::string::npos) << kfr2;
  EXPECT_NE(kfr2.find("Rotate: "), std::string::npos) << kfr2;
  mandel::View w;
  apply_to_view(parse_location(kfr2, "k2"), &w, false);
  EXPECT_EQ(w.im, "0.1");
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(w.pixel_map[i], l.pixel_map[i], 1e-14) << i;
  // A shear KF cannot express is refused.
  l.pixel_map = {1, 0.5, 0, 2};
  EXPECT_THROW(format_kfr(l), IoError);
}

// A parameter file as Fraktaler-3 writes one: dotted keys, a long string split with line-ending
// backslashes, a colouring table whose shader holds TOML-looking lines, and an array of tables.
const char* kF3File = R"(program = "fraktaler-3"
version = "3.1"
location.real = """
-1.76910833040747728089230624355777848356006391186234006507787883404\
18929715985908084423460199088682020437579853971174404281518620786746\
"""
location.imag = "-0.0090206880570726176003609359849476201123055846741238668897279198171291100002730703"
location.zoom = "4.0517578124997939e+112"
bailout.iterations = 120000
bailout.maximum_reference_iterations = 120000
bailout.maximum_perturb_iterations = 1024
bailout.escape_radius = 625.0
image.width = 1920
image.height = 1080
image.subframes = 16
render.filename = "f3"

[[formula]]
power = 2

[colour]
shader = """
location.real = "5"
[location]
vec3 colour(void) { return vec3(1.0); }
"""

[[colour.uniforms]]
name = "count"
value = 3
)";

TEST(Location, ReadsFraktaler3Files) {
  const Location l = parse_location(kF3File, "f3.toml");
  EXPECT_EQ(
      l.re,
      "-1."
      "7691083304074772808923062435577784835600639118623400650778788340418929715985908084423460199088682020"
      "437579853971174404281518620786746");
  EXPECT_EQ(l.im, "-0.0090206880570726176003609359849476201123055846741238668897279198171291100002730703");
  EXPECT_EQ(l.zoom, "4.0517578124997939e+112");
  EXPECT_EQ(*l.iterations, 120000u);
  EXPECT_EQ(*l.width, 1920);
  EXPECT_EQ(*l.height, 1080);
  EXPECT_EQ(l.pixel_map, kIdentityMap);  // F3 saves its images with the imaginary axis up
  ASSERT_EQ(l.warnings.size(), 1u) << all(l.warnings);
  EXPECT_TRUE(names(l.warnings[0], {"colour.shader", "colour.uniforms", "image.subframes=16",
                                    "bailout.maximum_perturb_iterations=1024"}));
  // F3 leaves out keys at their defaults: 0 + 0i, zoom 1, 1024 iterations.
  const Location d = parse_location("program = \"fraktaler-3\"\nlocation.real = \"-0.57\"\n", "d.toml");
  EXPECT_EQ(d.im, "0");
  EXPECT_EQ(d.zoom, "1");
  EXPECT_EQ(*d.iterations, 1024u);
  // [location] tables read like dotted keys.
  EXPECT_EQ(parse_location("[location]\nreal = \"0.25\"\nimag = \"0.5\"\nzoom = \"1e20\"\n", "t").im, "0.5");
}

TEST(Location, Fraktaler3Transform) {
  // K = Rot(g r) Rot(a) diag(f, 1/f) Rot(-a) diag(1, g): rotate 90 degrees sends the image's x axis
  // to +i.
  expect_map(f3_pixel_map(false, 90, 0, 0, false), {0, -1, 1, 0}, 1e-15);
  expect_map(f3_pixel_map(false, 0, 0, 100, false), {2, 0, 0, 0.5});  // 100 cents: a factor 2
  expect_map(f3_pixel_map(true, 0, 0, 0, false), {1, 0, 0, -1});
  expect_map(f3_pixel_map(false, 0, 0, 0, true), {1, 0, 0, -1});
  const Location l = parse_location(
      "program = \"fraktaler-3\"\nlocation.real = \"-0.5\"\nlocation.imag = \"0.25\"\nlocation.zoom = "
      "\"10\"\n"
      "transform.reflect = true\ntransform.rotate = 30.0\ntransform.stretch_angle = 20.0\n"
      "transform.stretch_amount = 50.0\n",
      "t.toml");
  expect_map(l.pixel_map, f3_pixel_map(true, 30, 20, 50, false));
  EXPECT_TRUE(l.warnings.empty()) << all(l.warnings);
  mandel::View v;
  apply_to_view(l, &v, false);
  EXPECT_EQ(v.im, "-0.25");  // reflected: drawn as the conjugate view
  EXPECT_GT(v.pixel_map[0] * v.pixel_map[3] - v.pixel_map[1] * v.pixel_map[2], 0);
}

TEST(Location, Fraktaler3FormulasOtherThanMandelbrotAreErrors) {
  const std::string head = "program = \"fraktaler-3\"\nlocation.zoom = \"10\"\n";
  EXPECT_EQ(parse_error(head + "[[formula]]\nopcodes = \"sqr add\"\n"), "");
  EXPECT_EQ(parse_error(head + "[[formula]]\npower = 2\n[[formula]]\nabs_x = false\n"), "");
  // F3's phases as formulas (docs/formulas.md): abs/neg flags, then the power, then + c.
  auto formula_of = [&](const std::string& text) { return parse_location(head + text, "t.toml").formula; };
  EXPECT_EQ(formula_of("[[formula]]\npower = 2\n[[formula]]\nabs_x = false\n"), "");
  EXPECT_EQ(formula_of("[[formula]]\npower = 3\n"), "mandelbrot3");
  EXPECT_EQ(formula_of("[[formula]]\npower = 7\n"), "mandelbrot7");
  EXPECT_EQ(formula_of("[[formula]]\npower = 2\n[[formula]]\nabs_x = true\nabs_y = true\n"),
            "mandelbrot,burning-ship");
  EXPECT_EQ(formula_of("[[formula]]\nabs_x = true\nabs_y = true\npower = 3\n"), "burning-ship3");
  EXPECT_EQ(formula_of("[[formula]]\nneg_y = true\n"), "mandelbar");
  EXPECT_EQ(formula_of("[[formula]]\nabs_y = true\nneg_y = true\n"), "perpendicular-burning-ship");
  EXPECT_EQ(formula_of("[[formula]]\nopcodes = \"sqr sqr add\"\n"), "mandelbrot4");
  EXPECT_EQ(formula_of("[[formula]]\nopcodes = \"sqr absx add\"\n"), "celtic");
  const struct {
    const char* text;
    std::initializer_list<const char*> parts;
  } cases[] = {
      {"[[formula]]\npower = 1\n", {"formula[1].power = 1", "2 to 64"}},
      {"[[formula]]\npower = 2\n[[formula]]\nabs_x = 1\n", {"formula[2].abs_x", "true or false"}},
      {"[[formula]]\nopcodes = \"sqr sqr\"\n", {"formula[1].opcodes", "must end with \"add\""}},
      {"[[formula]]\nopcodes = \"sqr frob add\"\n", {"formula[1].opcodes", "frob"}},
      {"[[formula]]\nmystery = 1\n", {"formula[1].mystery"}},
      {"transform.exponential_map = 3\n", {"transform.exponential_map"}},
      {"bailout.iterations = -10000000000\n", {"bailout.iterations", "-10000000000"}},
      {"location.real = \"abc\"\n", {"location.real"}},
      {"location.imag = \"\"\n", {"location.imag"}},
      {"location.zoom = \"0\"\n", {"location.zoom must be > 0"}},
      {"transform.rotate = \"x\"\n", {"transform.rotate"}},
      {"transform.reflect = 1\n", {"transform.reflect"}},
      {"image.width = 0\n", {"image.width"}},
      {"location.real = \"1\nlocation.imag = 2\n", {"not valid TOML"}},
  };
  for (const auto& c : cases) {
    // location.zoom is given twice where a case sets it again: TOML refuses that, so those cases
    // start from a head without it.
    const std::string text = (std::string(c.text).find("location.zoom") != std::string::npos
                                  ? std::string("program = \"fraktaler-3\"\n")
                                  : head) +
                             c.text;
    EXPECT_TRUE(names(parse_error(text), c.parts)) << c.text;
  }
}

// The exponential map (View::exp_map): ours "exp_map = true" round-trips, Fraktaler-3's
// transform.exponential_map is honoured, a .kfr cannot carry it (refused, not dropped).
TEST(Location, ExponentialMapIsKeptOrRefused) {
  Location l = parse_location("re = -0.75\nim = 0.1\nzoom = 100\nexp_map = true\n", "t");
  EXPECT_TRUE(l.exp_map);
  EXPECT_TRUE(parse_location(format_location(l), "t2").exp_map);
  EXPECT_FALSE(parse_location("re = -0.75\nim = 0.1\nzoom = 100\n", "t3").exp_map);
  EXPECT_TRUE(names(parse_error("re = 0\nim = 0\nzoom = 1\nexp_map = yes\n"), {"exp_map must be true or false"}));
  const Location f = parse_location(
      "program = \"fraktaler-3\"\nlocation.zoom = \"10\"\ntransform.exponential_map = true\n", "f3");
  EXPECT_TRUE(f.exp_map);
  mandel::View v;
  apply_to_view(f, &v, false);
  EXPECT_TRUE(v.exp_map);
  EXPECT_THROW(format_kfr(l), IoError);
}

TEST(Location, RoundTripsThroughText) {
  Location l;
  l.re = "-1.5";
  l.im = "0.000000000000000000000000000000000000000001";
  l.zoom = "7.5e88";
  l.iterations = 123;
  l.palette = "fire";
  l.density = 0.1;
  l.offset = 0.3;
  EXPECT_EQ(format_location(l).find("pixel_map"), std::string::npos);  // identity: not written
  Location back = parse_location(format_location(l), "mem");
  EXPECT_EQ(back.re, l.re);
  EXPECT_EQ(back.im, l.im);
  EXPECT_EQ(back.zoom, l.zoom);
  EXPECT_EQ(*back.iterations, 123u);
  EXPECT_EQ(*back.density, 0.1);
  EXPECT_EQ(*back.offset, 0.3);
  EXPECT_TRUE(back.warnings.empty());
  // A map is written exactly, and only when it is not the identity.
  l.pixel_map = {360 / 381.176471, 0.1, -1.0 / 3, 1};
  back = parse_location(format_location(l), "mem");
  EXPECT_EQ(back.pixel_map, l.pixel_map);
  mandel::View v;
  apply_to_view(back, &v, false);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(v.pixel_map[i], l.pixel_map[i]);
  EXPECT_EQ(v.im, l.im);
}

// The public locations in tests/data/locations (README.md there): every file parses, is plain
// z^2 + c with its authors' iterations, and is listed in the README.
TEST(Location, PublicCollectionParses) {
  const std::string dir = test::source_path("tests/data/locations");
  const std::string readme = test::slurp(dir + "/README.md");
  ASSERT_FALSE(readme.empty()) << dir << "/README.md";
  DIR* d = opendir(dir.c_str());
  ASSERT_NE(d, nullptr) << dir;
  int count = 0;
  while (const dirent* e = readdir(d)) {
    const std::string name = e->d_name;
    if (name[0] == '.' || name == "README.md") continue;
    SCOPED_TRACE(name);
    ++count;
    const Location l = read_location_file(dir + "/" + name);
    EXPECT_TRUE(l.iterations.has_value());
    EXPECT_TRUE(l.warnings.empty()) << all(l.warnings);
    mandel::View v;
    apply_to_view(l, &v, true);
    EXPECT_NO_THROW(mandel::geometry(v));
    EXPECT_NE(readme.find("`" + name + "`"), std::string::npos) << "not in README.md";
  }
  closedir(d);
  EXPECT_GE(count, 12);
}

TEST(Png, CarriesTheLocationInATextChunk) {
  std::vector<uint8_t> rgb(5 * 3 * 3, 200);
  Location l;
  l.re = "0.25";
  l.im = "-0.5";
  l.zoom = "3";
  const std::string png =
      encode_png(rgb, 5, 3, {{kPngLocationKey, format_location(l)}, {"Software", "deepscope"}});
  ASSERT_TRUE(is_png(png));
  std::string text;
  ASSERT_TRUE(png_find_text(png, kPngLocationKey, &text));
  EXPECT_EQ(parse_location(text, "png").re, "0.25");
  ASSERT_TRUE(png_find_text(png, "Software", &text));
  EXPECT_EQ(text, "deepscope");
  EXPECT_FALSE(png_find_text(png, "Comment", &text));

  const std::string dir = tmpdir();
  write_file_atomically(dir + "/shot.png", png);
  EXPECT_EQ(read_location_file(dir + "/shot.png").zoom, "3");
  // A corrupted chunk fails its CRC.
  std::string bad = png;
  bad[45] ^= 0x20;
  EXPECT_THROW(png_find_text(bad, kPngLocationKey, &text), IoError);
  // A PNG without our chunk is not a location.
  write_file_atomically(dir + "/plain.png", encode_png(rgb, 5, 3));
  EXPECT_THROW(read_location_file(dir + "/plain.png"), IoError);
  EXPECT_THROW(read_location_file(dir + "/missing.kfr"), IoError);
  EXPECT_THROW(encode_png(rgb, 5, 3, {{"", "x"}}), IoError);
}

TEST(Png, Crc32MatchesTheStandardCheckValue) {
  const char* s = "123456789";
  EXPECT_EQ(crc32(reinterpret_cast<const unsigned char*>(s), 9), 0xCBF43926u);
}

TEST(Npy, HeaderAndDataFollowTheFormat) {
  const std::vector<uint32_t> c = {1, 2, 3, 0xFFFFFFFEu, 5, 6};
  const std::string npy = encode_npy(c, 2, 3);
  ASSERT_EQ(npy.compare(0, 6, "\x93NUMPY"), 0);
  EXPECT_EQ(npy[6], 1);
  EXPECT_EQ(npy[7], 0);
  const size_t header_len = static_cast<unsigned char>(npy[8]) | (static_cast<unsigned char>(npy[9]) << 8);
  EXPECT_EQ((10 + header_len) % 64, 0u);
  const std::string header = npy.substr(10, header_len);
  EXPECT_NE(header.find("'descr': '<u4'"), std::string::npos);
  EXPECT_NE(header.find("'fortran_order': False"), std::string::npos);
  EXPECT_NE(header.find("'shape': (2, 3)"), std::string::npos);
  EXPECT_EQ(header.back(), '\n');
  ASSERT_EQ(npy.size(), 10 + header_len + 24);
  uint32_t v;
  std::memcpy(&v, npy.data() + 10 + header_len + 12, 4);
  EXPECT_EQ(v, 0xFFFFFFFEu);
  const std::string f = encode_npy(std::vector<float>{1.5f, -2.0f}, 1, 2);
  EXPECT_NE(f.find("'<f4'"), std::string::npos);
  EXPECT_THROW(encode_npy(c, 4, 4), IoError);
}

}  // namespace

namespace ds::app {
namespace {

// A .kfr written from a location with KF's colouring reads back with the same colouring (the
// window's Save as .kfr of a .kfr it opened).
TEST(Location, KfrKeepsItsKfColouringWhenWritten) {
  const Location l = parse_location(std::string(kKfHead) +
                                        "Colors: 1,2,3,40,50,60,\r\nColorMethod: 7\r\nDifferences: 3\r\n"
                                        "IterDiv: 0.5\r\nColorOffset: 12\r\nSmooth: 0\r\nInteriorColor: 9,8,7\r\n",
                                    "c.kfr");
  const Location back = parse_location(format_kfr(l), "back.kfr");
  ASSERT_TRUE(back.kf_colouring.has_value());
  EXPECT_TRUE(back.warnings.empty()) << all(back.warnings);
  const KfPalette& k = *back.kf_colouring;
  ASSERT_EQ(k.colors.size(), 2u);
  EXPECT_EQ(k.colors[1].g, 50);
  EXPECT_EQ(k.color_method, 7);
  EXPECT_EQ(k.differences, 3);
  EXPECT_DOUBLE_EQ(k.iter_div, 0.5);
  EXPECT_DOUBLE_EQ(k.color_offset, 12);
  EXPECT_FALSE(k.smooth);
  EXPECT_EQ(k.interior.r, 9);
}

}  // namespace
}  // namespace ds::app
