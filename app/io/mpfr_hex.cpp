// MPFR's "%Ra" text from bits and back, without MPFR (the tests check both against mpfr_asprintf).
#include "mpfr_hex.h"

#include <charconv>

namespace ds::app {
namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The 4 bits of sig starting at bit `off` (0: the most significant), zeros past bit 255.
unsigned nibble(const uint64_t* sig, int off) {
  if (off >= 256) return 0;
  const int w = off / 64, b = off % 64;
  uint64_t v = b <= 60 ? sig[w] >> (60 - b) : sig[w] << (b - 60);
  if (b > 60 && w < 3) v |= sig[w + 1] >> (124 - b);
  return static_cast<unsigned>(v & 0xfu);
}

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
  // Significant bits from the first one bit: `nb` stored, `first` the first one's index in the
  // digit string's bits (its weight is 2^(P + 3 - first) for the leading digit's 2^P).
  int nb = 0;
  long first = -1, bitpos = 0;
  bool dot = false;
  int lead_digits = 0;
  for (; i < s.size() && s[i] != 'p'; ++i) {
    if (s[i] == '.') {
      if (dot || lead_digits == 0) return false;
      dot = true;
      continue;
    }
    const int d = hex_value(s[i]);
    if (d < 0 || (!dot && ++lead_digits > 1)) return false;  // one digit before the point
    for (int k = 3; k >= 0; --k, ++bitpos) {
      const int bit = (d >> k) & 1;
      if (first < 0) {
        if (!bit) continue;
        first = bitpos;
      }
      if (nb >= max_bits || nb >= 256) {
        if (bit) return false;
        continue;
      }
      if (bit) h.sig[nb / 64] |= uint64_t{1} << (63 - nb % 64);
      ++nb;
    }
  }
  if (first < 0 || i >= s.size() || s.back() == 'p') return false;
  const char* p = s.data() + i + 1;
  const char* end = s.data() + s.size();
  if (*p != '+' && *p != '-') return false;
  const bool neg_exp = *p == '-';
  long e = 0;
  const auto r = std::from_chars(p + 1, end, e);
  if (r.ec != std::errc() || r.ptr != end || e < 0 || e > (1L << 30)) return false;
  h.exp = static_cast<int32_t>((neg_exp ? -e : e) + 4 - first);
  *out = h;
  return true;
}

void append_mpfr_hex(std::string& o, const HexNumber& h) {
  // The printed exponent 4q with q = floor((exp - 1) / 4): the leading digit takes r in [1, 4] bits.
  const long em1 = static_cast<long>(h.exp) - 1;
  const long q = em1 >= 0 ? em1 / 4 : -((-em1 + 3) / 4);
  const int r = static_cast<int>(h.exp - 4 * q);
  static constexpr char kHex[] = "0123456789abcdef";
  char b[96];
  int n = 0;
  if (h.negative) b[n++] = '-';
  b[n++] = '0';
  b[n++] = 'x';
  b[n++] = kHex[h.sig[0] >> (64 - r)];
  int last = 0;  // digits after the point, up to the last non-zero one
  char* frac = b + n + 1;
  for (int d = 0, off = r; off < 256; ++d, off += 4) {
    const unsigned v = nibble(h.sig, off);
    frac[d] = kHex[v];
    if (v) last = d + 1;
  }
  if (last) n += 1 + last, b[n - last - 1] = '.';
  b[n++] = 'p';
  b[n++] = q < 0 ? '-' : '+';
  const auto res = std::to_chars(b + n, b + sizeof b, 4 * (q < 0 ? -q : q));
  o.append(b, static_cast<std::size_t>(res.ptr - b));
}

}  // namespace ds::app
