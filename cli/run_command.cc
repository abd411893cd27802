#include "run_command.h"

#include <fmt/core.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <thread>

#include "cli_error.h"
#include "common/level_names.h"
#include "drops_text.h"
#include "exit_codes.h"
#include "human_format.h"
#include "nvtx_library.h"
#include "proto_names.h"
#include "rpc_error.h"
#include "stats_command.h"
#include "terminal.h"
#include "torch_hook.h"
#include "wall_clock.h"

extern char** environ;

namespace optrace::cli {
namespace {

// A session may report a start a little before the CLI's clock read
// (clock granularity, the process's own start stamp).
constexpr int64_t kStartSlackNs = 1'000'000'000;
constexpr std::chrono::milliseconds kSettlePoll{100};
// Sessions listed per poll: ours is among the newest.
constexpr uint32_t kSessionsPolled = 200;

// The environment of the command: ours with OPTRACE_SESSION, OPTRACE_LEVEL,
// (--lossless) OPTRACE_FULL_RING and (--step-range) OPTRACE_NVTX_STEP_RANGE
// replaced, and the injection libraries of `nvtx_library`.
std::vector<std::string> CommandEnvironment(const RunOptions& options,
                                            const std::string& nvtx_library,
                                            const std::string& torch_hook) {
  std::vector<std::string> env;
  const std::string cupti =
      nvtx_library.empty()
          ? std::string()
          : (std::filesystem::path(nvtx_library).parent_path() / "liboptrace_cupti.so").string();
  const bool with_cupti = !cupti.empty() && ::access(cupti.c_str(), R_OK) == 0;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string_view entry(*e);
    if (entry.starts_with("OPTRACE_LEVEL=")) continue;
    if (!options.label.empty() && entry.starts_with("OPTRACE_SESSION=")) continue;
    if (!nvtx_library.empty() && entry.starts_with("NVTX_INJECTION64_PATH=")) continue;
    if (with_cupti && entry.starts_with("CUDA_INJECTION64_PATH=")) continue;
    if (!torch_hook.empty() && entry.starts_with("PYTHONPATH=")) continue;
    if (options.lossless && entry.starts_with("OPTRACE_FULL_RING=")) continue;
    if (!options.step_range.empty() && entry.starts_with("OPTRACE_NVTX_STEP_RANGE=")) continue;
    env.emplace_back(entry);
  }
  env.push_back("OPTRACE_LEVEL=" + std::string(LevelWord(options.level)));
  if (!options.label.empty()) env.push_back("OPTRACE_SESSION=" + options.label);
  if (options.lossless) env.push_back("OPTRACE_FULL_RING=wait");
  if (!nvtx_library.empty()) env.push_back("NVTX_INJECTION64_PATH=" + nvtx_library);
  if (!options.step_range.empty()) env.push_back("OPTRACE_NVTX_STEP_RANGE=" + options.step_range);
  if (with_cupti) env.push_back("CUDA_INJECTION64_PATH=" + cupti);
  if (!torch_hook.empty()) {
    env.push_back("PYTHONPATH=" + PythonPathWith(torch_hook, std::getenv("PYTHONPATH")));
  }
  return env;
}

std::vector<char*> PointersTo(std::vector<std::string>& strings) {
  std::vector<char*> pointers;
  for (std::string& s : strings) pointers.push_back(s.data());
  pointers.push_back(nullptr);
  return pointers;
}

// SIGINT and SIGQUIT ignored while the command runs: Ctrl-C reaches the
// command (same process group), which decides; we then report (as system(3)).
class IgnoreTerminalSignals {
 public:
  IgnoreTerminalSignals() {
    struct sigaction ignore {};
    ignore.sa_handler = SIG_IGN;
    sigemptyset(&ignore.sa_mask);
    ::sigaction(SIGINT, &ignore, &previous_int_);
    ::sigaction(SIGQUIT, &ignore, &previous_quit_);
  }
  ~IgnoreTerminalSignals() {
    ::sigaction(SIGINT, &previous_int_, nullptr);
    ::sigaction(SIGQUIT, &previous_quit_, nullptr);
  }
  IgnoreTerminalSignals(const IgnoreTerminalSignals&) = delete;
  IgnoreTerminalSignals& operator=(const IgnoreTerminalSignals&) = delete;

