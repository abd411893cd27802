// A real optraced for integration tests: its own socket and database in a
// folder of the test, the test binary's namespace (OPTRACE_NAMESPACE).
#ifndef OPTRACE_TESTS_SUPPORT_DAEMON_PROCESS_H_
#define OPTRACE_TESTS_SUPPORT_DAEMON_PROCESS_H_

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "subprocess.h"

namespace optrace::testing {

class DaemonProcess {
 public:
  // Does not start it. `folder` holds the socket and database; `extra_args`
  // are appended to the command line.
  explicit DaemonProcess(std::string folder, std::vector<std::string> extra_args = {});
  ~DaemonProcess();  // stops it (SIGTERM) if still running

  // Starts optraced and waits until it logs that it is ready.
  // Returns false (with the log in `log()`) when it does not come up.
  bool Start();
  // SIGTERM, then waits for a clean exit; returns its exit code (-1 if it
  // had to be killed).
  int Stop();
  // SIGKILL, as a crash would.
  void Kill();
  bool running() const { return process_ != nullptr; }
  // The running daemon's pid (for SIGSTOP/SIGCONT), -1 when not running.
  pid_t pid() const { return process_ != nullptr ? process_->pid() : -1; }

  std::string db_path() const { return folder_ + "/optrace.db"; }
  std::string socket_path() const { return folder_ + "/run/optraced.sock"; }
  // Everything the daemon logged so far (all runs).
  std::string log();

 private:
  std::string folder_;
  std::vector<std::string> extra_args_;
  std::unique_ptr<Subprocess> process_;
  std::string previous_logs_;
};

// Polls `condition` every 20 ms until it holds or `timeout` passes.
bool WaitUntil(const std::function<bool()>& condition, std::chrono::milliseconds timeout);

}  // namespace optrace::testing

#endif  // OPTRACE_TESTS_SUPPORT_DAEMON_PROCESS_H_
