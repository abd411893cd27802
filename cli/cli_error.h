// A failure as the user reads it: one line and the exit code it leads to.
#ifndef OPTRACE_CLI_CLI_ERROR_H_
#define OPTRACE_CLI_CLI_ERROR_H_

#include <string>

namespace optrace::cli {

struct CliError {
  int exit_code = 1;
  std::string message;  // without the "optrace: " prefix or a newline
};

// Prints "optrace: <message>" as one line on stderr and returns the exit
// code, so that a subcommand can `return Fail(error);`.
int Fail(const CliError& error);

}  // namespace optrace::cli

#endif  // OPTRACE_CLI_CLI_ERROR_H_
