// MPFR's "%Ra" text from bits and back, without MPFR (the tests check both against mpfr_asprintf).
#include "mpfr_hex.h"

#include <charconv>
#include <cstdint>

namespace ds::app {
namespace {

// Hex digit values by character, -1 for the others (a table: 4e6 cases parse 2.8e8 digits).
struct HexTable {
  int8_t v[256];
  constexpr HexTable() : v() {
    for (int c = 0; c < 256; ++c)
      v[c] = c >= '0' && c <= '9'   ? c - '0'
             : c >= 'a' && c <= 'f' ? c - 'a' + 10
             : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                    : -1;
  }
};
constexpr HexTable kHexValue;
int hex_value(char c) { return kHexValue.v[static_cast<unsigned char>(c)]; }

}  // namespace

bool parse_mpfr_hex(const std::string& s, int max_bits, HexNumber* out) {
  HexNumber h;
  std::size_t i = 0;
  if (i < s.size() && s[i] == '-') {
    h.negative = true;
    ++i;
  }
  if (s.compare(i, 2, "0x") != 0) return false;
  i += 2;
  // The digits left-aligned in 320 bits (digit j at bits 4j..4j+3 from the top): the leading one
  // and at most 64 after the point hold 256 bits at any alignment.
  uint64_t acc[5] = {0, 0, 0, 0, 0};
  if (i >= s.size() || hex_value(s[i]) < 0) return false;
  acc[0] = static_cast<uint64_t>(hex_value(s[i++])) << 60;  // one digit before the point
  int digits = 1;
  if (i < s.size() && s[i] == '.') {
    for (++i; i < s.size(); ++i, ++digits) {
      const int d = hex_value(s[i]);
      if (d < 0) break;
      if (digits == 80) return false;
      acc[digits / 16] |= static_cast<uint64_t>(d) << (60 - 4 * (digits % 16));
    }
    if (digits == 1) return false;  // a point without digits
  }
  if (i >= s.size() || s[i] != 'p') return false;
  // Shift the first one bit to the top: `lz` zero bits precede it (its weight is 2^(P + 3 - lz)).
  int lz = 0, w = 0;
  while (w < 5 && acc[w] == 0) ++w, lz += 64;
  if (w == 5) return false;  // zero
  const int b = __builtin_clzll(acc[w]);
  lz += b;
  for (int k = 0; k < 5; ++k) {
    const int src = k + w;
    const uint64_t hi = src < 5 ? acc[src] : 0, lo = src + 1 < 5 ? acc[src + 1] : 0;
    acc[k] = b ? (hi << b | lo >> (64 - b)) : hi;
  }
  // No one bit past max_bits (and none past 256).
  const int keep = max_bits < 256 ? max_bits : 256;
  for (int k = 0; k < 5; ++k) {
    const int from = 64 * k;  // bits [from, from + 64) of the significand
    if (from >= keep) {
      if (acc[k]) return false;
    } else if (from + 64 > keep && (acc[k] << (keep - from)) != 0) {
      return false;
    }
  }
  for (int k = 0; k < 4; ++k) h.sig[k] = acc[k];
  if (i >= s.size() || i + 2 >= s.size()) return false;
  const char* p = s.data() + i + 1;
  const char* end = s.data() + s.size();
  if (*p != '+' && *p != '-') return false;
  const bool neg_exp = *p == '-';
  long e = 0;
  const auto r = std::from_chars(p + 1, end, e);
  if (r.ec != std::errc() || r.ptr != end || e < 0 || e > (1L << 33)) return false;
  const long exp = (neg_exp ? -e : e) + 4 - lz;
  if (exp < INT32_MIN || exp > INT32_MAX)
    return false;  // HexNumber's range (every int32 prints and reads back)
  h.exp = static_cast<int32_t>(exp);
  *out = h;
  return true;
}

void append_mpfr_hex(std::string& o, const HexNumber& h) {
  // The printed exponent 4q with q = floor((exp - 1) / 4): the leading digit takes r in [1, 4] bits.
  const long em1 = static_cast<long>(h.exp) - 1;
  const long q = em1 >= 0 ? em1 / 4 : -((-em1 + 3) / 4);
  const int r = static_cast<int>(h.exp - 4 * q);
  static constexpr char kHex[] = "0123456789abcdef";
  // The bits after the leading digit, shifted to the top of f[] so that each limb is 16 digits.
  uint64_t f[4];
  for (int k = 0; k < 4; ++k) f[k] = h.sig[k] << r | (k < 3 ? h.sig[k + 1] >> (64 - r) : 0);
  char b[96];
  int n = 0;
  if (h.negative) b[n++] = '-';
  b[n++] = '0';
  b[n++] = 'x';
  b[n++] = kHex[h.sig[0] >> (64 - r)];
  int last = 3;  // the last limb with a non-zero digit
  while (last >= 0 && f[last] == 0) --last;
  if (last >= 0) {
    b[n++] = '.';
    for (int k = 0; k <= last; ++k) {
      uint64_t v = f[k];
      int digits = 16;
      if (k == last)
        while (!(v & 0xfu)) v >>= 4, --digits;  // trailing zero digits dropped
      for (int d = digits - 1; d >= 0; --d) b[n++] = kHex[(v >> (4 * d)) & 0xfu];
    }
  }
  b[n++] = 'p';
  b[n++] = q < 0 ? '-' : '+';
  const auto res = std::to_chars(b + n, b + sizeof b, 4 * (q < 0 ? -q : q));
  o.append(b, static_cast<std::size_t>(res.ptr - b));
}

}  // namespace ds::app
