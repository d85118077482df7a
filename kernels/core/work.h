// Scale-out of the chunked batch jobs (Hénon scans, TMD searches, frame sequences and tiled
// renders). A job is a count of chunks and a function that computes one chunk into a payload (any
// bytes); run() hands the chunks this process owns to its workers (every CUDA device given, or
// the CPU) dynamically, and, under mpirun, to the workers of every rank through rank 0. The writer
// (rank 0, or the only process) receives every finished chunk's payload, one at a time, and keeps
// the resume file: a finished chunk is appended as soon as it arrives, and a restart loads it
// instead of computing it again. Shards (--shard i/n) split the chunks between independent
// processes (job arrays) that write their own chunk files; merge_chunk_files joins them.
//
// Chunk file: its first line is the job's header (a magic word and the job's parameters), then
// records "chunk C N\n" + N payload bytes + "end C\n". A record cut short by a crash is dropped on
// load; a file whose header differs belongs to another job and is refused.
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "backend.h"

namespace ds::work {

// Something that computes chunks: one CUDA device (several workers may share one device, which is
// how one GPU is split into logical devices), or all cores of this machine.
struct Worker {
  Backend backend = Backend::kCpu;
  int device = -1;            // CUDA device index for kCuda
  std::string label() const;  // "cpu" or "cuda:N"
};

// The workers for a resolved backend. kCpu: one CPU worker (a --devices list is refused). kCuda:
// one worker per device of `devices` ("0,2"; "0-3"; a device may repeat, "0,0" splits device 0
// into two logical devices; "all": every visible device). "": every visible device, except that
// when mpirun starts several ranks on one host, they share its devices round-robin by local rank. Throws
// std::invalid_argument for a malformed list or a device that does not exist.
std::vector<Worker> workers(Backend resolved, const std::string& devices);

// Chunk c belongs to shard index when c % count == index.
struct Shard {
  int64_t index = 0, count = 1;
  bool owns(int64_t c) const { return c % count == index; }
  bool whole() const { return count == 1; }
};
// "i/n" with 0 <= i < n <= 1e6; throws std::invalid_argument naming the problem.
Shard parse_shard(const std::string& s);

// This process under MPI: rank and size (0 and 1 without MPI, or when not started by mpirun).
// The first call, from the main thread, initialises MPI when a launcher started the process.
int rank();
int size();
inline bool is_writer() { return rank() == 0; }
// Whether this build can run under MPI, and the library's version ("" without MPI).
bool built_with_mpi();
std::string mpi_version();
// Ends MPI at exit: finalises after a clean run (code 0); aborts the whole job otherwise, so that
// other ranks waiting for this one do not hang. No-op without MPI. Called by main.
void finish(int code);

struct Job {
  int64_t chunks = 0;
  // Relative amount of work in chunk c, for progress (null: equal chunks).
  std::function<double(int64_t)> weight;
  // Chunks finished by other means (a frame whose file is already there): skipped and counted as
  // loaded, without a take() call. Null: none. Writer only.
  std::function<bool(int64_t)> already_done;
  std::string chunk_file;  // resume file (empty: none); used by the writer only
  std::string header;      // its first line (no newline): "deepscope-JOB ..." (merge checks the prefix)
  Shard shard;
  std::vector<Worker> workers;                // at least one
  const std::atomic<bool>* cancel = nullptr;  // stop handing out chunks; running ones are told to stop
  std::function<void(double)> progress;       // writer: fraction of the owned work done (loaded included)
  // Computes chunk c on worker w, from one thread per worker (w's CUDA device is current on that
  // thread). Polls `stop`, and returns false when it stopped before finishing; `part` reports the
  // fraction of this chunk done. An exception stops the job and is rethrown by run() (on the
  // writer, with the rank that raised it named).
  std::function<bool(int64_t c, const Worker& w, const std::atomic<bool>& stop,
                     const std::function<void(double)>& part, std::string* payload)>
      compute;
  // Writer only, one call at a time, in completion order: a finished chunk, loaded from the chunk
  // file (loaded = true) or computed here or on another rank. It has been appended to the chunk
  // file before this call. An exception stops the job and is rethrown by run().
  std::function<void(int64_t c, const std::string& payload, bool loaded)> take;
};

struct Stats {
  int64_t chunks = 0;  // in the job
  int64_t owned = 0;   // in this shard
  int64_t loaded = 0;  // owned chunks found in the chunk file
  int64_t run = 0;     // chunks computed by this run (every rank)
  bool cancelled = false;
  double seconds = 0;
  // Chunks computed per worker, labelled "cuda:0" or, under MPI, "rank 1 cuda:0" (writer: all ranks).
  std::vector<std::pair<std::string, int64_t>> per_worker;
  bool complete() const { return loaded + run == owned; }
};

// A worker thread the machine would not start (ulimit -u, no memory for its stack): the options asked
// for more workers than it gives, which the CLI reports as bad input (exit 2).
struct WorkerStartError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Runs the job. Throws WorkerStartError when a worker's thread cannot start, IoError for a chunk file of another job or one that is not a regular
// file (a directory, a device), and for other file errors; rethrows a compute or take error once
// the other workers have stopped.
Stats run(const Job& job);

// What run() checks of the chunk file before any chunk, for the commands that validate every input
// before they print or compute anything: a missing (or empty) path passes; an existing one must be
// a regular file that begins with the line `header`. Throws IoError as run() does.
void check_chunk_file(const std::string& path, const std::string& header);

// Joins the chunk files of one job (each must begin with the same header) into `out`, written
// atomically: every complete record once, the first copy of a chunk kept. Returns the number of
// distinct chunks in `out`. Throws IoError naming an input that is not a chunk file (its first
// line is not a "deepscope-..." job header), one of another job, or an unreadable file, and an
// unwritable `out` before reading any input.
int64_t merge_chunk_files(const std::string& out, const std::vector<std::string>& inputs);

// Where a job runs, as the batch commands take it: --devices and --shard.
struct Placement {
  std::string devices;  // as workers() takes it
  Shard shard;
};

// The default chunk file of a shard: "PATH" for the whole job, "PATH.shard-I-of-N" otherwise.
std::string shard_chunk_file(const std::string& path, const Shard& s);

}  // namespace ds::work
