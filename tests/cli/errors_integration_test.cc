// Every error path of the real CLI: no daemon, bad arguments, unknown
// sessions, requests the daemon refuses; and --help / --version.
#include <gtest/gtest.h>

#include <filesystem>

#include "cli_harness.h"

namespace optrace::cli::testing {
namespace {

using optrace::testing::SplitLines;
using optrace::testing::TempFolder;

TEST(NoDaemonTest, EverySubcommand_OneLineSayingHowToStartItExit2) {
  TempFolder folder;
  const std::string socket = folder.path() + "/optraced.sock";
  const std::string export_file = folder.path() + "/out.csv";
  const std::vector<std::vector<std::string>> commands = {
      {"sessions"},       {"sessions", "show", "1"},
      {"status"},         {"tail"},
      {"level"},          {"level", "set", "trace"},
      {"ops", "1"},       {"stats", "1"},
      {"diff", "1", "2"}, {"export", "1", "--format", "csv", "-o", export_file}};
  for (std::vector<std::string> args : commands) {
    args.insert(args.begin(), {"--socket", socket});
    const CliRun run = RunCli(args);
    EXPECT_EQ(run.exit_code, 2) << args[2];
    EXPECT_EQ(run.err, "optrace: no daemon at " + socket +
                           "; start one with `optraced` or `systemctl start optraced`\n")
        << args[2];
    EXPECT_EQ(run.out, "") << args[2];
  }
  EXPECT_FALSE(std::filesystem::exists(export_file));
  EXPECT_FALSE(std::filesystem::exists(export_file + ".partial"));
}

TEST(NoDaemonTest, OptraceSocketEnvironment_Used) {
  const CliRun run = RunCli({"status"}, {{"OPTRACE_SOCKET", "/nonexistent/s.sock"}});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("no daemon at /nonexistent/s.sock;"), std::string::npos) << run.err;
}

TEST(BadArgumentsTest, Misuse_Cli11MessageExit2) {
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{}, "A subcommand is required"},
      {{"frobnicate"}, "A subcommand is required"},
      {{"stats"}, "SESSION is required"},
      {{"stats", "twelve"}, "twelve"},
      {{"stats", "1", "--by", "colour"}, "colour is not one of: name, tag, target"},
      {{"tail", "--level", "loud"}, "loud is not one of: off, error, warning, info, debug, trace"},
      {{"tail", "--min-duration", "5"}, "5 is not a duration like 500us, 1ms or 2.5s"},
      {{"tail", "--pid", "1", "--label", "x"}, "excludes"},
      {{"export", "1", "-o", "x.json"}, "--format is required"},
      {{"export", "1", "--format", "pdf", "-o", "x"},
       "pdf is not one of: chrome, perfetto, csv, sqlite"},
      {{"run"}, "COMMAND is required"},
      {{"--server", "localhost", "status"}, "is not HOST:PORT"},
      {{"--server", "192.0.2.1:7070", "status"}, "--tls-ca"},
      {{"level", "set"}, "level set needs either LEVEL"},
  };
  for (const Case& c : cases) {
    const CliRun run = RunCli(c.args, {{"OPTRACE_SOCKET", "/nonexistent/s.sock"}});
    const std::string what = c.args.empty() ? "(none)" : c.args[0];
    EXPECT_EQ(run.exit_code, 2) << what << ": " << run.err;
    EXPECT_NE(run.err.find(c.message), std::string::npos) << what << ": " << run.err;
    EXPECT_EQ(run.err.find("terminate"), std::string::npos) << run.err;
  }
}

TEST(HelpTest, HelpAndVersion_Exit0) {
  CliRun run = RunCli({"--version"});
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_EQ(run.out, "optrace 0.1.0\n");
  run = RunCli({"--help"});
  EXPECT_EQ(run.exit_code, 0);
  for (const char* sub :
       {"tail", "level", "sessions", "ops", "stats", "diff", "export", "status", "run", "help"}) {
    EXPECT_NE(run.out.find(sub), std::string::npos) << sub;
  }
  run = RunCli({"help"});
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_NE(run.out.find("Examples:"), std::string::npos);
  run = RunCli({"help", "nosuch"});
  EXPECT_EQ(run.exit_code, 2);
}

TEST(HelpTest, EverySubcommand_HelpWithAnExample) {
  for (const char* sub :
       {"tail", "level", "sessions", "ops", "stats", "diff", "export", "status", "run"}) {
    const CliRun run = RunCli({sub, "--help"});
    EXPECT_EQ(run.exit_code, 0) << sub;
    EXPECT_NE(run.out.find("Example"), std::string::npos) << sub << ":\n" << run.out;
    EXPECT_NE(run.out.find(std::string("optrace ") + sub), std::string::npos) << sub;
    EXPECT_EQ(RunCli({"help", sub}).out, run.out) << sub;
  }
}

class DaemonErrorsTest : public CliTest {};

TEST_F(DaemonErrorsTest, UnknownSession_NoSessionNExit1) {
  const std::string file = folder_.path() + "/x.json";
  const std::vector<std::vector<std::string>> commands = {
      {"stats", "987654"},
      {"ops", "987654"},
      {"sessions", "show", "987654"},
      {"diff", "987654", "987655"},
      {"export", "987654", "--format", "chrome", "-o", file}};
  for (const auto& args : commands) {
    const CliRun run = Cli(args);
    EXPECT_EQ(run.exit_code, 1) << args[0] << ": " << run.err;
    EXPECT_EQ(run.err, "optrace: no session 987654; see optrace sessions\n") << args[0];
  }
  EXPECT_FALSE(std::filesystem::exists(file));
}

TEST_F(DaemonErrorsTest, InvalidArgument_DaemonsMessageOneLineExit2) {
  const ProducerRun p = Produce({"--ops", "5"});
  ASSERT_NE(p.session_id, 0u);
  const CliRun run = Cli({"ops", std::to_string(p.session_id), "--name", "(unclosed"});
  EXPECT_EQ(run.exit_code, 2) << run.err;
  ASSERT_EQ(SplitLines(run.err).size(), 1u) << run.err;
  EXPECT_EQ(run.err.rfind("optrace: ", 0), 0u) << run.err;
  EXPECT_EQ(run.err.find("grpc"), std::string::npos) << run.err;
}

TEST_F(DaemonErrorsTest, DiffOfOneUnknown_NamesThatOne) {
  const ProducerRun p = Produce({"--ops", "5"});
  const CliRun run = Cli({"diff", std::to_string(p.session_id), "987654"});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_EQ(run.err, "optrace: no session 987654; see optrace sessions\n");
}

}  // namespace
}  // namespace optrace::cli::testing
