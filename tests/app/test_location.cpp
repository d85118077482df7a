// Location files (ours, Kalles Fraktaler .kfr, PNG tEXt), PNG chunk handling and .npy encoding.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <fstream>

#include "kernels/atomic_file.h"
#include "image_io.h"
#include "location.h"

namespace {

using namespace ds;
using namespace ds::app;

std::string tmpdir() {
  char tmpl[] = "/tmp/deepscope-loc-XXXXXX";
  return mkdtemp(tmpl);
}

TEST(Location, ParsesOurFormat) {
  const Location l = parse_location(
      "# a comment\n"
      "re = -0.75   # trailing comment\n"
      "IM=0.1\n"
      "zoom = 1e300\n"
      "iterations = 5000\n"
      "width = 640\nheight = 480\npalette = gray\ndensity = 2.5\noffset = 0.25\n"
      "format_used = limb32\nsomething_new = ignored\n",
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
}

TEST(Location, ParsesKallesFraktalerFiles) {
  // The head of KF 2's benchmarks/1e14.kfr (CRLF line ends, many keys we ignore).
  const Location l = parse_location(
      "Re: -1.759817130804847813610825010561798238243999999999999999999800\r\n"
      "Im: -0.012593310799749865383746631843264858450340000000000000000000\r\n"
      "Zoom: 1.00e014\r\nIterations: 4036\r\nIterDiv: 1.000000\r\nSmoothMethod: 0\r\n"
      "Colors: 0,0,0,41,35,190,\r\nRatio: 360.000000\r\n",
      "kf.kfr");
  EXPECT_EQ(l.re, "-1.759817130804847813610825010561798238243999999999999999999800");
  EXPECT_EQ(l.zoom, "1.00e014");
  EXPECT_EQ(*l.iterations, 4036u);
  EXPECT_FALSE(l.width.has_value());
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
  const Location back = parse_location(format_location(l), "mem");
  EXPECT_EQ(back.re, l.re);
  EXPECT_EQ(back.im, l.im);
  EXPECT_EQ(back.zoom, l.zoom);
  EXPECT_EQ(*back.iterations, 123u);
  EXPECT_EQ(*back.density, 0.1);
  EXPECT_EQ(*back.offset, 0.3);
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
