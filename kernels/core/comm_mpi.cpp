// world_comm() of comm.h: MPI_COMM_WORLD through nonblocking sends and probed receives, or, without
// MPI (or outside mpirun), a single rank.
#include <climits>
#include <stdexcept>
#include <string>

#include "comm.h"
#include "work.h"
#include "work_internal.h"

#ifdef DEEPSCOPE_WITH_MPI
#include <mpi.h>
#endif

namespace ds::work {

namespace {

#ifdef DEEPSCOPE_WITH_MPI
using detail::mpi_check;
#endif

class WorldComm final : public Comm {
 public:
  int rank() const override { return work::rank(); }
  int size() const override { return work::size(); }
  std::vector<Bytes> exchange(const std::vector<Out>& out, const std::vector<In>& in) override {
#ifdef DEEPSCOPE_WITH_MPI
    if (work::size() > 1) {
      // Nonblocking sends first, so that two ranks sending to each other never wait on each other;
      // each receive learns its size from a probe of that sender and tag.
      std::vector<MPI_Request> req(out.size());
      for (std::size_t k = 0; k < out.size(); ++k) {
        if (out[k].bytes.size() > static_cast<std::size_t>(INT_MAX))
          throw std::runtime_error("a message of " + std::to_string(out[k].bytes.size()) +
                                   " bytes is too large for one MPI message");
        mpi_check(MPI_Isend(out[k].bytes.data(), static_cast<int>(out[k].bytes.size()), MPI_BYTE, out[k].to,
                        out[k].tag, MPI_COMM_WORLD, &req[k]),
              "MPI_Isend");
      }
      std::vector<Bytes> got;
      for (const In& i : in) {
        MPI_Status st;
        mpi_check(MPI_Probe(i.from, i.tag, MPI_COMM_WORLD, &st), "MPI_Probe");
        int n = 0;
        MPI_Get_count(&st, MPI_BYTE, &n);
        Bytes b(static_cast<std::size_t>(n));
        mpi_check(MPI_Recv(b.data(), n, MPI_BYTE, i.from, i.tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "MPI_Recv");
        got.push_back(std::move(b));
      }
      if (!req.empty())
        mpi_check(MPI_Waitall(static_cast<int>(req.size()), req.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
      return got;
    }
#endif
    // One rank: only messages to itself, delivered at once.
    std::vector<Bytes> got;
    std::vector<bool> used(out.size(), false);
    for (const In& i : in) {
      bool found = false;
      for (std::size_t k = 0; k < out.size() && !found; ++k)
        if (!used[k] && out[k].to == 0 && i.from == 0 && out[k].tag == i.tag) {
          used[k] = found = true;
          got.push_back(out[k].bytes);
        }
      if (!found) throw std::runtime_error("world_comm: a receive with no sender (one rank)");
    }
    return got;
  }
};

}  // namespace

Comm& world_comm() {
  static WorldComm c;
  return c;
}

}  // namespace ds::work
