// Atomic file output through a temporary file and rename(2).
#include "atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace ds {

static std::string dir_of(const std::string& path) {
  size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

void check_writable(const std::string& path) {
  if (path.empty()) throw IoError("empty output path");
  std::string dir = dir_of(path);
  if (access(dir.c_str(), W_OK | X_OK) != 0) {
    const int e = errno;
    // A FIFO or file where the folder should be: EACCES ("Permission denied") would mislead.
    struct stat d {};
    if (::stat(dir.c_str(), &d) == 0 && !S_ISDIR(d.st_mode))
      throw IoError("cannot write \"" + path + "\": \"" + dir + "\" is not a directory");
    throw IoError("cannot write \"" + path + "\": directory \"" + dir + "\": " + std::strerror(e));
  }
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    // rename(2) cannot put a file where a directory is, and must never replace a device or FIFO.
    if (S_ISDIR(st.st_mode)) throw IoError("cannot write \"" + path + "\": it is a directory");
    if (!S_ISREG(st.st_mode)) throw IoError("cannot write \"" + path + "\": it is not a regular file");
    if (access(path.c_str(), W_OK) != 0)
      throw IoError("cannot write \"" + path + "\": " + std::strerror(errno));
  } else if (path.back() == '/') {
    throw IoError("cannot write \"" + path + "\": a file name cannot end in '/'");
  }
}

void check_outputs(const std::vector<std::string>& paths) {
  for (size_t i = 0; i < paths.size(); ++i) {
    if (paths[i].empty()) continue;
    check_writable(paths[i]);
    for (size_t k = 0; k < i; ++k)
      if (paths[k] == paths[i])
        throw IoError("\"" + paths[i] + "\" is named for two of this command's outputs");
  }
}

void write_file_atomically(const std::string& path, const std::string& data) {
  check_writable(path);
  std::string tmp = path + ".tmp-XXXXXX";
  int fd = mkstemp(&tmp[0]);
  if (fd < 0) throw IoError("cannot create a temporary file for \"" + path + "\": " + std::strerror(errno));
  const char* p = data.data();
  size_t left = data.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      int e = errno;
      ::close(fd);
      ::unlink(tmp.c_str());
      throw IoError("cannot write \"" + path + "\": " + std::strerror(e));
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
  if (::fchmod(fd, 0644) != 0 || ::fsync(fd) != 0 || ::close(fd) != 0) {
    int e = errno;
    ::unlink(tmp.c_str());
    throw IoError("cannot finish \"" + path + "\": " + std::strerror(e));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    int e = errno;
    ::unlink(tmp.c_str());
    throw IoError("cannot rename the temporary file onto \"" + path + "\": " + std::strerror(e));
  }
}

void append_durable(const std::string& path, const std::string& data) {
  FILE* f = std::fopen(path.c_str(), "ab");
  if (!f) throw IoError("cannot append to \"" + path + "\": " + std::strerror(errno));
  const bool ok = std::fwrite(data.data(), 1, data.size(), f) == data.size() && std::fflush(f) == 0 &&
                  ::fsync(fileno(f)) == 0;
  const int e = errno;
  std::fclose(f);
  if (!ok) throw IoError("cannot append to \"" + path + "\": " + std::strerror(e));
}

}  // namespace ds
