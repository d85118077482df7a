// The checkpoint file of `deepscope drift md` (PREFIX.ckpt, docs/drift.md "Checkpoints"): one run's
// MdCheckpoint with the parameters' fingerprint, the precision and the seed it belongs to, as bytes
// with a checksum, and back.
#pragma once
#include <cstdint>
#include <string>

#include "drift.h"

namespace ds::drift {

struct MdCheckpointFile {
  std::string fingerprint;  // every parameter but the precision and the seed (one line)
  Precision precision = Precision::kDouble;
  uint64_t seed = 0;
  MdCheckpoint state;
};

// A text line naming the format, the fingerprint's line, then binary fields in the host's byte
// order (little-endian on every host deepscope builds for) and an FNV-1a checksum of all before it.
std::string checkpoint_file_bytes(const MdCheckpointFile& f);
// Throws std::invalid_argument saying what is wrong (not a checkpoint, truncated, checksum, counts)
// for anything checkpoint_file_bytes did not write.
MdCheckpointFile parse_checkpoint_file(const std::string& bytes);

}  // namespace ds::drift
