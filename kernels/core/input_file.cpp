// Whole-file input with the regular-file test and a size limit (input_file.h).
#include "input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>

namespace ds {

namespace {

std::string quoted(const std::string& what, const std::string& path) { return what + " \"" + path + "\""; }

const char* kind_of(mode_t m) {
  if (S_ISFIFO(m)) return "a FIFO";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISSOCK(m)) return "a socket";
  return "not a plain file";
}

// Opens `path` for reading, refusing anything but a regular file. O_NONBLOCK: opening a FIFO
// without a writer would otherwise wait forever before fstat could refuse it.
int open_regular(const std::string& path, const std::string& what, struct stat* st) {
  if (path.empty()) throw IoError(what + ": empty file name");
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    const int e = errno;
    if (e == EISDIR) throw IoError(quoted(what, path) + " is a directory, not a file");
    throw IoError("cannot read " + quoted(what, path) + ": " + std::strerror(e));
  }
  if (::fstat(fd, st) != 0) {
    const int e = errno;
    ::close(fd);
    throw IoError("cannot read " + quoted(what, path) + ": " + std::strerror(e));
  }
  if (!S_ISREG(st->st_mode)) {
    ::close(fd);
    if (S_ISDIR(st->st_mode)) throw IoError(quoted(what, path) + " is a directory, not a file");
    throw IoError(quoted(what, path) + " is not a regular file (" + kind_of(st->st_mode) + ")");
  }
  return fd;
}

// Reads up to `n` bytes from `fd` (fewer at the end of the file). Closes `fd` on error.
std::string read_up_to(int fd, std::size_t n, const std::string& what, const std::string& path) {
  std::string out;
  char buf[1 << 16];
  while (out.size() < n) {
    const std::size_t want = std::min(sizeof buf, n - out.size());
    const ssize_t got = ::read(fd, buf, want);
    if (got < 0) {
      if (errno == EINTR) continue;
      const int e = errno;
      ::close(fd);
      throw IoError("cannot read " + quoted(what, path) + ": " + std::strerror(e));
    }
    if (got == 0) break;
    out.append(buf, static_cast<std::size_t>(got));
  }
  return out;
}

}  // namespace

std::string byte_size_name(uint64_t bytes) {
  const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (u < 4 && bytes >= 1024 && bytes % 1024 == 0) {
    bytes /= 1024;
    ++u;
  }
  return std::to_string(bytes) + " " + units[u];
}

std::string read_input_file(const std::string& path, const std::string& what, uint64_t max_bytes) {
  struct stat st {};
  const int fd = open_regular(path, what, &st);
  auto too_big = [&](const std::string& size) {
    return IoError(quoted(what, path) + " is " + size + ", over the " + byte_size_name(max_bytes) +
                   " limit for " + what + " files");
  };
  if (static_cast<uint64_t>(st.st_size) > max_bytes) {
    ::close(fd);
    throw too_big(std::to_string(st.st_size) + " bytes");
  }
  // The file may grow while it is read: read one byte past the limit to notice.
  const std::size_t cap = max_bytes >= SIZE_MAX ? SIZE_MAX - 1 : static_cast<std::size_t>(max_bytes);
  std::string data = read_up_to(fd, cap + 1, what, path);
  ::close(fd);
  if (data.size() > cap) throw too_big("more than " + std::to_string(cap) + " bytes");
  return data;
}

std::string read_input_head(const std::string& path, const std::string& what, std::size_t n) {
  struct stat st {};
  const int fd = open_regular(path, what, &st);
  std::string head = read_up_to(fd, n, what, path);
  ::close(fd);
  return head;
}

}  // namespace ds
