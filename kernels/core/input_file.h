// Reading an input file whole, the one way every reader of user-named files does it (locations,
// palettes, shaders, scripts, chunk files, case files): only a regular file is read, never a
// directory, FIFO, device or socket (/dev/zero would never end), and a file over the reader's size
// limit is refused before it is read. Every refusal is an IoError naming the file and the reason.
#pragma once
#include <cstdint>
#include <string>

#include "atomic_file.h"

namespace ds {

// The limit for small text inputs: location files, palettes, shaders, scripts.
constexpr uint64_t kMaxTextInputBytes = uint64_t{16} << 20;  // 16 MiB
// The limit for a PNG read for the location in its text chunk (a large render is tens of MiB).
constexpr uint64_t kMaxPngInputBytes = uint64_t{1} << 30;  // 1 GiB
// No limit beyond the regular-file test (chunk files, whose size the job decides).
constexpr uint64_t kNoInputLimit = UINT64_MAX;

// Reads `path` whole. `what` names the input in messages ("location", "palette", "chunk file").
// Throws IoError: "cannot read WHAT "PATH": <OS error>", "WHAT "PATH" is a directory",
// "WHAT "PATH" is not a regular file (a FIFO)", "WHAT "PATH" is N bytes, over the 16 MiB limit".
std::string read_input_file(const std::string& path, const std::string& what, uint64_t max_bytes);

// The first `n` bytes of `path` (fewer if it is shorter), with the same refusals but no size
// limit: for telling formats apart before choosing the limit.
std::string read_input_head(const std::string& path, const std::string& what, std::size_t n);

// "16 MiB", "1 GiB", "512 bytes": a limit as the messages write it.
std::string byte_size_name(uint64_t bytes);

}  // namespace ds
