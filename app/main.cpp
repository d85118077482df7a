// deepscope's entry point: the command line goes to app::run (app/cli/run.cpp).
#include "app/cli/commands.h"
#include "kernels/core/work.h"

int main(int argc, char** argv) {
  ds::work::rank();  // under mpirun: MPI starts here, on the main thread
  const int code = ds::app::run(ds::app::ArgList(argv + 1, argv + argc));
  ds::work::finish(code);
  return code;
}
