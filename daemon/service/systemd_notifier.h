// The systemd side of running as a service: readiness (Type=notify),
// status text, stopping, and the watchdog. Without systemd (no
// NOTIFY_SOCKET) every call is a cheap no-op.
#ifndef OPTRACE_DAEMON_SERVICE_SYSTEMD_NOTIFIER_H_
#define OPTRACE_DAEMON_SERVICE_SYSTEMD_NOTIFIER_H_

#include <cstdint>
#include <string>

namespace optrace::daemon {

class SystemdNotifier {
 public:
  SystemdNotifier();

  // READY=1 with a status line: `systemctl start` returns now.
  void Ready(const std::string& status) const;
  void Stopping() const;
  // WATCHDOG=1: the drain loop is alive. Thread-safe.
  void Watchdog() const;

  // How often Watchdog() must be called (half of WatchdogSec), or 0 when
  // the service manager does not watch us.
  uint64_t watchdog_interval_ns() const { return watchdog_interval_ns_; }

 private:
  uint64_t watchdog_interval_ns_ = 0;
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_SERVICE_SYSTEMD_NOTIFIER_H_
