// Scale-out of chunked batch jobs: worker lists, shards, the chunk file, and the scheduler that
// feeds this process's workers (and, under MPI, the other ranks' through work_mpi.cpp).
#include "work.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <exception>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

#include "atomic_file.h"
#include "device.h"
#include "input_file.h"
#include "work_internal.h"

namespace ds::work {

std::string Worker::label() const {
  return backend == Backend::kCuda ? "cuda:" + std::to_string(device) : std::string("cpu");
}

namespace {

int64_t parse_index(const std::string& what, const std::string& s) {
  if (s.empty() || s.size() > 9 || s.find_first_not_of("0123456789") != std::string::npos)
    throw std::invalid_argument(what + ": \"" + s + "\" is not a non-negative integer");
  return std::stoll(s);
}

// This process's rank among the ranks on its host, from the launcher's environment (Open MPI,
// MPICH/Hydra, Slurm); 0 of 1 when not launched by one.
void local_rank(int* rank, int* ranks) {
  *rank = 0;
  *ranks = 1;
  const char* pairs[][2] = {{"OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE"},
                            {"MPI_LOCALRANKID", "MPI_LOCALNRANKS"},
                            {"SLURM_LOCALID", "SLURM_NTASKS_PER_NODE"}};
  if (size() <= 1) return;
  for (const auto& p : pairs) {
    const char* r = std::getenv(p[0]);
    const char* n = std::getenv(p[1]);
    if (r && n && std::atoi(n) > 0) {
      *rank = std::atoi(r);
      *ranks = std::atoi(n);
      return;
    }
  }
}

}  // namespace

std::vector<Worker> workers(Backend resolved, const std::string& devices) {
  if (resolved == Backend::kAuto) throw std::invalid_argument("workers: resolve the backend first");
  if (resolved == Backend::kCpu) {
    if (!devices.empty() && devices != "all")
      throw std::invalid_argument(
          "--devices selects CUDA devices; the job runs on the CPU (--backend cuda to use them)");
    return {Worker{}};
  }
  const int n = cuda_device_count();
  std::vector<Worker> out;
  if (devices.empty() || devices == "all") {
    // Several ranks on one host share its devices round-robin by local rank (device i goes to
    // local rank i % ranks); one rank per host takes them all.
    int local = 0, locals = 1;
    local_rank(&local, &locals);
    for (int i = 0; i < n; ++i)
      if (devices == "all" || locals <= 1 || n < locals || i % locals == local)
        out.push_back(Worker{Backend::kCuda, i});
    if (out.empty())
      for (int i = 0; i < n; ++i) out.push_back(Worker{Backend::kCuda, i});
  } else {
    std::istringstream in(devices);
    std::string part;
    while (std::getline(in, part, ',')) {
      const std::size_t dash = part.find('-');
      int64_t lo, hi;
      if (dash == std::string::npos) {
        lo = hi = parse_index("--devices", part);
      } else {
        lo = parse_index("--devices", part.substr(0, dash));
        hi = parse_index("--devices", part.substr(dash + 1));
        if (hi < lo) throw std::invalid_argument("--devices: reversed range \"" + part + "\"");
      }
      for (int64_t d = lo; d <= hi; ++d) {
        if (d >= n)
          throw std::invalid_argument(
              "--devices: no CUDA device " + std::to_string(d) + " (this machine has " + std::to_string(n) +
              (n == 1 ? " device, 0)" : " devices, 0 to " + std::to_string(n - 1) + ")"));
        out.push_back(Worker{Backend::kCuda, static_cast<int>(d)});
      }
    }
    if (devices.back() == ',') throw std::invalid_argument("--devices: empty entry in \"" + devices + "\"");
  }
  if (out.empty()) throw std::invalid_argument("--devices \"" + devices + "\" selects no CUDA device");
  if (out.size() > 256) throw std::invalid_argument("--devices: at most 256 workers");
  return out;
}

Shard parse_shard(const std::string& s) {
  const std::size_t slash = s.find('/');
  if (slash == std::string::npos)
    throw std::invalid_argument("--shard expects i/n (e.g. 0/4), got \"" + s + "\"");
  Shard sh;
  sh.index = parse_index("--shard", s.substr(0, slash));
  sh.count = parse_index("--shard", s.substr(slash + 1));
  if (sh.count < 1 || sh.count > 1'000'000) throw std::invalid_argument("--shard: n must be in [1, 1000000]");
  if (sh.index >= sh.count) throw std::invalid_argument("--shard: i must be in [0, n - 1], got " + s);
  return sh;
}

std::string shard_chunk_file(const std::string& path, const Shard& s) {
  if (path.empty() || s.whole()) return path;
  return path + ".shard-" + std::to_string(s.index) + "-of-" + std::to_string(s.count);
}

namespace detail {

std::string record(int64_t c, const std::string& payload) {
  std::string r = "chunk " + std::to_string(c) + " " + std::to_string(payload.size()) + "\n";
  r += payload;
  r += "end " + std::to_string(c) + "\n";
  return r;
}

// Parses the complete records of `text` from `pos`; stops at the first damaged one, and says
// whether the whole text was parsed.
std::map<int64_t, std::string> parse_records(const std::string& text, std::size_t pos, bool* clean,
                                             std::size_t* stop) {
  std::map<int64_t, std::string> out;
  while (pos < text.size()) {
    const std::size_t eol = text.find('\n', pos);
    if (eol == std::string::npos) break;
    long long c = -1;
    unsigned long long n = 0;
    char tail = 0;
    const std::string head = text.substr(pos, eol - pos);
    if (std::sscanf(head.c_str(), "chunk %lld %llu%c", &c, &n, &tail) != 2 || c < 0) break;
    const std::size_t body = eol + 1;
    if (n > text.size() - body) break;
    const std::string end = "end " + std::to_string(c) + "\n";
    if (text.compare(body + n, end.size(), end) != 0) break;
    out.emplace(c, text.substr(body, n));  // the first copy of a chunk wins
    pos = body + n + end.size();
  }
  if (clean) *clean = pos >= text.size();
  if (stop) *stop = pos;
  return out;
}

// Throws IoError unless `text` (a chunk file's start, or all of it) begins with the line `header`;
// returns where the records begin.
std::size_t check_header(const std::string& path, const std::string& text, const std::string& header) {
  const std::size_t eol = text.find('\n');
  const std::string first = text.substr(0, eol);
  if (eol == std::string::npos || first != header)
    throw IoError("chunk file " + path + " belongs to a different job (its first line is \"" +
                  first.substr(0, 200) + "\", this job's is \"" + header.substr(0, 200) +
                  "\"); remove it or choose another chunk file");
  return eol + 1;
}

std::map<int64_t, std::string> read_chunk_file(const std::string& path, const std::string& header,
                                               bool* exists, bool* clean) {
  // A missing file is a new job; anything else that is not a readable regular file is refused.
  struct stat st {};
  *exists = ::stat(path.c_str(), &st) == 0 || errno != ENOENT;
  if (!*exists) return {};
  const std::string text = read_input_file(path, "chunk file", kNoInputLimit);
  return parse_records(text, check_header(path, text, header), clean);
}

}  // namespace detail

void check_chunk_file(const std::string& path, const std::string& header) {
  struct stat st {};
  if (path.empty() || (::stat(path.c_str(), &st) != 0 && errno == ENOENT)) return;
  (void)detail::check_header(path, read_input_head(path, "chunk file", header.size() + 1), header);
}

int64_t merge_chunk_files(const std::string& out, const std::vector<std::string>& inputs) {
  if (inputs.empty()) throw std::invalid_argument("merge: no chunk files given");
  check_writable(out);
  std::string header;
  std::map<int64_t, std::string> all;
  for (const std::string& path : inputs) {
    const std::string text = read_input_file(path, "chunk file", kNoInputLimit);
    const std::size_t eol = text.find('\n');
    const std::string first = text.substr(0, eol);
    // Every job's header starts with its magic word, "deepscope-..." (work.h).
    if (eol == std::string::npos || first.compare(0, 10, "deepscope-") != 0 ||
        first.find_first_of(std::string("\0\r", 2)) != std::string::npos)
      throw IoError("merge: " + path +
                    " is not a chunk file (its first line is not a deepscope job's header)");
    if (header.empty()) header = first;
    if (first != header)
      throw IoError("merge: " + path + " belongs to a different job than " + inputs.front() +
                    " (their first lines differ)");
    // Records up to, at most, one cut short at the end (a crash mid-append, dropped as run() drops
    // it); anything else after the header is damage, not to be merged around.
    bool clean = true;
    std::size_t stop = 0;
    std::map<int64_t, std::string> recs = detail::parse_records(text, eol + 1, &clean, &stop);
    const std::string tail = text.substr(stop, 6);
    if (!clean && tail.compare(0, 6, "chunk ") != 0 &&
        std::string("chunk ").compare(0, tail.size(), tail) != 0)
      throw IoError("merge: " + path + " is damaged at byte " + std::to_string(stop) +
                    " (not a chunk record); it cannot be merged");
    for (auto& kv : recs) all.emplace(kv.first, std::move(kv.second));
  }
  std::string text = header + "\n";
  for (const auto& kv : all) text += detail::record(kv.first, kv.second);
  write_file_atomically(out, text);
  return static_cast<int64_t>(all.size());
}

}  // namespace ds::work
