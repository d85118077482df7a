// `deepscope merge`: joins the chunk files that the shards of a job array wrote (--shard i/n of
// `henon scan` or `tmd`) into the job's chunk file; rerunning the job's command without --shard
// then loads every chunk and writes the outputs, computing only chunks that no shard finished.
#include <iostream>

#include "cli.h"
#include "commands.h"
#include "kernels/core/work.h"

namespace ds::app {

int cmd_merge(const ArgList& argv) {
  cli::Args args(argv, {"out"}, {"quiet"});
  const std::string out = args.require("out");
  const std::vector<std::string>& inputs = args.positional();
  if (inputs.empty()) throw cli::UsageError("merge needs the shards' chunk files after --out FILE");
  for (const std::string& in : inputs)
    if (in == out) throw cli::UsageError("merge: --out must not be one of the inputs (" + out + ")");
  int64_t n = 0;
  try {
    n = work::merge_chunk_files(out, inputs);
  } catch (const std::runtime_error& e) {
    throw cli::UsageError(e.what());  // a missing file or one of another job: bad input
  }
  if (!args.flag("quiet"))
    std::cout << n << " chunks from " << inputs.size() << " files written to " << out
              << "; rerun the job's command without --shard (with --chunk-file " << out
              << " if that is not its default) to write its outputs\n";
  return 0;
}

}  // namespace ds::app
