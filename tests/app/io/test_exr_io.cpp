// EXR output (app/io/exr_io.h): channels made from hand-filled render results (narrow and wide
// counts, interior and undecided pixels, the distance and phase fields), encoded, written and read
// back with OpenEXR itself, every channel's type and value and the header's attributes checked.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "app/io/exr_io.h"
#include "kernels/core/atomic_file.h"
#include "test_files.h"

#include "exr_read.h"

namespace {

using ds::app::ExrImage;
using ds::app::kExrInterior;
using ds::mandel::RenderResult;

// 3x2 pixels, max_iter 1000: escaped at 5 (mu 5.25), 17 (mu 17.75), 1 (mu 0.4: far outside, N
// clamps to 1), interior, undecided (count 0), escaped at 999 (mu 999.5).
RenderResult narrow_result(bool fields) {
  RenderResult r;
  r.width = 3;
  r.height = 2;
  r.max_iter = 1000;
  r.counts = {5, 17, 1, 1000, 0, 999};
  r.smooth = {5.25f, 17.75f, 0.4f, 1000.0f, 0.0f, 999.5f};
  if (fields) {
    r.dex = {0.5f, -1.25f, 3.0f, 0.0f, 0.0f, 7.5f};
    r.dey = {-0.5f, 2.0f, 0.125f, 0.0f, 0.0f, -7.5f};
    r.phase = {0.0f, 0.25f, 0.5f, 0.0f, 0.0f, 0.875f};
  }
  return r;
}

TEST(ExrChannels, NarrowCountsAndSmoothCounts) {
  const ExrImage e = ds::app::exr_channels(narrow_result(false), {});
  EXPECT_EQ(e.n, (std::vector<uint32_t>{5, 17, 1, kExrInterior, 0, 999}));
  EXPECT_EQ(e.nf, (std::vector<float>{0.25f, 0.75f, 0.0f, 0.0f, 0.0f, 0.5f}));
  EXPECT_TRUE(e.n1.empty());
  EXPECT_TRUE(e.dex.empty() && e.dey.empty() && e.t.empty() && e.rgb.empty());
}

TEST(ExrChannels, SmoothCountBelowTheCountGivesTheLowerN) {
  // mu lies close to (count, count + 1], not always inside: N + NF is mu itself.
  RenderResult r;
  r.width = 2;
  r.height = 1;
  r.max_iter = 100;
  r.counts = {12, 40};
  r.smooth = {11.875f, 41.0f};
  const ExrImage e = ds::app::exr_channels(r, {});
  EXPECT_EQ(e.n, (std::vector<uint32_t>{11, 41}));
  EXPECT_EQ(e.nf, (std::vector<float>{0.875f, 0.0f}));
}

RenderResult wide_result() {
  RenderResult r;
  r.width = 2;
  r.height = 2;
  r.max_iter = 6000000000ull;  // >= 2^32: counts_high, smooth = mu - count
  const uint64_t c0 = 5000000000ull, c1 = 7, c2 = 6000000000ull;
  for (uint64_t c : {c0, c1, c2, uint64_t{0}}) {
    r.counts.push_back(static_cast<uint32_t>(c));
    r.counts_high.push_back(static_cast<uint32_t>(c >> 32));
  }
  r.smooth = {0.375f, -0.25f, 0.0f, 0.0f};
  return r;
}

TEST(ExrChannels, WideCountsGetN1) {
  const ExrImage e = ds::app::exr_channels(wide_result(), {});
  const uint64_t n0 = 5000000000ull;
  EXPECT_EQ(e.n, (std::vector<uint32_t>{static_cast<uint32_t>(n0), 6, kExrInterior, 0}));
  EXPECT_EQ(e.n1, (std::vector<uint32_t>{static_cast<uint32_t>(n0 >> 32), 0, kExrInterior, 0}));
  EXPECT_EQ(e.nf, (std::vector<float>{0.375f, 0.75f, 0.0f, 0.0f}));
}

#ifdef DEEPSCOPE_WITH_OPENEXR

using ds::test::exr_attribute;
using ds::test::exr_channel;

TEST(ExrFile, EveryChannelAndAttributeReadsBack) {
  const RenderResult r = narrow_result(true);
  // Linear colours that halves hold exactly (multiples of 2^-10 within [0, 2)).
  std::vector<float> rgb;
  for (int k = 0; k < 18; ++k) rgb.push_back(static_cast<float>(k) / 16.0f);
  ExrImage e = ds::app::exr_channels(r, rgb);
  e.attributes = {{"deepscope-location", "re = -0.75\nim = 0.1\nzoom = 1e3\n"}, {"deepscope-undecided", "1"}};
  const std::string path = ds::test::make_tmpdir("exr") + "/t.exr";
  ds::write_file_atomically(path, ds::app::encode_exr(e));

  Imf::InputFile in(path.c_str());
  const Imf::Header& h = in.header();
  EXPECT_EQ(h.dataWindow().max.x, 2);
  EXPECT_EQ(h.dataWindow().max.y, 1);
  const Imf::ChannelList& ch = h.channels();
  auto type_of = [&](const char* name) {
    const Imf::Channel* c = ch.findChannel(name);
    return c ? static_cast<int>(c->type) : -1;
  };
  EXPECT_EQ(type_of("N"), Imf::UINT);
  EXPECT_EQ(type_of("NF"), Imf::FLOAT);
  EXPECT_EQ(type_of("DEX"), Imf::FLOAT);
  EXPECT_EQ(type_of("DEY"), Imf::FLOAT);
  EXPECT_EQ(type_of("T"), Imf::FLOAT);
  EXPECT_EQ(type_of("R"), Imf::HALF);
  EXPECT_EQ(type_of("G"), Imf::HALF);
  EXPECT_EQ(type_of("B"), Imf::HALF);
  EXPECT_EQ(type_of("N1"), -1) << "narrow counts have no N1";

  EXPECT_EQ(exr_channel<uint32_t>(in, "N", Imf::UINT),
            (std::vector<uint32_t>{5, 17, 1, kExrInterior, 0, 999}));
  EXPECT_EQ(exr_channel<float>(in, "NF", Imf::FLOAT),
            (std::vector<float>{0.25f, 0.75f, 0.0f, 0.0f, 0.0f, 0.5f}));
  EXPECT_EQ(exr_channel<float>(in, "DEX", Imf::FLOAT), r.dex);
  EXPECT_EQ(exr_channel<float>(in, "DEY", Imf::FLOAT), r.dey);
  EXPECT_EQ(exr_channel<float>(in, "T", Imf::FLOAT), r.phase);
  const std::vector<half> red = exr_channel<half>(in, "R", Imf::HALF),
                          green = exr_channel<half>(in, "G", Imf::HALF),
                          blue = exr_channel<half>(in, "B", Imf::HALF);
  for (size_t k = 0; k < 6; ++k) {
    EXPECT_EQ(static_cast<float>(red[k]), rgb[3 * k]) << k;
    EXPECT_EQ(static_cast<float>(green[k]), rgb[3 * k + 1]) << k;
    EXPECT_EQ(static_cast<float>(blue[k]), rgb[3 * k + 2]) << k;
  }
  EXPECT_EQ(exr_attribute(h, "deepscope-location"), "re = -0.75\nim = 0.1\nzoom = 1e3\n");
  EXPECT_EQ(exr_attribute(h, "deepscope-undecided"), "1");
}

TEST(ExrFile, WideCountsAndNoFields) {
  const ExrImage e = ds::app::exr_channels(wide_result(), {});
  const std::string path = ds::test::make_tmpdir("exr") + "/w.exr";
  ds::write_file_atomically(path, ds::app::encode_exr(e));
  Imf::InputFile in(path.c_str());
  const Imf::ChannelList& ch = in.header().channels();
  EXPECT_NE(ch.findChannel("N1"), nullptr);
  for (const char* absent : {"DEX", "DEY", "T", "R", "G", "B"})
    EXPECT_EQ(ch.findChannel(absent), nullptr) << absent << ": not filled, not written";
  const std::vector<uint32_t> n = exr_channel<uint32_t>(in, "N", Imf::UINT);
  const std::vector<uint32_t> n1 = exr_channel<uint32_t>(in, "N1", Imf::UINT);
  EXPECT_EQ(n[0] + (static_cast<uint64_t>(n1[0]) << 32), 5000000000ull);
  EXPECT_EQ(n[2], kExrInterior);
  EXPECT_EQ(n1[2], kExrInterior);
  EXPECT_EQ(exr_channel<float>(in, "NF", Imf::FLOAT), (std::vector<float>{0.375f, 0.75f, 0.0f, 0.0f}));
}

TEST(ExrFile, MismatchedSizesAreRefused) {
  ExrImage e = ds::app::exr_channels(narrow_result(true), {});
  e.dex.pop_back();
  EXPECT_THROW(ds::app::encode_exr(e), ds::IoError);
}

#else

TEST(ExrFile, RefusedWithoutOpenExr) {
  EXPECT_FALSE(ds::app::exr_supported());
  EXPECT_THROW(ds::app::encode_exr(ds::app::exr_channels(narrow_result(false), {})), ds::IoError);
}

#endif

}  // namespace
