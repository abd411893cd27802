// The subcommand descriptions (command_spec.h) that main.cc hands to the
// argument parser: their builders, and the rules every description keeps.
#include "command_spec.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "commands.h"
#include "exit_codes.h"
#include "ops_command.h"
#include "proto_names.h"
#include "stats_command.h"

namespace optrace::cli {
namespace {

// Each name of "-v,--verbose".
std::vector<std::string> NamesOf(const OptionSpec& option) {
  std::vector<std::string> names;
  size_t start = 0;
  while (true) {
    const size_t comma = option.names.find(',', start);
    names.push_back(option.names.substr(start, comma - start));
    if (comma == std::string::npos) return names;
    start = comma + 1;
  }
}

// The rules of `command` and its subcommands name options of their own
// command, no name is used twice, and a command without run groups others.
void ExpectConsistent(const CommandSpec& command) {
  SCOPED_TRACE(command.name);
  std::set<std::string> names;
  for (const OptionSpec& option : command.options) {
    for (const std::string& name : NamesOf(option)) {
      EXPECT_TRUE(names.insert(name).second) << name << " is given twice";
    }
  }
  for (const OptionSpec& option : command.options) {
    for (const std::string& other : option.excludes) EXPECT_EQ(names.count(other), 1u) << other;
    for (const std::string& other : option.needs) EXPECT_EQ(names.count(other), 1u) << other;
  }
  EXPECT_TRUE(command.run || !command.subcommands.empty());
  EXPECT_FALSE(command.help.empty());
  for (const CommandSpec& child : command.subcommands) ExpectConsistent(child);
}

TEST(CommandSpecTest, EveryCommand_RulesNameItsOwnOptionsAndEachRuns) {
  const std::vector<CommandSpec> commands = DescribeCommands();
  ASSERT_EQ(commands.size(), 17u);
  std::set<std::string> names;
  for (const CommandSpec& command : commands) {
    EXPECT_TRUE(names.insert(command.name).second) << command.name;
    ExpectConsistent(command);
  }
}

TEST(CommandSpecTest, AddWord_HelpListsTheWordsAndStoreKeepsTheParsedValue) {
  CommandSpec command("test", "a test command");
  std::optional<v1::Target> target;
  OptionSpec& option = command.AddWord("--target", Word(&target, ParseTargetWord, TargetWordList()),
                                       "only this device");
  EXPECT_EQ(option.help, "only this device (" + TargetWordList() + ")");
  EXPECT_EQ(option.type_name, "WORD");
  const auto& word = std::get<WordValue>(option.value);
  EXPECT_FALSE(word.is_word("tpu"));
  ASSERT_TRUE(word.is_word("gpu"));
  word.store("gpu");
  EXPECT_EQ(target, v1::TARGET_GPU);
}

// The option of `command` whose names are `names`.
const OptionSpec& Find(const CommandSpec& command, const std::string& names) {
  for (const OptionSpec& option : command.options) {
    if (option.names == names) return option;
  }
  ADD_FAILURE() << "no option " << names;
  return command.options.front();
}

TEST(CommandSpecTest, StatsWithoutSessionOrFleet_CheckIsAUsageError) {
  const CommandSpec stats = DescribeStatsCommand();
  ASSERT_TRUE(stats.check);
  const std::optional<CliError> error = stats.check();
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->exit_code, kExitUsage);
  EXPECT_EQ(error->message, "SESSION is required (or --fleet, for every node's spans)");
}

TEST(CommandSpecTest, OpsWithSessionGiven_CheckPasses) {
  const CommandSpec ops = DescribeOpsCommand();
  const OptionSpec& session = Find(ops, "SESSION");
  ASSERT_NE(session.given, nullptr);
  *session.given = true;  // as main.cc reports it after the parse
  EXPECT_FALSE(ops.check().has_value());
}

TEST(CommandSpecTest, OpsWithFleet_CheckPasses) {
  const CommandSpec ops = DescribeOpsCommand();
  *std::get<bool*>(Find(ops, "--fleet").value) = true;
  EXPECT_FALSE(ops.check().has_value());
}

}  // namespace
}  // namespace optrace::cli
