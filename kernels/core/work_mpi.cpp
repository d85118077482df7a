// The MPI side of kernels/core/work.h: start-up when a launcher started this process, rank and size,
// the point-to-point messages of the scheduler, and the end of the job. Without MPI (or when the
// process was not started by mpirun/srun) there is one rank and no messages.
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "work.h"
#include "work_internal.h"

#ifdef DEEPSCOPE_WITH_MPI
#include <mpi.h>
#endif

namespace ds::work {

#ifdef DEEPSCOPE_WITH_MPI
namespace {

struct World {
  bool active = false;
  int rank = 0, size = 1;
};

// A launcher's environment: Open MPI's mpirun, PMIx (Open MPI 4+, Slurm), PMI (MPICH, Slurm).
bool launched_by_mpi() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"})
    if (std::getenv(v)) return true;
  return false;
}

World& world() {
  static World w = [] {
    World x;
    if (!launched_by_mpi()) return x;
    int provided = 0;
    if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
      throw std::runtime_error("MPI_Init_thread failed");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &x.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &x.size);
    x.active = true;
    return x;
  }();
  return w;
}

void check(int rc, const char* what) { detail::mpi_check(rc, what); }

}  // namespace

int rank() { return world().rank; }
int size() { return world().size; }
bool built_with_mpi() { return true; }

std::string mpi_version() {
  char v[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  MPI_Get_library_version(v, &len);
  std::string s(v, static_cast<std::size_t>(len));
  const std::size_t nl = s.find_first_of("\n,");
  return nl == std::string::npos ? s : s.substr(0, nl);
}

void finish(int code) {
  World& w = world();
  if (!w.active) return;
  int done = 0;
  MPI_Finalized(&done);
  if (done) return;
  if (code != 0 && code != 130 && w.size > 1) MPI_Abort(MPI_COMM_WORLD, code);
  MPI_Finalize();
}

namespace detail {
void mpi_check(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  throw std::runtime_error(std::string(what) +
                           " failed: " + std::string(text, static_cast<std::size_t>(len)));
}

// Wire format: the chunk (8 bytes, little-endian host order) then the text.
bool poll(Message* m) {
  int flag = 0;
  MPI_Status st;
  check(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st), "MPI_Iprobe");
  if (!flag) return false;
  *m = receive(st.MPI_SOURCE);
  return true;
}

void send(int to, const Message& m) {
  std::vector<char> buf(sizeof(int64_t) + m.text.size());
  std::memcpy(buf.data(), &m.chunk, sizeof(int64_t));
  if (!m.text.empty()) std::memcpy(buf.data() + sizeof(int64_t), m.text.data(), m.text.size());
  if (buf.size() > static_cast<std::size_t>(INT32_MAX))
    throw std::runtime_error("a chunk's result of " + std::to_string(buf.size()) +
                             " bytes is too large for one MPI message; use smaller chunks");
  check(MPI_Send(buf.data(), static_cast<int>(buf.size()), MPI_BYTE, to, m.kind, MPI_COMM_WORLD), "MPI_Send");
}

Message receive(int from) {
  MPI_Status st;
  check(MPI_Probe(from, MPI_ANY_TAG, MPI_COMM_WORLD, &st), "MPI_Probe");
  int n = 0;
  MPI_Get_count(&st, MPI_BYTE, &n);
  std::vector<char> buf(static_cast<std::size_t>(n));
  check(MPI_Recv(buf.data(), n, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
        "MPI_Recv");
  Message m;
  m.kind = static_cast<Kind>(st.MPI_TAG);
  m.from = st.MPI_SOURCE;
  if (n >= static_cast<int>(sizeof(int64_t))) {
    std::memcpy(&m.chunk, buf.data(), sizeof(int64_t));
    m.text.assign(buf.data() + sizeof(int64_t), buf.size() - sizeof(int64_t));
  }
  return m;
}

}  // namespace detail

#else  // without MPI: one process

int rank() { return 0; }
int size() { return 1; }
bool built_with_mpi() { return false; }
std::string mpi_version() { return ""; }
void finish(int) {}

namespace detail {
bool poll(Message*) { return false; }
void send(int, const Message&) { throw std::logic_error("work: MPI message without MPI"); }
Message receive(int) { throw std::logic_error("work: MPI message without MPI"); }
}  // namespace detail

#endif

}  // namespace ds::work
