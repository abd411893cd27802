// Drives the real `optrace` binary for integration tests: in pipes (what
// scripts see) or in a pseudo-terminal (what a person sees), against a
// real optraced, with real producer processes.
#ifndef OPTRACE_TESTS_CLI_CLI_HARNESS_H_
#define OPTRACE_TESTS_CLI_CLI_HARNESS_H_

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "daemon_process.h"
#include "producer_report.h"
#include "subprocess.h"
#include "temp_folder.h"
#include "test_producer.h"

namespace optrace::cli::testing {

using Env = std::map<std::string, std::string>;

// How one run of the CLI ended and what it printed.
struct CliRun {
  int exit_code = -1;  // 128 + signal when killed; -1 when it did not end
  std::string out;
  std::string err;
};

// Runs `optrace args...` with stdout and stderr on pipes, the environment
// plus `env`; waits up to `timeout`.
CliRun RunCli(const std::vector<std::string>& args, const Env& env = {},
              std::chrono::seconds timeout = std::chrono::seconds(60));

// Runs the shell command line `command` in a pseudo-terminal of `columns`
// columns (util-linux `script`), so that stdout and stderr are a terminal.
// `out` is everything the terminal received ("\r\n" line ends).
CliRun RunInTerminal(const std::string& command, int columns, const Env& env = {},
                     std::chrono::seconds timeout = std::chrono::seconds(60));

using optrace::testing::DoneCounts;         // the producer's "done ..." counts
using optrace::testing::StartTestProducer;  // optrace-test-producer as a child process
using optrace::testing::TestProducerPath;   // and where it is

// The member `key` of the JSON document `text`, by value: safe to iterate
// over directly (a member of a temporary document would dangle).
nlohmann::json JsonMember(const std::string& text, const std::string& key);

// Shell-quotes `word` for RunInTerminal command lines.
std::string ShellQuote(const std::string& word);

// A test with its own optraced (socket and database in a temp folder, the
// test binary's namespace), started in SetUp and stopped cleanly (SIGTERM,
// exit 0) in TearDown, so that it removes its shared memory.
class CliTest : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;

  // `optrace --socket <the daemon's> args...`.
  CliRun Cli(std::vector<std::string> args, const Env& env = {});

  // The same, as a shell command line for RunInTerminal.
  std::string CliCommandLine(const std::vector<std::string>& args) const;

  // A finished producer run: its output and its ended session (as
  // `optrace sessions --all --json` shows it).
  struct ProducerRun {
    std::unique_ptr<optrace::testing::Subprocess> producer;
    std::map<std::string, uint64_t> done;
    nlohmann::json session;
    uint64_t session_id = 0;
  };
  // Runs the producer to its end at level trace (label `label` unless
  // empty), then waits for its session to end.
  ProducerRun Produce(const std::vector<std::string>& args, const std::string& label = "");

  // Polls `optrace sessions --all --json` until the session of `pid` is
  // there (and, with `ended`, no longer running); null JSON on timeout.
  nlohmann::json WaitForSession(uint32_t pid, bool ended);

  // Polls `optrace status --json` until it counts `tails` live tails.
  bool WaitForTails(uint32_t tails);

  optrace::testing::TempFolder folder_;
  optrace::testing::DaemonProcess daemon_{folder_.path()};
};

}  // namespace optrace::cli::testing

#endif  // OPTRACE_TESTS_CLI_CLI_HARNESS_H_
