// The binary case file's encoder and decoder (the layout is docs/tmd.md's "The binary case file";
// every multi-byte integer is little-endian, the f(x) significand most significant byte first).
#include "tmd_case_file.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>

#include "image_io.h"
#include "kernels/core/cpu_parallel.h"
#include "kernels/core/input_file.h"
#include "mpfr_hex.h"

namespace ds::app {
namespace {

constexpr std::size_t kRecordsPerTask = 1 << 16;

void put_le(char* p, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) p[i] = static_cast<char>((v >> (8 * i)) & 0xffu);
}
uint64_t get_le(const char* p, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= uint64_t{static_cast<unsigned char>(p[i])} << (8 * i);
  return v;
}

// Parses `text` into `out`, checking that it prints back the same (else the file would lose it).
void to_bits(const std::string& text, int max_bits, const char* what, const tmd::Case& c, HexNumber* out) {
  thread_local std::string back;  // reused: no allocation per case
  back.clear();
  if (parse_mpfr_hex(text, max_bits, out)) append_mpfr_hex(back, *out);
  if (back != text)
    throw std::runtime_error(std::string("tmd case file: the ") + what + " \"" + text +
                             "\" of the case at index " + std::to_string(c.index) +
                             " is not MPFR's %Ra text of at most " + std::to_string(max_bits) + " bits");
}

void encode_record(char* r, const tmd::Case& c, bool wide) {
  std::memset(r, 0, kTmdCaseRecordBytes);
  put_le(r, c.index, 8);
  if (wide != !c.x_text.empty())
    throw std::runtime_error(
        "tmd case file: a case's argument is not of the search's kind (binary32 or wide)");
  if (wide) {
    HexNumber x;
    to_bits(c.x_text, 64, "argument", c, &x);
    put_le(r + 8, x.sig[0], 8);
    put_le(r + 16, static_cast<uint32_t>(x.exp), 4);
    r[38] = x.negative ? 1 : 0;
  } else {
    put_le(r + 8, c.x, 8);
  }
  put_le(r + 20, static_cast<uint32_t>(c.run), 4);
  uint64_t d;
  std::memcpy(&d, &c.log2_dist, sizeof d);
  put_le(r + 24, d, 8);
  HexNumber fx;
  to_bits(c.fx, 256, "f(x)", c, &fx);
  put_le(r + 32, static_cast<uint32_t>(fx.exp), 4);
  r[36] = c.run_capped ? 1 : 0;
  r[37] = fx.negative ? 1 : 0;
  for (int w = 0; w < 4; ++w)
    for (int i = 0; i < 8; ++i) r[40 + 8 * w + i] = static_cast<char>((fx.sig[w] >> (56 - 8 * i)) & 0xffu);
}

[[noreturn]] void refuse(const std::string& name, const std::string& why) {
  throw TmdCaseFileError("\"" + name + "\" " + why);
}

void decode_record(const char* r, bool wide, const std::string& name, std::size_t i, tmd::Case* c) {
  const auto bad = [&](const char* why) {
    refuse(name, "is damaged: record " + std::to_string(i) + " " + why +
                     " (the checksum agrees, so the writer " + "was not deepscope's)");
  };
  if (static_cast<unsigned char>(r[36]) > 1 || static_cast<unsigned char>(r[37]) > 1 ||
      static_cast<unsigned char>(r[38]) > 1 || r[39] != 0)
    bad("has flags other than 0 or 1");
  c->index = get_le(r, 8);
  const uint64_t arg = get_le(r + 8, 8);
  const int32_t arg_exp = static_cast<int32_t>(get_le(r + 16, 4));
  c->x_text.clear();
  if (wide) {
    if (!(arg >> 63)) bad("has an argument significand without its top bit");
    HexNumber x;
    x.negative = r[38] != 0;
    x.exp = arg_exp;
    x.sig[0] = arg;
    append_mpfr_hex(c->x_text, x);
    c->x = 0;
  } else {
    if (arg >> 32 || arg_exp != 0 || r[38] != 0) bad("has a binary32 argument with bits past 32");
    c->x = static_cast<uint32_t>(arg);
  }
  c->run = static_cast<int32_t>(get_le(r + 20, 4));
  const uint64_t d = get_le(r + 24, 8);
  std::memcpy(&c->log2_dist, &d, sizeof d);
  c->run_capped = r[36] != 0;
  HexNumber fx;
  fx.negative = r[37] != 0;
  fx.exp = static_cast<int32_t>(get_le(r + 32, 4));
  for (int w = 0; w < 4; ++w) fx.sig[w] = __builtin_bswap64(get_le(r + 40 + 8 * w, 8));
  if (!(fx.sig[0] >> 63)) bad("has an f(x) significand without its top bit");
  c->fx.clear();
  append_mpfr_hex(c->fx, fx);
}

}  // namespace

