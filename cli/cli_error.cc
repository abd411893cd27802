#include "cli_error.h"

#include <fmt/core.h>

#include <cstdio>

namespace optrace::cli {

int Fail(const CliError& error) {
  std::fflush(stdout);  // keep what was already printed before the error
  fmt::print(stderr, "optrace: {}\n", error.message);
  return error.exit_code;
}

}  // namespace optrace::cli
