// `deepscope tmd export FILE.tmdc --csv OUT.csv [--json OUT.json]`: a binary case file's cases as
// the CSV and JSON that the search writes with --out OUT.csv, byte for byte (the file keeps the
// JSON's head, and every field of every case exactly). A file that is not a case file, of another
// version, truncated or damaged is refused (exit 2) with nothing written.
#include <cstdio>
#include <iostream>

#include "app/io/tmd_case_file.h"
#include "cli.h"
#include "commands.h"
#include "kernels/core/atomic_file.h"
#include "kernels/tmd/tmd.h"

namespace ds::app {

int cmd_tmd_export(const ArgList& argv) {
  cli::Args args(argv, {"csv", "json"}, {"quiet"});
  if (args.positional().size() != 1)
    throw cli::UsageError(
        "tmd export takes one binary case file (FILE.tmdc), then --csv OUT.csv and/or --json "
        "OUT.json");
  const std::string in = args.positional()[0], csv = args.get("csv", ""), json = args.get("json", "");
  if (csv.empty() && json.empty())
    throw cli::UsageError("tmd export needs --csv OUT.csv, --json OUT.json or both");
  if (!csv.empty()) check_writable(csv);
  if (!json.empty()) check_writable(json);
  const TmdCases f = read_tmd_cases(in);
  if (!csv.empty()) write_file_atomically(csv, tmd::cases_csv(f.cases));
  if (!json.empty()) write_file_atomically(json, tmd::json_with_cases(f.header.json_head, f.cases, true));
  if (!args.flag("quiet"))
    std::cout << f.cases.size() << " cases (" << tmd::func_name(f.header.func) << ", "
              << tmd::mode_name(f.header.mode) << ", p = " << f.header.precision << ", k = " << f.header.k
              << ") from " << in << "; wrote " << csv << (csv.empty() || json.empty() ? "" : " and ") << json
              << "\n";
  return 0;
}

}  // namespace ds::app
