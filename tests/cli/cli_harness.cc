#include "cli_harness.h"

#include <sstream>

namespace optrace::cli::testing {

using namespace std::chrono_literals;
using optrace::testing::Subprocess;
using optrace::testing::WaitUntil;

namespace {

CliRun Finish(Subprocess& process, std::chrono::seconds timeout) {
  CliRun run;
  const auto status = process.Wait(timeout);
  if (!status) {
    process.Kill(SIGKILL);
    process.Wait(10s);
  } else {
    run.exit_code = status->exited ? status->code : 128 + status->signal;
  }
  run.out = process.stdout_text();
  run.err = process.stderr_text();
  return run;
}

}  // namespace

CliRun RunCli(const std::vector<std::string>& args, const Env& env, std::chrono::seconds timeout) {
  std::vector<std::string> argv = {OPTRACE_CLI};
  argv.insert(argv.end(), args.begin(), args.end());
  Subprocess process(argv, env);
  process.CloseStdin();
  return Finish(process, timeout);
}

CliRun RunInTerminal(const std::string& command, int columns, const Env& env,
                     std::chrono::seconds timeout) {
  // `script` gives the command a new pseudo-terminal; its size is set from
  // inside, since ours (a pipe) has none.
  const std::string inner = "stty cols " + std::to_string(columns) + " rows 40; " + command;
  Subprocess process({"/usr/bin/script", "-qfec", inner, "/dev/null"}, env);
  return Finish(process, timeout);
}

nlohmann::json JsonMember(const std::string& text, const std::string& key) {
  return nlohmann::json::parse(text).at(key);
}

std::string ShellQuote(const std::string& word) {
  std::string quoted = "'";
  for (char c : word) {
    if (c == '\'') {
      quoted += "'\\''";
    } else {
      quoted += c;
    }
  }
  return quoted + "'";
}

void CliTest::SetUp() { ASSERT_TRUE(daemon_.Start()) << daemon_.log(); }

void CliTest::TearDown() {
  if (daemon_.running()) {
    EXPECT_EQ(daemon_.Stop(), 0) << daemon_.log();
  }
}

CliRun CliTest::Cli(std::vector<std::string> args, const Env& env) {
  args.insert(args.begin(), {"--socket", daemon_.socket_path()});
  return RunCli(args, env);
}

std::string CliTest::CliCommandLine(const std::vector<std::string>& args) const {
  std::string line = ShellQuote(OPTRACE_CLI) + " --socket " + ShellQuote(daemon_.socket_path());
  for (const std::string& a : args) line += " " + ShellQuote(a);
  return line;
}

nlohmann::json CliTest::WaitForSession(uint32_t pid, bool ended) {
  nlohmann::json found;
  WaitUntil(
      [&] {
        const CliRun run = Cli({"sessions", "--all", "--json"});
        if (run.exit_code != 0) return false;
        for (const auto& s : JsonMember(run.out, "sessions")) {
          if (s["pid"] == pid && (!ended || s["state"] != "running")) {
            found = s;
            return true;
          }
        }
        return false;
      },
      20s);
  return found;
}

bool CliTest::WaitForTails(uint32_t tails) {
  return WaitUntil(
      [&] {
        const CliRun run = Cli({"status", "--json"});
        return run.exit_code == 0 && nlohmann::json::parse(run.out)["tails"] == tails;
      },
      10s);
}

CliTest::ProducerRun CliTest::Produce(const std::vector<std::string>& args,
                                      const std::string& label) {
  Env env;
  if (!label.empty()) env["OPTRACE_SESSION"] = label;
  ProducerRun run;
  run.producer = StartTestProducer(args, env);
  EXPECT_TRUE(run.producer->Wait(60s).has_value());
  run.done = DoneCounts(*run.producer);
  run.session = WaitForSession(static_cast<uint32_t>(run.producer->pid()), true);
  if (run.session.is_object()) run.session_id = run.session["id"];
  return run;
}

}  // namespace optrace::cli::testing
