// The list of optrace's subcommands: the one place a new subcommand is
// registered (beside its own *_command.{h,cc} and cli/CMakeLists.txt).
#ifndef OPTRACE_CLI_COMMANDS_H_
#define OPTRACE_CLI_COMMANDS_H_

#include <vector>

#include "command_spec.h"

namespace optrace::cli {

// Every subcommand, described afresh (each with options of its own), in
// the order `optrace --help` lists them.
std::vector<CommandSpec> DescribeCommands();

}  // namespace optrace::cli

#endif  // OPTRACE_CLI_COMMANDS_H_
