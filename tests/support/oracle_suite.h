// The suites of locations with stored MPFR grids (tests/data/oracle/suite.txt for z^2 + c,
// formula-suite.txt for the formulas): one line per location (name, location file under tests/data,
// image size WxH, oracle grid, where it runs), and the grids' .npy arrays.
#pragma once
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "app/io/image_io.h"
#include "test_files.h"

namespace ds::test {

struct OracleSuiteEntry {
  std::string name, location;
  int width = 0, height = 0, grid = 0;
  bool cpu = false;  // "cpu": every CI run; otherwise the suite's long or deep runs
};

// Test names and ctest's list show the entry's name, not its bytes.
inline void PrintTo(const OracleSuiteEntry& e, std::ostream* os) { *os << e.name; }

// The entries of `path`; a line that does not parse, or whose place is not one of `places`, fails
// the test and is left out.
inline std::vector<OracleSuiteEntry> read_oracle_suite(const std::string& path,
                                                       const std::vector<std::string>& places) {
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << "no " << path;
  std::vector<OracleSuiteEntry> out;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ss(line);
    OracleSuiteEntry e;
    std::string where;
    char x = 0;
    ss >> e.name >> e.location >> e.width >> x >> e.height >> e.grid >> where;
    bool known = false;
    for (const std::string& p : places) known = known || where == p;
    if (ss.fail() || !known) {
      ADD_FAILURE() << "malformed line in " << path << ": " << line;
      continue;
    }
    e.cpu = where == "cpu";
    out.push_back(e);
  }
  return out;
}

// A .npy array written by encode_npy (image_io's decode_npy): its `expect` elements.
template <class T>
std::vector<T> load_npy(const std::string& path, size_t expect) {
  int rows = 0, cols = 0;
  std::string data;
  const bool ok = app::decode_npy(slurp(path), sizeof(T), &rows, &cols, &data);
  EXPECT_TRUE(ok) << path;
  EXPECT_EQ(static_cast<size_t>(rows) * cols, expect) << path;
  if (!ok || data.size() != expect * sizeof(T)) return {};
  std::vector<T> v(expect);
  std::memcpy(v.data(), data.data(), data.size());
  return v;
}

}  // namespace ds::test
