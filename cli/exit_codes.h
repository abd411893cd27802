// The exit codes of `optrace`, shared by every subcommand. `optrace run`
// is the exception: it exits with its command's code.
#ifndef OPTRACE_CLI_EXIT_CODES_H_
#define OPTRACE_CLI_EXIT_CODES_H_

namespace optrace::cli {

inline constexpr int kExitOk = 0;
// The request was understood but failed: unknown session, a file that
// cannot be written, a daemon error.
inline constexpr int kExitFailure = 1;
// The request cannot work as given: bad arguments, INVALID_ARGUMENT from
// the daemon, no daemon to talk to.
inline constexpr int kExitUsage = 2;

}  // namespace optrace::cli

#endif  // OPTRACE_CLI_EXIT_CODES_H_
