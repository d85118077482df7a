// `render --aa N` and `render --exr FILE`: --aa 1 is the plain render byte for byte; --aa 2 is the
// linear-light mean of four renders shifted by the stratified jittered offsets, differs from the
// plain render only near edges, reuses one reference orbit under perturbation, and keeps undecided
// pixels magenta; the EXR's channels agree with the .npy arrays and the PNG, its header carries the
// location; bad combinations exit 2.
#include <gtest/gtest.h>
#include <stb_image.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "app/cli/antialias.h"
#include "app/cli/commands.h"
#include "app/io/exr_io.h"
#include "app/io/image_io.h"
#include "app/io/srgb.h"
#include "app/io/colouring.h"
#include "app/io/view_png.h"
#include "kernels/mandelbrot/navigate.h"
#include "kernels/perturb/perturb.h"
#include "locations.h"
#include "test_files.h"

#include "exr_read.h"

namespace {

// The colours the render's one colouring path gives a result: the "palette" shader (app/io/colouring.h).
std::vector<uint8_t> palette_rgb(const ds::mandel::RenderResult& r, const ds::colour::Colouring& c) {
  return ds::app::colour_frame(r, c, ds::app::load_shader("palette")).rgb;
}

using ds::app::ArgList;
using ds::test::slurp;

int render(ArgList args) {
  args.insert(args.begin(), "render");
  return ds::app::run(args);
}

struct Image {
  int w = 0, h = 0;
  std::vector<uint8_t> rgb;
};

Image load_png(const std::string& path) {
  Image img;
  int comp = 0;
  unsigned char* px = stbi_load(path.c_str(), &img.w, &img.h, &comp, 3);
  if (px) img.rgb.assign(px, px + 3 * img.w * img.h);
  stbi_image_free(px);
  return img;
}

// A direct-format view on the main cardioid's edge: interior, boundary and smooth exterior.
ds::mandel::View edge_view() {
  ds::mandel::View v;
  v.re = "-0.1";
  v.im = "0.8";
  v.zoom = "6";
  v.max_iter = 400;
  v.width = 48;
  v.height = 32;
  return v;
}

// With the linear count scale, as classic() below colours (the default log scale takes each
// frame's own base: a sample's colours would depend on the other pixels of its frame).
ArgList view_args(const ds::mandel::View& v) {
  return {"--scale",   "linear",
          "--re",      v.re,
          "--im",      v.im,
          "--zoom",    v.zoom,
          "--iter",    std::to_string(v.max_iter),
          "--size",    std::to_string(v.width) + "x" + std::to_string(v.height),
          "--backend", "cpu",
          "--quiet"};
}

ArgList with(ArgList a, const ArgList& more) {
  a.insert(a.end(), more.begin(), more.end());
  return a;
}

ds::colour::Colouring classic(uint64_t max_iter) {
  ds::colour::Colouring c;
  c.palette = ds::colour::palette_by_name("classic");
  c.max_iter = max_iter;
  return c;
}

ds::mandel::RenderResult render_cpu(const ds::mandel::View& v) {
  ds::mandel::RenderOptions o;
  o.backend = ds::Backend::kCpu;
  return ds::mandel::render(v, o);
}

TEST(Srgb, EveryCodeSurvivesTheTripThroughLinearLight) {
  for (int k = 0; k < 256; ++k)
    EXPECT_EQ(ds::app::linear_to_srgb8(ds::app::srgb_to_linear(static_cast<uint8_t>(k))), k) << k;
  EXPECT_EQ(ds::app::srgb_to_linear(0), 0.0f);
  EXPECT_EQ(ds::app::srgb_to_linear(255), 1.0f);
  // Mid-grey in linear light is far below half the code: averaging black and white gives 188.
  EXPECT_EQ(ds::app::linear_to_srgb8(0.5f), 188);
}

TEST(Antialias, OffsetsAreStratifiedJitteredAndFixed) {
  EXPECT_EQ(ds::app::aa_offsets(1), (std::vector<std::array<double, 2>>{{0.0, 0.0}}));
  for (int n = 2; n <= 5; ++n) {
    const auto o = ds::app::aa_offsets(n);
    ASSERT_EQ(o.size(), static_cast<size_t>(n * n));
    EXPECT_EQ(o, ds::app::aa_offsets(n)) << "the pattern depends on n only";
    int off_centre = 0;
    for (int b = 0; b < n; ++b)
      for (int a = 0; a < n; ++a) {
        const auto& d = o[static_cast<size_t>(b * n + a)];
        EXPECT_GE(d[0], static_cast<double>(a) / n - 0.5) << n;
        EXPECT_LT(d[0], static_cast<double>(a + 1) / n - 0.5) << n;
        EXPECT_GE(d[1], static_cast<double>(b) / n - 0.5) << n;
        EXPECT_LT(d[1], static_cast<double>(b + 1) / n - 0.5) << n;
        off_centre += std::fabs(d[0] - ((a + 0.5) / n - 0.5)) > 1e-3;
      }
    EXPECT_GT(off_centre, n * n / 2) << "jittered, not the cells' centres";
  }
}

TEST(Antialias, ShiftedViewSamplesTheOffsetPoint) {
  for (const char* zoom : {"6", "1e30"}) {
    ds::mandel::View v = edge_view();
    v.zoom = zoom;
    for (const auto& d : ds::app::aa_offsets(3)) {
      const ds::mandel::View s = ds::app::shifted_view(v, d[0], d[1]);
      EXPECT_EQ(s.zoom, v.zoom);
      double x = 0, y = 0;
      ASSERT_TRUE(ds::mandel::pixel_of(v, s.re, s.im, &x, &y));
      EXPECT_NEAR(x, v.width / 2.0 + d[0], 1e-6) << zoom;
      EXPECT_NEAR(y, v.height / 2.0 + d[1], 1e-6) << zoom;
    }
  }
  const ds::mandel::View v = edge_view();
  const ds::mandel::View same = ds::app::shifted_view(v, 0.0, 0.0);
  EXPECT_EQ(same.re, v.re);
  EXPECT_EQ(same.im, v.im);
}

// A rotated and stretched view (View::pixel_map, KF's Rotate and Ratio): the offset goes through the
// map. Shifted by half a pixel right and down, the centre lands on pixel (W/2, H/2)'s exact c.
TEST(Antialias, ShiftedViewFollowsThePixelMap) {
  ds::mandel::View v = edge_view();
  v.zoom = "1e3";
  const double a = 0.5235987755982988;  // 30 degrees, and a 1.5 stretch of x
  const double m[4] = {1.5 * std::cos(a), -std::sin(a), 1.5 * std::sin(a), std::cos(a)};
  std::copy(m, m + 4, v.pixel_map);
  const ds::mandel::View s = ds::app::shifted_view(v, 0.5, 0.5);
  std::string re, im;
  ds::perturb::pixel_c(ds::mandel::geometry(v), v, v.width / 2, v.height / 2, 200, &re, &im);
  const double step = 4.0 / (1e3 * v.height);
  EXPECT_NEAR(std::stod(s.re), std::stod(re), 1e-6 * step);
  EXPECT_NEAR(std::stod(s.im), std::stod(im), 1e-6 * step);
  // and not where the unrotated offset would put it
  EXPECT_GT(std::fabs(std::stod(s.re) - (std::stod(v.re) + 0.5 * step)), 0.1 * step);
}

TEST(Antialias, OneSampleIsThePlainRenderByteForByte) {
  const ds::mandel::View v = edge_view();
  const std::string dir = ds::test::make_tmpdir("aa");
  ASSERT_EQ(render(with(view_args(v), {"--out", dir + "/plain.png"})), 0);
  ASSERT_EQ(render(with(view_args(v), {"--aa", "1", "--out", dir + "/aa1.png"})), 0);
  const std::string plain = slurp(dir + "/plain.png");
  ASSERT_FALSE(plain.empty());
  EXPECT_EQ(slurp(dir + "/aa1.png"), plain);
  // The supersampler itself at N = 1: the colours of the one render, through linear light and back.
  ds::mandel::RenderOptions o;
  o.backend = ds::Backend::kCpu;
  const ds::app::AntialiasedImage a = ds::app::render_antialiased(v, o, 1, classic(v.max_iter), ds::app::load_shader("palette"));
  EXPECT_EQ(a.rgb, palette_rgb(render_cpu(v), classic(v.max_iter)));
  EXPECT_EQ(a.samples, 1);
  EXPECT_EQ(a.undecided, 0u);
}

TEST(Antialias, TwoByTwoIsTheLinearMeanOfFourShiftedRenders) {
  const ds::mandel::View v = edge_view();
  const std::string dir = ds::test::make_tmpdir("aa");
  ASSERT_EQ(render(with(view_args(v), {"--aa", "2", "--out", dir + "/aa2.png"})), 0);
  const Image aa = load_png(dir + "/aa2.png");
  ASSERT_EQ(aa.w, v.width);
  ASSERT_EQ(aa.h, v.height);
  const size_t n = static_cast<size_t>(v.width) * v.height;

  // By hand: four renders at the offsets, each coloured, averaged in double in linear light.
  std::vector<double> sum(3 * n, 0.0);
  for (const auto& d : ds::app::aa_offsets(2)) {
    const std::vector<uint8_t> rgb =
        palette_rgb(render_cpu(ds::app::shifted_view(v, d[0], d[1])), classic(v.max_iter));
    for (size_t k = 0; k < 3 * n; ++k) sum[k] += ds::app::srgb_to_linear(rgb[k]);
  }
  int exact = 0, off_by_one = 0;
  for (size_t k = 0; k < 3 * n; ++k) {
    const int expect = ds::app::linear_to_srgb8(static_cast<float>(sum[k] / 4));
    const int diff = std::abs(expect - aa.rgb[k]);
    exact += diff == 0;
    off_by_one += diff == 1;  // float against double rounding at a code's boundary
  }
  EXPECT_EQ(exact + off_by_one, static_cast<int>(3 * n));
  EXPECT_GE(exact, static_cast<int>(3 * n * 99 / 100));

  // Against the plain render: the same picture, changed only near edges. An edge pixel has, within
  // two pixels (a sample lies within half a pixel of its centre, and a boundary between two centres
  // can bulge past the next one), both the set's inside and outside, or smooth counts spread over
  // more than a quarter of a palette cycle (8 iterations at density 1); so are the pixels next to
  // the image's border, whose samples reach beyond the plain render.
  const ds::mandel::RenderResult pr = render_cpu(v);
  const std::vector<uint8_t> plain = palette_rgb(pr, classic(v.max_iter));
  auto edge = [&](int i, int j) {
    if (i < 1 || j < 1 || i >= v.width - 1 || j >= v.height - 1) return true;
    bool in = false, out = false;
    double lo = 1e300, hi = -1e300;
    for (int y = std::max(0, j - 2); y <= std::min(v.height - 1, j + 2); ++y)
      for (int x = std::max(0, i - 2); x <= std::min(v.width - 1, i + 2); ++x) {
        const size_t q = static_cast<size_t>(y) * v.width + x;
        if (pr.count(q) >= v.max_iter) {
          in = true;
        } else {
          out = true;
          lo = std::min(lo, pr.smooth_count(q));
          hi = std::max(hi, pr.smooth_count(q));
        }
      }
    return (in && out) || hi - lo > 8;
  };
  int changed = 0, black_kept = 0, black_inside = 0, edges = 0;
  for (int j = 0; j < v.height; ++j)
    for (int i = 0; i < v.width; ++i) {
      const size_t k = static_cast<size_t>(j) * v.width + i;
      int diff = 0;
      for (int ch = 0; ch < 3; ++ch) diff = std::max(diff, std::abs(plain[3 * k + ch] - aa.rgb[3 * k + ch]));
      changed += diff > 0;
      const bool e = edge(i, j);
      edges += e;
      if (!e && pr.count(k) >= v.max_iter) {
        ++black_inside;
        black_kept += aa.rgb[3 * k] == 0 && aa.rgb[3 * k + 1] == 0 && aa.rgb[3 * k + 2] == 0;
      }
      // Away from edges the colours change slowly, so the mean of four nearby samples stays close.
      if (!e) {
        EXPECT_LE(diff, 24) << "pixel " << i << "," << j;
      }
    }
  EXPECT_GT(v.width * v.height - edges, 300) << "the test needs pixels away from edges";
  EXPECT_GT(changed, 0) << "antialiasing changed nothing";
  EXPECT_GT(black_inside, 20) << "the view should hold some interior";
  EXPECT_EQ(black_kept, black_inside) << "the set's inside is black in every sample";
  std::string text;
  ASSERT_TRUE(ds::app::png_find_text(slurp(dir + "/aa2.png"), "deepscope-aa", &text));
  EXPECT_EQ(text.substr(0, text.find('\n')), "samples = 2x2");
}

TEST(Antialias, PerturbationSamplesShareOneReference) {
  ds::mandel::View v;
  v.re = ds::test::kKf1e14Re;
  v.im = ds::test::kKf1e14Im;
  v.zoom = "1e14";
  v.max_iter = 4036;
  v.width = 32;
  v.height = 24;
  ds::perturb::clear_reference_cache();
  ds::mandel::RenderOptions o;
  o.backend = ds::Backend::kCpu;
  const ds::app::AntialiasedImage a = ds::app::render_antialiased(v, o, 2, classic(v.max_iter), ds::app::load_shader("palette"));
  ASSERT_FALSE(a.cancelled);
  EXPECT_EQ(a.facts.method, ds::mandel::Method::kPerturb);
  EXPECT_EQ(a.samples, 4);
  EXPECT_EQ(a.reference_reused, 3) << "the first sample computes the orbit, the other three reuse it";
  EXPECT_EQ(a.undecided, 0u);
}

// The setting of PerturbCli.UnresolvedGlitchesExitWithOne: every pixel undecided in every sample.
TEST(Antialias, UndecidedPixelsStayMagentaAndCounted) {
  std::string re, im;
  ds::perturb::misiurewicz_point(
      "-0."
      "4843959562623775919128287421586067691596124435419865096507798028029960660414365868871991207499025159",
      "0."
      "6418924099139518844354150775006524215199605374875397669595578755542089273055838652129049918350557796",
      11, 3, 3500, 1040, &re, &im);
  const std::string dir = ds::test::make_tmpdir("aa");
  const int rc =
      render({"--re",        re.substr(0, 420),  "--im", im.substr(0, 420), "--zoom", "1e320",   "--iter",
              "3000",        "--size",           "8x8",  "--backend",       "cpu",    "--delta", "f64",
              "--no-refine", "--max-references", "0",    "--quiet",         "--aa",   "2",       "--out",
              dir + "/u.png"});
  EXPECT_EQ(rc, 1);
  const Image img = load_png(dir + "/u.png");
  ASSERT_EQ(img.rgb.size(), 3u * 64);
  for (size_t k = 0; k < 64; ++k) {
    EXPECT_EQ(img.rgb[3 * k], 255);
    EXPECT_EQ(img.rgb[3 * k + 1], 0);
    EXPECT_EQ(img.rgb[3 * k + 2], 255);
  }
  std::string text, perturb;
  const std::string png = slurp(dir + "/u.png");
  ASSERT_TRUE(ds::app::png_find_text(png, "deepscope-aa", &text));
  EXPECT_NE(text.find("undecided_pixels = 64"), std::string::npos) << text;
  ASSERT_TRUE(ds::app::png_find_text(png, ds::app::kPngPerturbKey, &perturb));
  EXPECT_NE(perturb.find("glitch_unresolved = 64"), std::string::npos) << perturb;
}

TEST(RenderOptions, BadCombinationsExitWithTwo) {
  const ds::mandel::View v = edge_view();
  const std::string dir = ds::test::make_tmpdir("aa");
  const std::string out = dir + "/x.png";
  for (const ArgList& extra : std::vector<ArgList>{{"--aa", "0"},
                                                   {"--aa", "17"},
                                                   {"--aa", "two"},
                                                   {"--aa", "2", "--verify", "4"},
                                                   {"--aa", "2", "--auto-iter"},
                                                   {"--aa", "2", "--tile-rows", "8"},
                                                   {"--exr", dir + "/x.exr", "--tile-rows", "8"},
                                                   {"--exr", dir + "/no/such/dir/x.exr"}})
    EXPECT_EQ(render(with(view_args(v), with(extra, {"--out", out}))), 2) << extra[0] << " " << extra[1];
  EXPECT_EQ(ds::test::slurp(out), "");
}

#ifdef DEEPSCOPE_WITH_OPENEXR

using ds::test::exr_attribute;
using ds::test::exr_channel;

// The .npy arrays' element bytes as T.
template <typename T>
std::vector<T> npy(const std::string& path) {
  int rows = 0, cols = 0;
  std::string data;
  EXPECT_TRUE(ds::app::decode_npy(slurp(path), sizeof(T), &rows, &cols, &data)) << path;
  std::vector<T> out(data.size() / sizeof(T));
  std::memcpy(out.data(), data.data(), data.size());
  return out;
}

TEST(RenderExr, ChannelsAgreeWithTheArraysAndThePng) {
  const ds::mandel::View v = edge_view();
  const std::string dir = ds::test::make_tmpdir("exr");
  for (const char* aa : {"1", "2"}) {
    const std::string stem = dir + "/aa" + aa;
    ASSERT_EQ(render(with(view_args(v), {"--aa", aa, "--exr", stem + ".exr", "--counts", stem + "_n.npy",
                                         "--smooth", stem + "_s.npy", "--out", stem + ".png"})),
              0);
    Imf::InputFile in((stem + ".exr").c_str());
    const Imf::Header& h = in.header();
    ASSERT_EQ(h.dataWindow().max.x + 1, v.width);
    ASSERT_EQ(h.dataWindow().max.y + 1, v.height);
    const std::vector<uint32_t> counts = npy<uint32_t>(stem + "_n.npy");
    const std::vector<float> smooth = npy<float>(stem + "_s.npy");
    const std::vector<uint32_t> n = exr_channel<uint32_t>(in, "N", Imf::UINT);
    const std::vector<float> nf = exr_channel<float>(in, "NF", Imf::FLOAT);
    ASSERT_EQ(n.size(), counts.size());
    int interior = 0;
    for (size_t k = 0; k < n.size(); ++k) {
      if (counts[k] == v.max_iter) {
        ++interior;
        EXPECT_EQ(n[k], ds::app::kExrInterior) << k;
        EXPECT_EQ(nf[k], 0.0f);
        continue;
      }
      EXPECT_GE(nf[k], 0.0f);
      EXPECT_LT(nf[k], 1.0f);
      EXPECT_EQ(static_cast<float>(n[k]) + nf[k], std::max(smooth[k], 1.0f)) << k;  // N + NF = mu
    }
    EXPECT_GT(interior, 0);
    // R, G, B: the PNG's colours in linear light (--aa 2: the mean before rounding to 8 bits).
    const Image png = load_png(stem + ".png");
    const std::vector<half> r = exr_channel<half>(in, "R", Imf::HALF), g = exr_channel<half>(in, "G", Imf::HALF),
                            b = exr_channel<half>(in, "B", Imf::HALF);
    for (size_t k = 0; k < n.size(); ++k) {
      const float lin[3] = {r[k], g[k], b[k]};
      for (int ch = 0; ch < 3; ++ch) {
        const int code = ds::app::linear_to_srgb8(lin[ch]);
        EXPECT_LE(std::abs(code - png.rgb[3 * k + ch]), std::string(aa) == "1" ? 0 : 1) << k << " " << ch;
      }
    }
    // DEX, DEY and T: the engine's fields at the pixel centres (RenderOptions::fields), bit for bit;
    // 0 where the pixel did not escape.
    ASSERT_NE(h.channels().findChannel("DEX"), nullptr);
    ASSERT_NE(h.channels().findChannel("DEY"), nullptr);
    ASSERT_NE(h.channels().findChannel("T"), nullptr);
    ds::mandel::RenderOptions fo;
    fo.backend = ds::Backend::kCpu;
    fo.fields = ds::mandel::kFieldDistance | ds::mandel::kFieldPhase;
    const ds::mandel::RenderResult f = ds::mandel::render(v, fo);
    const std::vector<float> dex = exr_channel<float>(in, "DEX", Imf::FLOAT),
                             dey = exr_channel<float>(in, "DEY", Imf::FLOAT),
                             t = exr_channel<float>(in, "T", Imf::FLOAT);
    int escaped_with_de = 0;
    for (size_t k = 0; k < n.size(); ++k) {
      EXPECT_EQ(dex[k], f.dex[k]) << k;
      EXPECT_EQ(dey[k], f.dey[k]) << k;
      EXPECT_EQ(t[k], f.phase[k]) << k;
      if (counts[k] == v.max_iter) {
        EXPECT_EQ(dex[k], 0.0f) << k;
      }
      escaped_with_de += counts[k] < v.max_iter && (dex[k] != 0.0f || dey[k] != 0.0f);
    }
    EXPECT_GT(escaped_with_de, 0);
    std::string location;
    ASSERT_TRUE(ds::app::png_find_text(slurp(stem + ".png"), ds::app::kPngLocationKey, &location));
    EXPECT_EQ(exr_attribute(h, ds::app::kPngLocationKey), location);
    EXPECT_EQ(exr_attribute(h, "deepscope-undecided"), "0");
    if (std::string(aa) == "2") {
      EXPECT_NE(exr_attribute(h, "deepscope-aa").find("samples = 2x2"), std::string::npos);
    }
  }
}

TEST(RenderExr, FramesAreNumberedLikeThePngs) {
  const ds::mandel::View v = edge_view();
  const std::string dir = ds::test::make_tmpdir("exr");
  ASSERT_EQ(render(with(view_args(v), {"--frames", "3", "--zoom-to", "24", "--exr", dir + "/f%02d.exr",
                                       "--out", dir + "/f%02d.png"})),
            0);
  for (int k = 1; k <= 3; ++k) {
    const std::string exr = dir + "/f0" + std::to_string(k) + ".exr";
    Imf::InputFile in(exr.c_str());
    std::string location;
    ASSERT_TRUE(ds::app::png_find_text(slurp(dir + "/f0" + std::to_string(k) + ".png"),
                                       ds::app::kPngLocationKey, &location));
    EXPECT_EQ(exr_attribute(in.header(), ds::app::kPngLocationKey), location) << k;
  }
}

#else

TEST(RenderExr, RefusedWithoutOpenExr) {
  const std::string dir = ds::test::make_tmpdir("exr");
  EXPECT_EQ(render(with(view_args(edge_view()), {"--exr", dir + "/x.exr", "--out", dir + "/x.png"})), 2);
  EXPECT_EQ(slurp(dir + "/x.png"), "") << "never a PNG in place of the EXR";
}

#endif

}  // namespace
