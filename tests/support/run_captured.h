// A whole command line run as main runs it (app/cli/run.cpp: exit codes for bad input and
// failures), in the test's process, with its stdout dropped and its stderr kept.
#pragma once
#include <gtest/gtest.h>

#include <string>

#include "app/cli/commands.h"

namespace ds::test {

inline int run_captured(const app::ArgList& args, std::string* err) {
  testing::internal::CaptureStderr();
  testing::internal::CaptureStdout();
  const int rc = app::run(args);
  testing::internal::GetCapturedStdout();
  *err = testing::internal::GetCapturedStderr();
  return rc;
}

}  // namespace ds::test
