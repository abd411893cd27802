#include "daemon_process.h"

#include <signal.h>

#include <thread>

namespace optrace::testing {

using namespace std::chrono_literals;

DaemonProcess::DaemonProcess(std::string folder, std::vector<std::string> extra_args)
    : folder_(std::move(folder)), extra_args_(std::move(extra_args)) {}

DaemonProcess::~DaemonProcess() {
  // A clean stop removes the daemon's control segment; a kill would leave
  // it behind for the rest of the test binary's producers to see.
  if (process_) Stop();
}

bool DaemonProcess::Start() {
  std::vector<std::string> argv = {OPTRACED_PATH, "--db", db_path(), "--socket", socket_path()};
  argv.insert(argv.end(), extra_args_.begin(), extra_args_.end());
  process_ = std::make_unique<Subprocess>(argv);
  if (process_->WaitForStderr(" ready:", 20s)) return true;
  previous_logs_ += process_->stderr_text();
  process_.reset();
  return false;
}

int DaemonProcess::Stop() {
  if (!process_) return -1;
  process_->Kill(SIGTERM);
  auto status = process_->Wait(60s);
  if (!status) {
    process_->Kill(SIGKILL);
    status = process_->Wait(10s);
  }
  previous_logs_ += process_->stderr_text();
  process_.reset();
  return status && status->exited ? status->code : -1;
}

void DaemonProcess::Kill() {
  if (!process_) return;
  process_->Kill(SIGKILL);
  process_->Wait(10s);
  previous_logs_ += process_->stderr_text();
  process_.reset();
}

std::string DaemonProcess::log() {
  if (!process_) return previous_logs_;
  process_->Collect();
  return previous_logs_ + process_->stderr_text();
}

bool WaitUntil(const std::function<bool()>& condition, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!condition()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(20ms);
  }
  return true;
}

}  // namespace optrace::testing
