// A real child process for integration tests: fork/exec with its stdout and
// stderr captured through pipes, its environment chosen by the test.
#ifndef OPTRACE_TESTS_SUPPORT_SUBPROCESS_H_
#define OPTRACE_TESTS_SUPPORT_SUBPROCESS_H_

#include <sys/types.h>

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace optrace::testing {

// How a child ended: exit code or the signal that killed it.
struct ExitStatus {
  bool exited = false;
  int code = -1;     // when exited
  int signal = 0;    // when killed by a signal
};

// Owns one child process. The destructor kills (SIGKILL) and reaps a child
// that is still running, so a failing test never leaks processes.
class Subprocess {
 public:
  // Starts `argv[0]` (a path) with `argv`, the current environment plus
  // `env` (a value of "" unsets the variable). stdin is a pipe the test can
  // write to; stdout and stderr are captured.
  Subprocess(std::vector<std::string> argv, std::map<std::string, std::string> env = {});
  ~Subprocess();
  Subprocess(const Subprocess&) = delete;
  Subprocess& operator=(const Subprocess&) = delete;

  pid_t pid() const { return pid_; }

  // Reads stdout until a line starting with `prefix` arrives; returns the
  // rest of that line, or nullopt on EOF or timeout.
  std::optional<std::string> WaitForLine(const std::string& prefix,
                                         std::chrono::milliseconds timeout);

  // Moves whatever output is available now into stdout_text/stderr_text.
  void Collect() { Pump(0); }

  // Reads output until stderr contains `needle`; false on EOF or timeout.
  bool WaitForStderr(const std::string& needle, std::chrono::milliseconds timeout);

  // Writes `text` to the child's stdin.
  void WriteStdin(const std::string& text);
  void CloseStdin();

  // Sends `sig`.
  void Kill(int sig);

  // Waits for the child to end (collecting all output); nullopt on timeout.
  std::optional<ExitStatus> Wait(std::chrono::milliseconds timeout);

  // Output captured so far (complete after Wait).
  const std::string& stdout_text() const { return out_; }
  const std::string& stderr_text() const { return err_; }

 private:
  // Moves available output into out_/err_, waiting up to `timeout_ms`.
  void Pump(int timeout_ms);

  pid_t pid_ = -1;
  int stdin_fd_ = -1;
  int stdout_fd_ = -1;
  int stderr_fd_ = -1;
  std::string out_;
  std::string err_;
  size_t out_scanned_ = 0;
  std::optional<ExitStatus> status_;
};

// Splits text into lines (no trailing empty line).
std::vector<std::string> SplitLines(const std::string& text);

}  // namespace optrace::testing

#endif  // OPTRACE_TESTS_SUPPORT_SUBPROCESS_H_
