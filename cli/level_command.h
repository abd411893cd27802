// `optrace level [get] [--json]`: the default level, the rules and each
// live producer's level; `optrace level set LEVEL|--clear [--pid N |
// --session ID | --label L]`: changes it and says how many producers it
// reached.
#ifndef OPTRACE_CLI_LEVEL_COMMAND_H_
#define OPTRACE_CLI_LEVEL_COMMAND_H_

#include <cstdint>
#include <optional>
#include <string>

#include "command_spec.h"
#include "connection.h"
#include "optrace/v1/optrace.pb.h"
#include "palette.h"

namespace optrace::cli {

struct LevelGetOptions {
  bool json = false;
};

struct LevelSetOptions {
  std::optional<v1::Level> level;  // REQUIRED unless `clear`
  bool clear = false;
  // The scope: at most one is set; none = the global default.
  uint64_t session_id = 0;
  uint32_t pid = 0;
  std::string label;
};

int RunLevelGet(Connection& connection, const LevelGetOptions& options);

// Exit 2 when neither or both of LEVEL and --clear are given.
int RunLevelSet(Connection& connection, const LevelSetOptions& options);

// "default level: info", the rules, then a table of producers (SESSION,
// PID, LABEL, LIVE, REQUESTED, OVERRIDE, TAIL) or "no live producers".
std::string RenderLevels(const v1::GetLevelResponse& levels, size_t width, const Palette& palette);

// What a SetLevel did: "level trace set for pid 1234; reached 1 producer",
// "default level set to info; reached 3 producers", "override cleared for
// label train; reached 0 producers".
std::string DescribeSetLevel(const LevelSetOptions& options, const v1::SetLevelResponse& response);

// `optrace level` and its subcommands get and set: their options, bound to
// options they own, and RunLevelGet / RunLevelSet.
CommandSpec DescribeLevelCommand();

}  // namespace optrace::cli

#endif  // OPTRACE_CLI_LEVEL_COMMAND_H_
