// Two RGB8 images compared pixel by pixel (the shader tests: the GL's colours against colour_pixel's).
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace ds::test {

// How many pixels have a largest channel difference of 0, of 1, and of more.
struct ChannelDiff {
  std::size_t exact = 0, one = 0, worse = 0;
};

// got and want: 3 bytes a pixel; pixels past the shorter of the two are not counted.
inline ChannelDiff channel_diff(const std::vector<uint8_t>& got, const std::vector<uint8_t>& want) {
  ChannelDiff d;
  for (std::size_t q = 0; q + 2 < want.size() && q + 2 < got.size(); q += 3) {
    int m = 0;
    for (int k = 0; k < 3; ++k) m = std::max(m, std::abs(got[q + k] - want[q + k]));
    (m == 0 ? d.exact : m == 1 ? d.one : d.worse) += 1;
  }
  return d;
}

// The shader tests' agreement with the C++ colouring: no pixel more than one level from `want` in
// any channel, and 99% of them exact. The counts are printed after `what`.
inline void expect_within_one_level(const std::vector<uint8_t>& got, const std::vector<uint8_t>& want,
                                    const char* what) {
  const ChannelDiff d = channel_diff(got, want);
  std::printf("%s: %zu exact, %zu one level apart, %zu more\n", what, d.exact, d.one, d.worse);
  EXPECT_EQ(d.worse, 0u) << what;
  EXPECT_GE(d.exact, want.size() / 3 * 99 / 100) << what;
}

}  // namespace ds::test