 private:
  struct sigaction previous_int_ {};
  struct sigaction previous_quit_ {};
};

// Starts the command (PATH searched) with the signal dispositions the
// spawned process should have: default SIGINT/SIGQUIT, not our ignored ones.
// Returns its pid, or -1 with `*error` set.
pid_t Spawn(const RunOptions& options, const std::string& nvtx_library,
            const std::string& torch_hook, int* error) {
  std::vector<std::string> argv_strings = options.command;
  std::vector<std::string> env_strings = CommandEnvironment(options, nvtx_library, torch_hook);
  std::vector<char*> argv = PointersTo(argv_strings);
  std::vector<char*> env = PointersTo(env_strings);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGINT);
  sigaddset(&defaults, SIGQUIT);
  posix_spawnattr_setsigdefault(&attributes, &defaults);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGDEF);
  pid_t pid = -1;
  *error = posix_spawnp(&pid, argv[0], nullptr, &attributes, argv.data(), env.data());
  posix_spawnattr_destroy(&attributes);
  return *error == 0 ? pid : -1;
}

// Whether `pid` has exited, without reaping it (WaitForExit does).
bool HasExited(pid_t pid) {
  siginfo_t info{};
  return ::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
         info.si_pid == pid;
}

// Gives the session of `pid` the window `change` asks for, once the daemon
// lists it: polled while the command runs, less often as it goes on (a
// command may trace its first op late, or never). A failure is said on
// stderr; the command runs on either way.
void SetRunWindow(Connection& connection, pid_t pid, int64_t started_unix_ns,
                  const WindowChange& change) {
  v1::ListSessionsRequest request;  // running sessions only
  request.set_limit(kSessionsPolled);
  auto poll = std::chrono::milliseconds(10);
  while (!HasExited(pid)) {
    v1::ListSessionsResponse response;
    const auto context = connection.NewContext();
    grpc::Status status = connection.stub().ListSessions(context.get(), request, &response);
    const std::optional<v1::Session> session =
        status.ok() ? FindRunSession(response, pid, started_unix_ns) : std::nullopt;
    if (session) {
      v1::Window window;
      status = ApplyWindowChange(connection, *session, change, &window);
      if (status.ok()) return;
    }
    if (!status.ok()) {
      fmt::print(stderr, "optrace: the session's window was not set: {}\n",
                 ErrorFromRpc(status, connection.address()).message);
      return;
    }
    std::this_thread::sleep_for(poll);
    poll = std::min<std::chrono::milliseconds>(poll * 2, std::chrono::seconds(1));
  }
}

// Waits for `pid`; returns its exit code, or 128 + the signal that killed it.
int WaitForExit(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return kExitFailure;
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return kExitFailure;
}

// Polls the daemon until the session of `pid` has ended or the settle
// timeout passes. Returns the last answer's status; `*session` is set when
// the session was seen at all.
grpc::Status AwaitSession(Connection& connection, pid_t pid, int64_t started_unix_ns,
                          std::optional<v1::Session>* session) {
  const auto deadline = std::chrono::steady_clock::now() + kSessionSettleTimeout;
  v1::ListSessionsRequest request;
  request.set_all(true);
  request.set_limit(kSessionsPolled);
  while (true) {
    v1::ListSessionsResponse response;
    const auto context = connection.NewContext();
    const grpc::Status status = connection.stub().ListSessions(context.get(), request, &response);
    if (!status.ok()) return status;
    *session = FindRunSession(response, pid, started_unix_ns);
    const bool ended = *session && (*session)->state() != v1::SESSION_STATE_RUNNING;
    if (ended || std::chrono::steady_clock::now() >= deadline) return status;
    std::this_thread::sleep_for(kSettlePoll);
  }
}

void Report(Connection& connection, const v1::Session& session, pid_t pid) {
  const std::string label = session.label().empty() ? "" : fmt::format(" ({})", session.label());
  fmt::print(stderr, "optrace: session {}{} of pid {}: {}, {} spans, {} drops{}\n", session.id(),
             label, pid, SessionStateWord(session.state()), session.spans(),
             session.drops().total(), DescribeNameLosses(session.drops()));
  v1::GetStatsRequest request;
  request.set_session_id(session.id());
  request.set_by(v1::GROUP_BY_NAME);
  request.set_top(kRunTopOps);
  request.set_sort(v1::STATS_SORT_SELF);  // nested ops would each count their children again
  v1::GetStatsResponse stats;
  if (const grpc::Status status = FetchStats(connection, request, &stats); !status.ok()) {
    Fail(ErrorFromRpc(status, connection.address(), session.id()));
    return;
  }
  if (stats.rows().empty()) return;
  fmt::print(stderr, "top ops by self time:\n{}",
             RenderStatsTable(stats, v1::GROUP_BY_NAME, OutputWidth(STDERR_FILENO),
                              Palette(ColoursWanted(STDERR_FILENO)), NodeColumn::kNone,
                              v1::STATS_SORT_SELF));
  fmt::print(
      stderr,
      "more: optrace stats {0}, optrace ops {0}, optrace export {0} --format chrome -o FILE\n",
      session.id());
}

}  // namespace

