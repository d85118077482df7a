// The binary TMD case file: MPFR's %Ra text from bits and back agrees with mpfr_asprintf itself
// (the independent oracle), the file gives back every case exactly, and a file that is not one,
// of another version, truncated, lengthened or damaged is refused with a message saying which.
#include <gtest/gtest.h>
#include <mpfr.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "app/io/mpfr_hex.h"
#include "app/io/tmd_case_file.h"

namespace {

using ds::app::HexNumber;

std::string asprintf_ra(mpfr_srcptr x) {
  char* s = nullptr;
  mpfr_asprintf(&s, "%Ra", x);
  std::string t = s;
  mpfr_free_str(s);
  return t;
}

// x's bits read through GMP (not through the parser under test), left-aligned in 256 bits.
HexNumber bits_of(mpfr_srcptr x) {
  HexNumber h;
  h.negative = mpfr_signbit(x) != 0;
  h.exp = static_cast<int32_t>(mpfr_get_exp(x));
  mpz_t z;
  mpz_init(z);
  mpfr_get_z_2exp(z, x);
  mpz_abs(z, z);
  mpz_mul_2exp(z, z, 256 - mpz_sizeinbase(z, 2));
  for (int w = 3; w >= 0; --w) {
    h.sig[w] = mpz_get_ui(z);
    mpz_tdiv_q_2exp(z, z, 64);
  }
  mpz_clear(z);
  return h;
}

TEST(MpfrHex, TextAgreesWithMpfrBothWays) {
  gmp_randstate_t st;
  gmp_randinit_default(st);
  gmp_randseed_ui(st, 11);
  std::mt19937_64 rng(11);
  int checked = 0;
  for (int prec : {256, 64, 54, 24, 2}) {
    mpfr_t x;
    mpfr_init2(x, prec);
    for (int i = 0; i < 20000; ++i) {
      mpfr_urandomb(x, st);
      if (mpfr_zero_p(x)) continue;
      if (i % 7 == 0) mpfr_set_ui_2exp(x, 1 + rng() % 31, 0, MPFR_RNDN);  // few bits: trailing zeros
      mpfr_mul_2si(x, x, static_cast<long>(rng() % 2001) - 1000, MPFR_RNDN);
      if (rng() & 1) mpfr_neg(x, x, MPFR_RNDN);
      const std::string want = asprintf_ra(x);
      const HexNumber h = bits_of(x);
      std::string got;
      ds::app::append_mpfr_hex(got, h);
      ASSERT_EQ(got, want);
      HexNumber back;
      ASSERT_TRUE(ds::app::parse_mpfr_hex(want, prec, &back)) << want;
      EXPECT_EQ(back.negative, h.negative);
      EXPECT_EQ(back.exp, h.exp) << want;
      for (int w = 0; w < 4; ++w) EXPECT_EQ(back.sig[w], h.sig[w]) << want;
      ++checked;
    }
    mpfr_clear(x);
  }
  gmp_randclear(st);
  EXPECT_GT(checked, 90000);
  HexNumber h;
  for (const char* bad : {"", "0x", "1.8p+0", "0x1.8", "0x1.8p", "0x1.8p3", "0x12.8p+0", "0x.8p+0", "0x0p+0",
                          "0x1.8p+0 ", "0x1.g8p+0", "0x1..8p+0", "-0x1.8p+-3"})
    EXPECT_FALSE(ds::app::parse_mpfr_hex(bad, 256, &h)) << bad;
  EXPECT_FALSE(ds::app::parse_mpfr_hex("0x1.0000000000000001p+0", 64, &h));  // 65 bits
  EXPECT_TRUE(ds::app::parse_mpfr_hex("0x1.000000000000001p+0", 64, &h));
}

ds::app::TmdCaseHeader header(bool wide) {
  ds::app::TmdCaseHeader h;
  h.search = wide ? ds::app::TmdCaseHeader::kRegular : ds::app::TmdCaseHeader::kExhaustive;
  h.func = ds::tmd::Func::kExp;
  h.mode = ds::tmd::Mode::kDirected;
  h.wide = wide;
  h.precision = wide ? 54 : 24;
  h.k = 16;
  h.json_head = "{\n  \"search\": \"exhaustive\"";
  return h;
}

std::vector<ds::tmd::Case> some_cases(bool wide) {
  std::vector<ds::tmd::Case> v;
  for (int i = 0; i < 5; ++i) {
    ds::tmd::Case c;
    c.index = 1000u + static_cast<uint64_t>(i);
    if (wide)
      c.x_text = i % 2 ? "0x1.00000000000123p+0" : "0x1.8p+0";
    else
      c.x = 0x3f800000u + static_cast<uint32_t>(i);
    c.run = 20 + i;
    c.run_capped = i == 4;
    c.log2_dist = i == 3 ? INFINITY : 21.25 + i;
    c.fx = i % 2 ? "-0xf.ac6b08000000087735b953896a0ddb38ba233b46bf5505629a3e521a8f77beep-4"
                 : "0x1.00870900000006fa9790d6afa463bb3d1132c913cfc624b56dc7d05ebac9976ep+0";
    v.push_back(c);
  }
  return v;
}

TEST(TmdCaseFile, GivesBackEveryCase) {
  for (bool wide : {false, true}) {
    const auto cases = some_cases(wide);
    const std::string bytes = ds::app::encode_tmd_cases(header(wide), cases);
    EXPECT_EQ(bytes.size(), 48 + header(wide).json_head.size() + 5 * 72 + 4);
    const ds::app::TmdCases f = ds::app::decode_tmd_cases(bytes, "t.tmdc");
    EXPECT_EQ(f.header.json_head, header(wide).json_head);
    EXPECT_EQ(f.header.wide, wide);
    EXPECT_EQ(f.header.precision, wide ? 54 : 24);
    EXPECT_EQ(f.header.func, ds::tmd::Func::kExp);
    ASSERT_EQ(f.cases.size(), cases.size());
    for (std::size_t i = 0; i < cases.size(); ++i) {
      EXPECT_EQ(f.cases[i].index, cases[i].index);
      EXPECT_EQ(f.cases[i].x, cases[i].x);
      EXPECT_EQ(f.cases[i].x_text, cases[i].x_text);
      EXPECT_EQ(f.cases[i].run, cases[i].run);
      EXPECT_EQ(f.cases[i].run_capped, cases[i].run_capped);
      EXPECT_EQ(f.cases[i].log2_dist, cases[i].log2_dist);
      EXPECT_EQ(f.cases[i].fx, cases[i].fx);
    }
  }
  // Text the format cannot hold exactly is refused when writing, not lost.
  auto cases = some_cases(false);
  cases[2].fx = "0x1.8000p+0";  // not MPFR's text (trailing zeros)
  EXPECT_THROW(ds::app::encode_tmd_cases(header(false), cases), std::runtime_error);
  EXPECT_THROW(ds::app::encode_tmd_cases(header(true), some_cases(false)), std::runtime_error);
}

std::string refusal(const std::string& bytes) {
  try {
    ds::app::decode_tmd_cases(bytes, "t.tmdc");
  } catch (const ds::app::TmdCaseFileError& e) {
    return e.what();
  }
  return "accepted";
}

TEST(TmdCaseFile, RefusesBadFiles) {
  const std::string good = ds::app::encode_tmd_cases(header(false), some_cases(false));
  EXPECT_NE(refusal("x,x_value,run\n").find("not a deepscope TMD case file"), std::string::npos);
  EXPECT_NE(refusal("").find("not a deepscope TMD case file"), std::string::npos);
  std::string v = good;
  v[8] = 2;
  EXPECT_NE(refusal(v).find("version 2; this deepscope reads version 1"), std::string::npos) << refusal(v);
  for (std::size_t cut : {std::size_t{10}, std::size_t{50}, good.size() - 80, good.size() - 1}) {
    const std::string msg = refusal(good.substr(0, cut));
    EXPECT_TRUE(msg.find("truncated") != std::string::npos || msg.find("damaged") != std::string::npos)
        << msg;
  }
  EXPECT_NE(refusal(good.substr(0, good.size() - 72)).find("truncated"),
            std::string::npos);  // a record short
  EXPECT_NE(refusal(good + "x").find("damaged"), std::string::npos);
  // Any one byte changed past the magic and version: the CRC (or a size check) refuses it.
  for (std::size_t i = 12; i < good.size(); ++i) {
    std::string d = good;
    d[i] = static_cast<char>(d[i] ^ 0x10);
    EXPECT_NE(refusal(d), "accepted") << "byte " << i;
  }
  EXPECT_EQ(refusal(good), "accepted");
}

}  // namespace
