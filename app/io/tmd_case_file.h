// The TMD searches' binary case file (.tmdc, docs/tmd.md "The binary case file"): a header with
// the search's parameters and counts (the JSON's head, kept as text so that the JSON comes back
// byte for byte), then one fixed-size record per case with every field as binary, and a CRC-32.
// `deepscope tmd exhaustive|lefevre|regular --out FILE.tmdc` writes it; `deepscope tmd export`
// turns it into the CSV and JSON that `--out FILE.csv` would have written.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/core/atomic_file.h"
#include "kernels/tmd/tmd.h"

namespace ds::app {

constexpr char kTmdCaseFileMagic[8] = {'D', 'S', 'T', 'M', 'D', 'C', '\r', '\n'};
constexpr uint32_t kTmdCaseFileVersion = 1;
constexpr std::size_t kTmdCaseHeaderBytes = 48, kTmdCaseRecordBytes = 72;

// A file that is not a case file, another version, truncated or damaged: exit code 2 (an IoError).
struct TmdCaseFileError : IoError {
  using IoError::IoError;
};

struct TmdCaseHeader {
  enum Search : uint8_t { kExhaustive = 0, kLefevre = 1, kRegular = 2 };
  uint8_t search = kExhaustive;
  tmd::Func func = tmd::Func::kExp2;
  tmd::Mode mode = tmd::Mode::kNearest;
  // Arguments as binary32 bit patterns (Case::x), or wide (Case::x_text: a real range at
  // precision up to 64, stored as a 64-bit significand and an exponent).
  bool wide = false;
  int32_t precision = 24, k = 20;
  std::string json_head;  // tmd::exhaustive_json_head or tmd::lefevre_json_head
};

// The file's bytes. Throws std::runtime_error if a case does not fit the format (an argument or
// f(x) whose text is not MPFR's "%Ra" of at most 64 or 256 bits, or the wrong argument kind):
// every field is checked to print back to the case's text, so the file loses nothing.
std::string encode_tmd_cases(const TmdCaseHeader& h, const std::vector<tmd::Case>& cases);

struct TmdCases {
  TmdCaseHeader header;
  std::vector<tmd::Case> cases;
};
// Reads the bytes of the file `name` (named in messages). Throws TmdCaseFileError saying what is
// wrong: not a case file (magic), an unknown version, truncated or with bytes past its end, a
// checksum that disagrees (damaged), or a record with impossible fields.
TmdCases decode_tmd_cases(const std::string& bytes, const std::string& name);
// decode_tmd_cases of the file at `path` (IoError when it cannot be read).
TmdCases read_tmd_cases(const std::string& path);

}  // namespace ds::app