std::string encode_tmd_cases(const TmdCaseHeader& h, const std::vector<tmd::Case>& cases) {
  std::string o(kTmdCaseHeaderBytes + h.json_head.size() + cases.size() * kTmdCaseRecordBytes + 4, '\0');
  char* p = &o[0];
  std::memcpy(p, kTmdCaseFileMagic, 8);
  put_le(p + 8, kTmdCaseFileVersion, 4);
  put_le(p + 12, kTmdCaseRecordBytes, 4);
  p[16] = static_cast<char>(h.search);
  p[17] = static_cast<char>(h.func);
  p[18] = static_cast<char>(h.mode);
  p[19] = h.wide ? 1 : 0;
  put_le(p + 20, static_cast<uint32_t>(h.precision), 4);
  put_le(p + 24, static_cast<uint32_t>(h.k), 4);
  put_le(p + 32, cases.size(), 8);
  put_le(p + 40, h.json_head.size(), 8);
  std::memcpy(p + kTmdCaseHeaderBytes, h.json_head.data(), h.json_head.size());
  char* r = p + kTmdCaseHeaderBytes + h.json_head.size();
  // Records are independent: on all cores (4e6 cases: 1.6 s on one).
  parallel_for(cases.size(), kRecordsPerTask, [&](std::size_t b, std::size_t e) {
    for (std::size_t i = b; i < e; ++i) encode_record(r + i * kTmdCaseRecordBytes, cases[i], h.wide);
  });
  r += cases.size() * kTmdCaseRecordBytes;
  put_le(r, crc32(reinterpret_cast<const unsigned char*>(p), o.size() - 4), 4);
  return o;
}

TmdCases decode_tmd_cases(const std::string& bytes, const std::string& name) {
  const char* p = bytes.data();
  const std::size_t size = bytes.size();
  if (size < 8 || std::memcmp(p, kTmdCaseFileMagic, 8) != 0)
    refuse(name, "is not a deepscope TMD case file (it does not start with the magic \"DSTMDC\\r\\n\")");
  if (size < kTmdCaseHeaderBytes + 4)
    refuse(name, "is truncated: " + std::to_string(size) + " bytes, shorter than a case file's header");
  const uint32_t version = static_cast<uint32_t>(get_le(p + 8, 4));
  if (version != kTmdCaseFileVersion)
    refuse(name, "is a TMD case file of version " + std::to_string(version) +
                     "; this deepscope reads version " + std::to_string(kTmdCaseFileVersion));
  if (get_le(p + 12, 4) != kTmdCaseRecordBytes)
    refuse(name, "is damaged: its records are " + std::to_string(get_le(p + 12, 4)) + " bytes, not " +
                     std::to_string(kTmdCaseRecordBytes));
  const uint64_t n = get_le(p + 32, 8), head = get_le(p + 40, 8);
  // The size the header announces (n and head bounded first, so that nothing overflows).
  const uint64_t room = size - kTmdCaseHeaderBytes - 4;
  if (head > room || n > (room - head) / kTmdCaseRecordBytes) {
    refuse(name, "is truncated: " + std::to_string(size) + " bytes, too few for the " + std::to_string(n) +
                     " cases its header announces");
  }
  const uint64_t want = kTmdCaseHeaderBytes + head + n * kTmdCaseRecordBytes + 4;
  if (want != size)
    refuse(name, "is damaged: " + std::to_string(size) + " bytes where its header announces " +
                     std::to_string(want) + " (" + std::to_string(n) + " cases)");
  const uint32_t crc = static_cast<uint32_t>(get_le(p + size - 4, 4));
  if (crc32(reinterpret_cast<const unsigned char*>(p), size - 4) != crc)
    refuse(name, "is damaged: its CRC-32 does not match its contents");
  TmdCases f;
  TmdCaseHeader& h = f.header;
  h.search = static_cast<uint8_t>(p[16]);
  const auto func = static_cast<unsigned char>(p[17]), mode = static_cast<unsigned char>(p[18]),
             wide = static_cast<unsigned char>(p[19]);
  if (h.search > TmdCaseHeader::kRegular || func > static_cast<unsigned>(tmd::Func::kCos) ||
      mode > static_cast<unsigned>(tmd::Mode::kDirected) || wide > 1 || get_le(p + 28, 4) != 0)
    refuse(name, "is damaged: its header names an unknown search, function, mode or argument kind");
  h.func = static_cast<tmd::Func>(func);
  h.mode = static_cast<tmd::Mode>(mode);
  h.wide = wide != 0;
  h.precision = static_cast<int32_t>(get_le(p + 20, 4));
  h.k = static_cast<int32_t>(get_le(p + 24, 4));
  h.json_head.assign(p + kTmdCaseHeaderBytes, head);
  f.cases.resize(n);
  const char* r = p + kTmdCaseHeaderBytes + head;
  for (std::size_t i = 0; i < n; ++i, r += kTmdCaseRecordBytes)
    decode_record(r, h.wide, name, i, &f.cases[i]);
  return f;
}

TmdCases read_tmd_cases(const std::string& path) {
  return decode_tmd_cases(read_input_file(path, "case file", kNoInputLimit), path);
}

}  // namespace ds::app