std::optional<v1::Session> FindRunSession(const v1::ListSessionsResponse& sessions, pid_t pid,
                                          int64_t started_unix_ns) {
  for (const v1::Session& s : sessions.sessions()) {
    if (static_cast<pid_t>(s.pid()) == pid &&
        s.start_unix_ns() >= started_unix_ns - kStartSlackNs) {
      return s;
    }
  }
  return std::nullopt;
}

int RunRun(Connection& connection, const RunOptions& options) {
  std::string nvtx_library;
  if (options.nvtx) {
    // NVTX ignores a wrong injection path silently: refuse instead.
    nvtx_library = FindNvtxLibrary();
    if (nvtx_library.empty()) {
      std::string looked;
      for (const std::string& path : NvtxLibraryCandidates()) looked += "\n  " + path;
      return Fail({kExitUsage, "--nvtx: liboptrace_nvtx.so was not found; looked at:" + looked +
                                   "\nset OPTRACE_NVTX_LIBRARY to its path"});
    }
  }
  std::string torch_hook;
  if (options.torch) {
    torch_hook = FindTorchHook();
    if (torch_hook.empty()) {
      std::string looked;
      for (const std::string& path : TorchHookCandidates()) looked += "\n  " + path;
      return Fail({kExitUsage, "--torch: optrace's sitecustomize.py was not found; looked in:" +
                                   looked + "\nset OPTRACE_TORCH_HOOK to its folder"});
    }
  }
  const int64_t started_unix_ns = NowUnixNs();
  int exit_code = kExitFailure;
  pid_t pid = -1;
  {
    IgnoreTerminalSignals ignore;
    int error = 0;
    pid = Spawn(options, nvtx_library, torch_hook, &error);
    if (pid < 0) {
      return Fail({kExitCannotRun, fmt::format("cannot run {}: {}", options.command.front(),
                                               std::strerror(error))});
    }
    if (options.window.any()) SetRunWindow(connection, pid, started_unix_ns, options.window);
    exit_code = WaitForExit(pid);
  }
  std::fflush(stdout);
  std::optional<v1::Session> session;
  const grpc::Status status = AwaitSession(connection, pid, started_unix_ns, &session);
  if (status.error_code() == grpc::StatusCode::UNAVAILABLE) {
    fmt::print(stderr, "optrace: nothing was recorded: {}\n",
               NoDaemonMessage(connection.address()));
  } else if (!status.ok()) {
    Fail(ErrorFromRpc(status, connection.address()));
  } else if (!session) {
    fmt::print(stderr,
               "optrace: no session of pid {} was recorded: the command traced no ops through "
               "liboptrace\n",
               pid);
  } else {
    Report(connection, *session, pid);
  }
  return exit_code;
}

CommandSpec DescribeRunCommand() {
  auto options = std::make_shared<RunOptions>();
  CommandSpec run("run", "run a command traced, then show its top ops");
  run.footer =
      "The summary goes to stderr; the exit code is the command's.\n"
      "Examples:\n  optrace run -- ./my_runtime --steps 10\n"
      "  optrace run --label fused -- optrace-demo --mode fused\n"
      "  optrace run --nvtx -- python train.py\n"
      "  optrace run --nvtx --step-range train_step -- ./trainer\n"
      "  optrace run --torch -- python3 train.py\n"
      "  optrace run --keep-last 1h -- ./server   (this session's own rolling window)";
  run.Add("--label", &options->label, "the session label (OPTRACE_SESSION)");
  run.AddWord("--level", Word(&options->level, ParseLevelWord, std::string(LevelNameList())),
              "the level the command traces at (OPTRACE_LEVEL; default trace)");
  run.AddFlag("--nvtx", &options->nvtx,
              "also trace the command's NVTX ranges, without changing it (liboptrace_nvtx.so)");
  run.Add("--step-range", &options->step_range,
          "with --nvtx: the NVTX ranges of this name (pushed ones) are the command's steps, as "
          "optrace steps lists them")
      .Needs("--nvtx");
  run.AddFlag("--torch", &options->torch,
              "also trace the command's PyTorch ops, without changing it (optrace.torch)");
  run.AddFlag("--lossless", &options->lossless,
              "a thread whose ring is full waits for the daemon instead of dropping, up to "
              "OPTRACE_FULL_RING_TIMEOUT_MS (default 1000) a time (OPTRACE_FULL_RING=wait)");
  AddWindowOptions(run, &options->window);
  run.Add("COMMAND", &options->command, "the command and its arguments, after --").Required();
  run.run = [options](Connection& connection) { return RunRun(connection, *options); };
  return run;
}

}  // namespace optrace::cli
