// Internal to the TMD workspace's Lefèvre/regular search (kernels only, includes MPFR): the
// argument set, the per-interval Taylor data and the lower-bound test records.
#pragma once
#include <mpfr.h>

#include <cstdint>
#include <vector>

#include "arith/mpfr_number.h"
#include "lefevre.cuh"
#include "lefevre.h"

namespace ds::tmd::lefevre_detail {

using lb::Frac;

// ds::Mpfr at 320 bits unless told otherwise: the search's scratch arrays and members start here and
// are set to their working precision where they are used.
struct Mp : Mpfr {
  explicit Mp(mpfr_prec_t p = 320) : Mpfr(p) {}
};

// The precision-p arguments 2^E (1 + i 2^(1-p)), i in [i0, i0 + count).
struct Setup {
  int E = 0;
  int p = 24;
  bool bits_mode = true;  // binary32 arguments given as a bit-pattern range (p <= 24)
  uint32_t exp_bits = 0;  // bits mode: biased exponent field << 23
  uint64_t i0 = 0, count = 0;
  uint32_t bits(uint64_t i) const { return exp_bits | static_cast<uint32_t>(i << (24 - p)); }
};

// The Taylor data of one interval: Y(x) = |f(X0 + x h)| / ulp ~ y0 + y1 x + y2 x^2 (fractions mod
// 1), |Y2| and the bound R on the degree-2 remainder, both in ulps.
struct Interval {
  int64_t first = 0;  // index of its first argument (relative to i0)
  int64_t n = 0;      // arguments
  bool direct = false;
  Frac y0, y1, y2;
  double y2_lo = 0, y2_hi = 0;  // bounds on the true (signed) second-order coefficient
  double rem = 0;
};

// A packet of consecutive intervals for the hierarchical method (lefevre_packet.cpp).
struct PacketData {
  lb::Packet packet;
  int64_t first_interval = 0;
  bool direct = false;          // results in two binades: fall back to per-interval polynomials
  double rem = 0;               // bound on |Y - (c_0 + c_1 m + c_2 m^2)| on every interval, in ulps
  double c2_lo = 0, c2_hi = 0;  // bounds on c_2(k) over the packet
};
// The packet of n_intervals intervals of N = 2^L arguments from first_interval (cut at the range's
// end). Each difference pd.packet.d[j][l] is the exact one truncated to 288 fraction bits (mod 1),
// but for an error below 2^-320 before the truncation (so one unit of 2^-288 off where the exact
// one lies within 2^-32 units of a multiple of 2^-288); rem and [c2_lo, c2_hi] bound as in Interval.
PacketData make_packet(const LefevreParams& p, const Setup& s, int64_t first_interval, int64_t n_intervals,
                       int64_t N);
// The count consecutive packets of n_intervals intervals from first_interval, each with
// make_packet's contract (not always its bits: the same bound), sharing their ends (fewer MPFR
// evaluations of f; lefevre_packet.cpp).
std::vector<PacketData> make_packets(const LefevreParams& p, const Setup& s, int64_t first_interval,
                                     int64_t count, int64_t n_intervals, int64_t N);

Setup validate(const LefevreParams& p);

void set_arg(mpfr_ptr X, const Setup& s, uint64_t i);
Interval make_interval(const LefevreParams& p, const Setup& s, int64_t first, int64_t n);

}  // namespace ds::tmd::lefevre_detail
