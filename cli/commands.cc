#include "commands.h"

#include "diff_command.h"
#include "export_command.h"
#include "keep_command.h"
#include "level_command.h"
#include "ops_command.h"
#include "run_command.h"
#include "sessions_command.h"
#include "source_command.h"
#include "stats_command.h"
#include "status_command.h"
#include "steps_command.h"
#include "tail_command.h"
#include "tree_command.h"
#include "ui_command.h"
#include "why_command.h"
#include "window_command.h"

namespace optrace::cli {

std::vector<CommandSpec> DescribeCommands() {
  std::vector<CommandSpec> commands;
  for (CommandSpec (*describe)() :
       {DescribeTailCommand, DescribeLevelCommand, DescribeSessionsCommand, DescribeOpsCommand,
        DescribeStatsCommand, DescribeTreeCommand, DescribeStepsCommand, DescribeWhyCommand,
        DescribeSourceCommand, DescribeDiffCommand, DescribeExportCommand, DescribeKeepCommand,
        DescribeKeepsCommand, DescribeWindowCommand, DescribeStatusCommand, DescribeRunCommand,
        DescribeUiCommand}) {
    commands.push_back(describe());
  }
  return commands;
}

}  // namespace optrace::cli
