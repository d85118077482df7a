// Internals of kernels/core/work.cpp shared with its scheduler (work_run.cpp) and its MPI transport
// (work_mpi.cpp), and with the ranks' messages of comm.h (comm_mpi.cpp).
#pragma once
#include <cstdint>
#include <map>
#include <string>

namespace ds::work::detail {

// One chunk record of a chunk file.
std::string record(int64_t c, const std::string& payload);
// The complete records of `text` from `pos` (the body of a chunk file); stops at the first damaged
// one and sets *clean (when given) to whether the whole text was parsed, *stop (when given) to
// where it stopped.
std::map<int64_t, std::string> parse_records(const std::string& text, std::size_t pos, bool* clean,
                                             std::size_t* stop = nullptr);
// The complete records of a chunk file whose first line must be `header` (throws otherwise);
// *exists is false (and nothing is returned) when the file is missing, *clean false when a damaged
// record (a crash mid-append) ended the parse.
std::map<int64_t, std::string> read_chunk_file(const std::string& path, const std::string& header,
                                               bool* exists, bool* clean = nullptr);

// Messages between ranks (MPI point-to-point on MPI_COMM_WORLD, tag = kind).
enum Kind : int { kRequest = 1, kAssign, kResult, kError, kDone, kStop, kBye };
struct Message {
  Kind kind = kRequest;
  int from = 0;
  int64_t chunk = -1;
  std::string text;
};
// Non-blocking: the next message from any rank, if one has arrived.
bool poll(Message* m);
// Blocking send, and blocking receive of the next message from `from`.
void send(int to, const Message& m);
Message receive(int from);
// An MPI call's return code: throws std::runtime_error naming `what` and MPI's message unless it
// is MPI_SUCCESS (work_mpi.cpp; MPI builds only, also for comm_mpi.cpp).
void mpi_check(int rc, const char* what);

}  // namespace ds::work::detail
