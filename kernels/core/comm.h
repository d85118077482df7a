// Point-to-point messages between the ranks of a decomposed computation (kernels/drift/md_ranks.cpp),
// and the few collectives it needs, built on them: MPI_COMM_WORLD under mpirun, or ranks that are
// threads of one process (tests). Every rank calls the collectives in the same order.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

namespace ds::work {

using Bytes = std::vector<char>;

class Comm {
 public:
  struct Out {
    int to = 0, tag = 0;
    Bytes bytes;
  };
  struct In {
    int from = 0, tag = 0;
  };
  virtual ~Comm() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // Sends every message of `out` (without waiting for its receiver), then receives one message for
  // each entry of `in`, in order, and returns them; returns once the sends have completed too.
  // Messages from one rank with one tag arrive in the order they were sent. Throws
  // std::runtime_error when the transport fails.
  virtual std::vector<Bytes> exchange(const std::vector<Out>& out, const std::vector<In>& in) = 0;
};

// Tags below kCommTagBase are the work scheduler's (work_internal.h); the collectives use the top.
constexpr int kCommTagBase = 1000;

// Collectives over point-to-point messages through rank 0 (2 (size - 1) messages each).
bool any_rank(Comm& c, bool mine);                              // logical or over the ranks
std::vector<Bytes> gather_to_root(Comm& c, const Bytes& mine);  // rank 0: every rank's, in rank order
Bytes broadcast_from_root(Comm& c, const Bytes& root_bytes);    // every rank: rank 0's bytes

// This process's MPI_COMM_WORLD (one rank without MPI or outside mpirun). MPI starts on the first
// call of work::rank(), from the main thread (main.cpp); the engine calls this from that thread only.
Comm& world_comm();
// n ranks in this process, to be driven by n threads (one each): the tests' stand-in for mpirun.
std::vector<std::unique_ptr<Comm>> local_comms(int n);

}  // namespace ds::work
