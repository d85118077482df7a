// `deepscope render` run in the test's process, with main()'s mapping of exceptions to exit codes
// (app/cli/run.cpp: 2 for bad input, 1 for a failure while running) and the message kept.
#pragma once
#include <exception>
#include <string>

#include "app/cli/cli.h"
#include "app/cli/commands.h"
#include "arith/error.h"
#include "kernels/core/atomic_file.h"

namespace ds::test {

inline int render_in_process(const app::ArgList& args, std::string* message = nullptr) {
  try {
    return app::cmd_render(args);
  } catch (const cli::UsageError& e) {
    if (message) *message = e.what();
    return 2;
  } catch (const ArithError& e) {
    if (message) *message = e.what();
    return 2;
  } catch (const IoError& e) {
    if (message) *message = e.what();
    return 2;
  } catch (const std::exception& e) {
    if (message) *message = e.what();
    return 1;
  }
}

}  // namespace ds::test
