// Whole-or-nothing file output: data goes to a temporary file beside the target, which is renamed
// over it only after every byte was written and flushed; and durable appends for resume files.
// Shared by the kernel families' chunk files and the front ends' outputs.
#pragma once
#include <stdexcept>
#include <string>
#include <vector>

namespace ds {

struct IoError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Writes `data` to `path` atomically. Throws IoError (naming the path and the OS error) on any
// failure, leaving no partial file and no temporary behind.
void write_file_atomically(const std::string& path, const std::string& data);

// Appends `data` to `path` (created if missing) and fsyncs it, so that a resume file's finished
// records survive a crash. Throws IoError.
void append_durable(const std::string& path, const std::string& data);

// Throws IoError if `path` could not be created by write_file_atomically, before any expensive
// work starts: a missing or unwritable directory, a path that is a directory or another
// non-regular file (a device, a FIFO), or that ends in '/'. Every command checks each output
// path it will write with this before it computes anything.
void check_writable(const std::string& path);
// check_writable for each non-empty path of one command's outputs, which must also differ from
// each other (two outputs written to one file would leave only the second).
void check_outputs(const std::vector<std::string>& paths);

}  // namespace ds
