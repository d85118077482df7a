// 64-bit iteration counts in files (docs/mandelbrot.md, "Counts" and "Output files"): .kfr, our
// .loc text and the PNG's location chunk carry a count past 2^32 as decimal text and read it back;
// readers refuse 2^63 and beyond, negative and fractional counts, naming the value; the .npy writer
// keeps uint32 while every count fits and switches to uint64 (and smooth counts to float64) when not.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>

#include "app/io/image_io.h"
#include "app/io/location.h"
#include "kernels/core/atomic_file.h"

namespace {

using namespace ds;
using namespace ds::app;

std::string error_of(const std::string& text) {
  try {
    parse_location(text, "t");
  } catch (const IoError& e) {
    return e.what();
  }
  return "";
}

Location at(uint64_t iterations) {
  Location l;
  l.re = "-1.75";
  l.im = "0.25";
  l.zoom = "1e20";
  l.iterations = iterations;
  return l;
}

TEST(IterationsInFiles, KfrAndLocRoundTripPast2To32) {
  for (uint64_t n : {uint64_t{4036}, uint64_t{4294967295ull}, uint64_t{5000000000ull}, uint64_t{50000000000000ull},
                     uint64_t{9223372036854775807ull}}) {
    const std::string kfr = format_kfr(at(n)), loc = format_location(at(n));
    EXPECT_NE(kfr.find("Iterations: " + std::to_string(n) + "\r\n"), std::string::npos) << kfr;
    EXPECT_NE(loc.find("iterations = " + std::to_string(n) + "\n"), std::string::npos) << loc;
    EXPECT_EQ(*parse_location(kfr, "a.kfr").iterations, n);
    EXPECT_EQ(*parse_location(loc, "a.loc").iterations, n);
    mandel::View v;
    apply_to_view(parse_location(kfr, "a.kfr"), &v, false);
    EXPECT_EQ(v.max_iter, n);
  }
  // As the programs that wrote them spell counts: KF's integer, and "5e9" where a person typed it.
  EXPECT_EQ(*parse_location("Re: 0\r\nIm: 0\r\nZoom: 1\r\nIterations: 5000000000\r\n", "k").iterations,
            5000000000ull);
  EXPECT_EQ(*parse_location("re = 0\nim = 0\nzoom = 1\niterations = 5e9\n", "l").iterations, 5000000000ull);
  EXPECT_EQ(*parse_location("program = \"fraktaler-3\"\nbailout.iterations = 5000000000\n", "f").iterations,
            5000000000ull);
  const std::string dir = [] {
    char tmpl[] = "/tmp/deepscope-counts-XXXXXX";
    return std::string(mkdtemp(tmpl));
  }();
  write_file_atomically(dir + "/five.kfr", format_kfr(at(5000000000ull)));
  EXPECT_EQ(*read_location_file(dir + "/five.kfr").iterations, 5000000000ull);
}

TEST(IterationsInFiles, RefusedPast2To63Minus1NamingTheValue) {
  const struct {
    const char* text;
    const char* value;
  } cases[] = {
      {"Re: 0\r\nIm: 0\r\nZoom: 1\r\nIterations: 9223372036854775808\r\n", "9223372036854775808"},
      {"Re: 0\r\nIm: 0\r\nZoom: 1\r\nIterations: 18446744073709551616\r\n", "18446744073709551616"},
      {"Re: 0\r\nIm: 0\r\nZoom: 1\r\nIterations: -5\r\n", "-5"},
      {"Re: 0\r\nIm: 0\r\nZoom: 1\r\nIterations: 2.5\r\n", "2.5"},
      {"re = 0\nim = 0\nzoom = 1\niterations = 9223372036854775808\n", "9223372036854775808"},
      {"re = 0\nim = 0\nzoom = 1\niterations = 1e19\n", "1e19"},
      {"re = 0\nim = 0\nzoom = 1\niterations = -1\n", "-1"},
      {"re = 0\nim = 0\nzoom = 1\niterations = 0.5\n", "0.5"},
  };
  for (const auto& c : cases) {
    const std::string e = error_of(c.text);
    EXPECT_NE(e.find(c.value), std::string::npos) << c.text << ": " << e;
    EXPECT_NE(e.find("9223372036854775807"), std::string::npos) << "names the limit: " << e;
    EXPECT_NE(e.find("terations"), std::string::npos) << "names the field: " << e;
  }
}

TEST(IterationsInFiles, PngLocationChunkCarriesTheCount) {
  std::vector<uint8_t> rgb(4 * 2 * 3, 100);
  const std::string png = encode_png(rgb, 4, 2, {{kPngLocationKey, format_location(at(5000000000ull))}});
  std::string text;
  ASSERT_TRUE(png_find_text(png, kPngLocationKey, &text));
  EXPECT_NE(text.find("iterations = 5000000000"), std::string::npos) << text;
  EXPECT_EQ(*parse_location(text, "png").iterations, 5000000000ull);
}

std::string header_of(const std::string& npy, std::size_t* data_at) {
  const std::size_t len = static_cast<unsigned char>(npy[8]) | (static_cast<unsigned char>(npy[9]) << 8);
  *data_at = 10 + len;
  return npy.substr(10, len);
}

TEST(CountsNpy, Uint32WhileEveryCountFitsUint64Beyond) {
  const std::vector<uint32_t> lo = {1, 2, 3, 0xFFFFFFFFu, 5, 705032704u};
  // Narrow (no high words) and wide with every high word 0: the uint32 file of before, byte for byte.
  EXPECT_EQ(encode_counts_npy(lo, {}, 2, 3), encode_npy(lo, 2, 3));
  EXPECT_EQ(encode_counts_npy(lo, std::vector<uint32_t>(6, 0), 2, 3), encode_npy(lo, 2, 3));
  // One count past 2^32 - 1 (5,000,000,000 = 2^32 + 705,032,704): every element uint64.
  const std::vector<uint32_t> hi = {0, 0, 0, 0, 0, 1};
  const std::string npy = encode_counts_npy(lo, hi, 2, 3);
  std::size_t at = 0;
  const std::string h = header_of(npy, &at);
  EXPECT_NE(h.find("'descr': '<u8'"), std::string::npos) << h;
  EXPECT_NE(h.find("'shape': (2, 3)"), std::string::npos) << h;
  EXPECT_EQ(at % 64, 0u);
  ASSERT_EQ(npy.size(), at + 6 * 8);
  uint64_t v[6];
  std::memcpy(v, npy.data() + at, sizeof v);  // little-endian host
  EXPECT_EQ(v[3], 0xFFFFFFFFull);
  EXPECT_EQ(v[5], 5000000000ull);
  EXPECT_THROW(encode_counts_npy(lo, {1}, 2, 3), IoError);
}

TEST(CountsNpy, SmoothCountsOfWideResultsAreFloat64) {
  const std::vector<float> smooth = {2.5f, 0.3f};
  const std::vector<uint32_t> lo = {7, 705032704u}, hi = {0, 1};
  EXPECT_EQ(encode_smooth_npy(smooth, lo, {}, 1, 2), encode_npy(smooth, 1, 2));  // narrow: as before
  const std::string npy = encode_smooth_npy(smooth, lo, hi, 1, 2);  // wide: smooth holds the fraction
  std::size_t at = 0;
  EXPECT_NE(header_of(npy, &at).find("'descr': '<f8'"), std::string::npos);
  ASSERT_EQ(npy.size(), at + 2 * 8);
  double d[2];
  std::memcpy(d, npy.data() + at, sizeof d);
  EXPECT_EQ(d[0], 7.0 + 2.5);
  EXPECT_EQ(d[1], 5000000000.0 + static_cast<double>(0.3f));
  EXPECT_NE(d[1], static_cast<double>(static_cast<float>(5000000000.3)));
}

}  // namespace
